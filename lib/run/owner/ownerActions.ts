// The owner's actions on a run (docs/runtime.md §4): pause, resume, retry, approve,
// request-changes, cancel and fail. Each is a pure change of the record (the caller locks,
// reads, writes and settles the lease, lib/run/record/runMutation.ts); a refusal throws before
// anything changes. Only the run's owner may take them, and nothing here infers approval
// from silence or from a pane's output.
import { fail } from '../../fsx/commandFailure.js';
import {
  blockOnBadArtifacts,
  logged,
  requireNotTerminal,
  requireState,
  stateOf,
  type ActionOutcome,
} from '../record/runMutation.js';
import { type Workflow } from '../record/workflow.js';

/** Refuses anyone but the run's owner. */
export function requireOwner(wf: Workflow, action: string, user: string): void {
  if (wf.owner !== user)
    fail('refused', `${action}: run ${wf.run_id} belongs to ${wf.owner}; you are ${user}`);
}

/**
 * Pause: PAUSED at once when no stage is active, else a pause request honoured at the next
 * checkpoint. (runtime.md §4 pauses at once only after a checkpoint; a run with no stage
 * active and no checkpoint yet, just started or sent back by request-changes, would then
 * keep a request no checkpoint can ever honour: nothing is in flight, so it pauses at once.)
 */
export function pauseRun(wf: Workflow, user: string, now: Date): ActionOutcome {
  requireOwner(wf, 'pause', user);
  requireState(wf, 'pause', ['ACTIVE']);
  if (wf.pause_requested)
    fail(
      'refused',
      `pause: run ${wf.run_id} already has a pause request; it pauses at the next checkpoint`,
    );
  const from = stateOf(wf);
  if (wf.active_stage === null) {
    return {
      workflow: logged({ ...wf, status: 'PAUSED' }, now, {
        actor: user,
        action: 'pause',
        from,
        detail: 'paused at once',
      }),
    };
  }
  return {
    workflow: logged({ ...wf, pause_requested: true, phase: 'PAUSE_REQUESTED' }, now, {
      actor: user,
      action: 'pause',
      from,
      detail: 'pause requested: honoured at the next checkpoint',
    }),
  };
}

/**
 * Resume: PAUSED → ACTIVE in the same phase, once every check of §7 passed (`problems`
 * empty; the owner is one of them, verifyResume.ts). A refusal names every failed check, one
 * line each, so the owner fixes them all in one go.
 */
export function resumeRun(
  wf: Workflow,
  user: string,
  problems: string[],
  now: Date,
): ActionOutcome {
  requireState(wf, 'resume', ['PAUSED']);
  if (problems.length > 0) fail('refused', ...problems.map((p) => `resume: ${p}`));
  return {
    workflow: logged({ ...wf, status: 'ACTIVE' }, now, {
      actor: user,
      action: 'resume',
      from: stateOf(wf),
    }),
  };
}

/**
 * Retry: BLOCKED → ACTIVE in the same phase (back to the approval gate when approve blocked it); a
 * run blocked by the cycle limit needs more cycles.
 */
export function retryRun(
  wf: Workflow,
  user: string,
  addCycles: number,
  problems: string[],
  now: Date,
): ActionOutcome {
  requireState(wf, 'retry', ['BLOCKED']);
  const atLimit =
    wf.phase === 'FINDINGS_PENDING' &&
    wf.blocking_findings > 0 &&
    wf.review_cycle >= wf.max_review_cycles;
  const all =
    atLimit && addCycles < 1
      ? [
          ...problems,
          `run ${wf.run_id} reached its review cycle limit ` +
            `(${wf.max_review_cycles}); retry --add-cycles N`,
        ]
      : problems;
  if (all.length > 0) fail('refused', ...all.map((p) => `retry: ${p}`));
  const detail =
    addCycles > 0
      ? `${addCycles} review cycle(s) added: limit ${wf.max_review_cycles + addCycles}`
      : `was blocked: ${wf.block_reason ?? ''}`;
  const status = wf.phase === 'APPROVAL_PENDING' ? 'WAITING_FOR_HUMAN_APPROVAL' : 'ACTIVE';
  const next: Workflow = {
    ...wf,
    status,
    block_reason: null,
    provider_attempts: 0,
    max_review_cycles: wf.max_review_cycles + addCycles,
  };
  return {
    workflow: logged(next, now, { actor: user, action: 'retry', from: stateOf(wf), detail }),
  };
}

/**
 * Approve: WAITING_FOR_HUMAN_APPROVAL → COMPLETED, only with review evidence, nothing blocking,
 * acceptance ok and every digest intact.
 */
export function approveRun(
  wf: Workflow,
  user: string,
  artifactsBad: string[],
  now: Date,
): ActionOutcome {
  requireOwner(wf, 'approve', user);
  requireState(wf, 'approve', ['WAITING_FOR_HUMAN_APPROVAL']);
  if (!wf.artifacts.some((a) => a.type === 'review'))
    fail('refused', `approve: run ${wf.run_id} has no review evidence`);
  if (wf.blocking_findings > 0)
    fail('refused', `approve: run ${wf.run_id} has ${wf.blocking_findings} blocking finding(s)`);
  if (wf.last_acceptance_ok !== true)
    fail('refused', `approve: run ${wf.run_id}'s last acceptance did not pass`);
  const badEvidence = blockOnBadArtifacts(wf, user, 'approve', artifactsBad, now);
  if (badEvidence) return badEvidence;
  return {
    workflow: logged({ ...wf, status: 'COMPLETED', phase: 'DONE' }, now, {
      actor: user,
      action: 'approve',
      from: stateOf(wf),
    }),
  };
}

/**
 * Request changes: back to the first stage in the same run, next cycle; the notes become an
 * artifact (given by the caller).
 */
export function requestChanges(
  wf: Workflow,
  user: string,
  notes: { path: string; sha256: string },
  now: Date,
): ActionOutcome {
  requireOwner(wf, 'request-changes', user);
  requireState(wf, 'request-changes', ['WAITING_FOR_HUMAN_APPROVAL']);
  const next: Workflow = {
    ...wf,
    status: 'ACTIVE',
    phase: 'IDLE',
    active_stage: null,
    review_cycle: wf.review_cycle + 1,
    max_review_cycles: Math.max(wf.max_review_cycles, wf.review_cycle + 1),
    last_checkpoint_at: null,
    last_completed_stage: null,
    last_acceptance_at: null,
    last_acceptance_ok: null,
    artifacts: [
      ...wf.artifacts,
      { path: notes.path, sha256: notes.sha256, type: 'change-request', producer: user },
    ],
  };
  return {
    workflow: logged(next, now, {
      actor: user,
      action: 'request-changes',
      from: stateOf(wf),
      detail: `notes ${notes.path}`,
    }),
  };
}

/** Cancel or fail: a terminal status, with the reason. */
export function endRun(
  wf: Workflow,
  user: string,
  how: 'cancel' | 'fail',
  reason: string,
  now: Date,
): ActionOutcome {
  requireOwner(wf, how, user);
  requireNotTerminal(wf, how);
  const status = how === 'cancel' ? 'CANCELLED' : 'FAILED';
  return {
    workflow: logged(
      {
        ...wf,
        status,
        pause_requested: false,
        phase: wf.phase === 'PAUSE_REQUESTED' ? 'IDLE' : wf.phase,
      },
      now,
      { actor: user, action: how, from: stateOf(wf), detail: reason },
    ),
  };
}
