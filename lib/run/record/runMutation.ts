// The one way a run changes (docs/runtime.md §4): a locked read-modify-write.
//
// Concurrency contract: the run's lock is held from the read to the end of the write, so
// two actions on one run are serialized and each sees the other's result. Refusals throw
// before anything is written: the record stays byte-identical (terminal runs included).
//
// Crash contract: the record is written first (atomically, folder fsync'd); the lease of a
// run that entered PAUSED, BLOCKED or a terminal status is removed after it. A kill
// between the two leaves a lease file that no longer counts (leaseIsVoid) and that the
// next action on the run removes.
import { fail } from '../../fsx/commandFailure.js';
import { type RunPaths } from '../../project/layout.js';
import { readWorkflow, withRunLock, writeWorkflow } from './runStore.js';
import { isTerminal, type RunStatus, type Workflow } from './workflow.js';
import { isoOf } from '../../fsx/timestamps.js';

/**
 * What an action did: the record to write (undefined: nothing changes), and the reason when its
 * gate failed and it blocked the run.
 */
export interface ActionOutcome {
  workflow?: Workflow;
  blocked?: string;
  /** Fields added to the printed status (e.g. `retry_in_ms`, `lease.token`). */
  extra?: Record<string, unknown>;
}

/** Statuses in which a run holds no lease. */
export function leaseIsVoid(status: RunStatus): boolean {
  return status === 'PAUSED' || status === 'BLOCKED' || isTerminal(status);
}

/** One history entry appended, `updated_at` set. */
export function logged(
  wf: Workflow,
  now: Date,
  entry: { actor: string; action: string; from?: string; detail?: string },
): Workflow {
  const at = isoOf(now);
  const to = `${wf.status}/${wf.phase}`;
  return {
    ...wf,
    updated_at: at,
    history: [
      ...wf.history,
      {
        at,
        actor: entry.actor,
        action: entry.action,
        from: entry.from ?? to,
        to,
        detail: entry.detail ?? '',
      },
    ],
  };
}

/** `status/phase`, as history records a state. */
export function stateOf(wf: Workflow): string {
  return `${wf.status}/${wf.phase}`;
}

/**
 * A blocking outcome: the run is BLOCKED with `reason` (the phase kept for retry), evidence
 * registered, one history entry.
 */
export function blockRun(
  wf: Workflow,
  actor: string,
  action: string,
  reason: string,
  now: Date,
  evidence: Workflow['artifacts'] = [],
  from = stateOf(wf),
): ActionOutcome {
  const next: Workflow = {
    ...wf,
    status: 'BLOCKED',
    block_reason: reason,
    artifacts: [...wf.artifacts, ...evidence],
  };
  return {
    workflow: logged(next, now, { actor, action, from, detail: `blocked: ${reason}` }),
    blocked: reason,
  };
}

/** The blocking outcome of a gate whose evidence changed or went missing, else undefined. */
export function blockOnBadArtifacts(
  wf: Workflow,
  actor: string,
  action: string,
  artifactsBad: string[],
  now: Date,
): ActionOutcome | undefined {
  if (artifactsBad.length === 0) return undefined;
  return blockRun(wf, actor, action, `artifact changed or missing: ${artifactsBad[0]}`, now);
}

/** Refuses any action on a terminal run. */
export function requireNotTerminal(wf: Workflow, action: string): void {
  if (isTerminal(wf.status))
    fail(
      'refused',
      `${action}: run ${wf.run_id} is ${wf.status}, a terminal status: nothing changes any more`,
    );
}

/** Refuses unless the run is in one of `statuses` (and, when given, one of `phases`). */
export function requireState(
  wf: Workflow,
  action: string,
  statuses: RunStatus[],
  phases?: Workflow['phase'][],
): void {
  requireNotTerminal(wf, action);
  if (!statuses.includes(wf.status))
    fail(
      'refused',
      `${action}: run ${wf.run_id} is ${wf.status}; ${action} needs ${statuses.join(' or ')}`,
    );
  if (phases && !phases.includes(wf.phase))
    fail(
      'refused',
      `${action}: run ${wf.run_id} is in phase ${wf.phase}; ${action} needs ${phases.join(' or ')}`,
    );
}

/**
 * Locks the run, reads it, applies `change`, writes what it returns and settles the lease; returns
 * the outcome with the record as now on disk.
 */
export async function mutateRun(
  root: string,
  runId: string,
  change: (wf: Workflow, paths: RunPaths) => Promise<ActionOutcome> | ActionOutcome,
  removeLease: (paths: RunPaths) => void,
): Promise<ActionOutcome & { workflow: Workflow; paths: RunPaths }> {
  return withRunLock(root, runId, async () => {
    const { workflow, paths } = readWorkflow(root, runId);
    const outcome = await change(workflow, paths);
    const next = outcome.workflow ?? workflow;
    if (outcome.workflow) writeWorkflow(paths.workflow, next);
    if (leaseIsVoid(next.status)) removeLease(paths);
    return { ...outcome, workflow: next, paths };
  });
}
