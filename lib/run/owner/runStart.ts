// `baton run start` (docs/runtime.md §4): one new run for a request.
//
// Concurrency contract: start holds the request's lock while it looks for a non-terminal
// run of the request and creates its own, so two starts released at one instant make
// exactly one run; the other is refused (exit 2). A record it cannot read in the runs
// folder makes it refuse too: it cannot tell whether that run is the request's.
//
// Crash contract: the run folder is made first, then workflow.json is written atomically.
// A kill between them leaves a folder without a record, which is no run: every reader
// skips it, and the request has no run until a start completes.
import { fail } from '../../fsx/commandFailure.js';
import { randomHex } from '../../fsx/digests.js';
import { excludeSwarmDir } from '../../project/gitExclude.js';
import { runPathsOf, runsDirOf } from '../../project/layout.js';
import { batonVersion } from '../../proc/version.js';
import { crashPoint } from '../../fsx/crash.js';
import { fsyncDir, mkdirSynced } from '../../fsx/durable.js';
import { folderModeIn, makeFolder } from '../../fsx/sharedFolders.js';
import { makeArtifactsFolder } from '../gates/artifacts.js';
import { tsidOf } from '../../queue/index.js';
import { printable } from '../../fsx/printable.js';
import { logged } from '../record/runMutation.js';
import { readWorkflow, runIdsOf, withRequestLock, writeWorkflow } from '../record/runStore.js';
import {
  isTerminal,
  REQUEST_ID_PATTERN,
  SCHEMA_VERSION,
  type Workflow,
} from '../record/workflow.js';
import { isoOf } from '../../fsx/timestamps.js';

/**
 * How a run is shaped: its stages, its limits, its roles (the same on the command line and in the
 * record).
 */
export interface RunShape {
  stages: string[];
  maxCycles: number;
  acceptanceTimeoutS: number;
  retryAttempts: number;
  retryBaseMs: number;
  roles: Workflow['roles'];
}

/** What start was given, checked and resolved by its caller (repository, base commit, spec). */
export interface StartRequest extends RunShape {
  requestId: string;
  task: string;
  specRef: string;
  acceptanceCommand: string;
  repoRoot: string;
  baseRef: string;
  baseCommit: string;
  owner: string;
  /** How the owner started it (runtime.md §11.7); recorded in the start's history entry. */
  channel?: 'cli' | 'web';
  host: string;
  machineId: string;
}

/** Refuses when the request already has a run that is not terminal. */
function requireNoActiveRun(root: string, requestId: string): void {
  for (const id of runIdsOf(root)) {
    const { workflow } = readWorkflow(root, id);
    if (workflow.request_id === requestId && !isTerminal(workflow.status)) {
      fail(
        'refused',
        `start: request ${requestId} already has run ${id} ` +
          `(${workflow.status}); finish, cancel or fail it first`,
      );
    }
  }
}

/** The first record of a run. */
export function newWorkflow(runId: string, r: StartRequest, now: Date): Workflow {
  const at = isoOf(now);
  const wf: Workflow = {
    run_id: runId,
    request_id: r.requestId,
    task: r.task,
    owner: r.owner,
    host: r.host,
    machine_id: r.machineId,
    runtime_release: batonVersion(),
    schema_version: SCHEMA_VERSION,
    repo_root: r.repoRoot,
    base_ref: r.baseRef,
    base_commit: r.baseCommit,
    current_commit: r.baseCommit,
    status: 'ACTIVE',
    phase: 'IDLE',
    active_stage: null,
    pause_requested: false,
    review_cycle: 1,
    max_review_cycles: r.maxCycles,
    blocking_findings: 0,
    acceptance_command: r.acceptanceCommand,
    acceptance_timeout_s: r.acceptanceTimeoutS,
    spec_ref: r.specRef,
    stage_order: r.stages,
    last_completed_stage: null,
    last_checkpoint_at: null,
    last_checkpoint_commit: null,
    last_acceptance_at: null,
    last_acceptance_ok: null,
    last_resolution_at: null,
    retry_policy: { max_attempts: r.retryAttempts, base_delay_ms: r.retryBaseMs },
    provider_attempts: 0,
    block_reason: null,
    artifacts: [],
    findings: [],
    roles: r.roles,
    observations: { panes: {}, updated_at: null },
    history: [],
    created_at: at,
    updated_at: at,
  };
  return logged(wf, now, {
    actor: r.owner,
    action: 'start',
    from: '',
    detail:
      `request ${r.requestId}, base ${r.baseCommit.slice(0, 12)}; ` +
      `channel=${r.channel ?? 'cli'}`,
  });
}

/** Creates the run (under the request's lock); returns its record. */
export async function startRun(root: string, r: StartRequest, now = new Date()): Promise<Workflow> {
  if (!REQUEST_ID_PATTERN.test(r.requestId))
    fail(
      'usage',
      `start: malformed request id '${printable(r.requestId)}': ` +
        `letters, digits, '.', '_' and '-', at most 64`,
    );
  return withRequestLock(root, r.requestId, () => {
    requireNoActiveRun(root, r.requestId);
    const runId = `run-${tsidOf(now)}-${randomHex(3)}`;
    const paths = runPathsOf(root, runId);
    mkdirSynced(runsDirOf(root));
    makeFolder(paths.dir, folderModeIn(runsDirOf(root)));
    makeArtifactsFolder(paths);
    fsyncDir(paths.dir);
    fsyncDir(runsDirOf(root));
    crashPoint('run:start-folder-made');
    const wf = newWorkflow(runId, r, now);
    writeWorkflow(paths.workflow, wf);
    excludeSwarmDir(root);
    return wf;
  });
}
