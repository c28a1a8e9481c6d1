// The run runtime's part of `baton gc` (runtime.md §12.6): a run removed only when terminal
// (COMPLETED, CANCELLED, FAILED) and last updated before the bound. A record that cannot be
// read is never judged, so never removed. The removal re-reads the record under the run's
// lock and moves the whole run folder with one rename (lib/admin/retention.ts).
import { removeWhole, type Removable } from '../../admin/retention.js';
import { runPathsOf } from '../../project/layout.js';
import { isTerminal, type Workflow } from './workflow.js';
import { parseWorkflow, readRunFile, runIdsOf, withRunLock } from './runStore.js';

/** The run's record, or undefined when it cannot be read or is invalid. */
function recordOf(root: string, runId: string): Workflow | undefined {
  const path = runPathsOf(root, runId).workflow;
  try {
    const bytes = readRunFile(path, 'record');
    return bytes === undefined ? undefined : parseWorkflow(bytes, path, runId);
  } catch {
    return undefined;
  }
}

const finishedBefore = (wf: Workflow | undefined, before: number): wf is Workflow =>
  wf !== undefined && isTerminal(wf.status) && Date.parse(wf.updated_at) < before;

/** Every terminal run last updated before `before`. */
export function runsToRemove(root: string, before: Date): Removable[] {
  const bound = before.getTime();
  return runIdsOf(root).flatMap((runId) => {
    const wf = recordOf(root, runId);
    if (!finishedBefore(wf, bound)) return [];
    const remove = () =>
      withRunLock(root, runId, () => {
        if (finishedBefore(recordOf(root, runId), bound))
          removeWhole(root, runPathsOf(root, runId).dir);
      });
    return [{ kind: 'run' as const, path: runPathsOf(root, runId).dir, at: wf.updated_at, remove }];
  });
}
