// The project's unfinished runs, for the SessionStart hook: every run whose record says a
// status that is not terminal (docs/runtime.md §2). Each record is read through the run
// store's validated read (schema and cross-field rules), so a hook never reports a state
// the runtime itself would refuse: an invalid record throws, and the hook prints nothing.
// Reads only; takes no lock (a record is replaced by rename, so a read sees a whole one).
import * as fs from 'node:fs';
import { runsDirOf } from '../project/layout.js';
import { isTerminal, type RunPhase, type RunStatus } from '../run/record/workflow.js';

/** What SessionStart says about one unfinished run. */
export interface UnfinishedRun {
  runId: string;
  status: RunStatus;
  phase: RunPhase;
  activeStage: string | null;
}

/** The runs of ROOT that are not FAILED, CANCELLED or COMPLETED, oldest first. */
export async function unfinishedRunsOf(root: string): Promise<UnfinishedRun[]> {
  if (!fs.existsSync(runsDirOf(root))) return [];
  const { readWorkflow, runIdsOf } = await import('../run/record/runStore.js');
  return runIdsOf(root)
    .map((runId) => readWorkflow(root, runId).workflow)
    .filter((wf) => !isTerminal(wf.status))
    .map((wf) => ({
      runId: wf.run_id,
      status: wf.status,
      phase: wf.phase,
      activeStage: wf.active_stage,
    }));
}
