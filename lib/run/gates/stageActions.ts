// The controller's stage actions (docs/runtime.md §4): stage-start, checkpoint, provider
// and block. Pure changes of the record; the caller holds the run's lock, checks the
// lease token, registers artifact files and writes (lib/run/record/runMutation.ts). A refusal
// throws before anything changes; a failed gate returns a blocking outcome.
import { fail } from '../../fsx/commandFailure.js';
import {
  type ActionOutcome,
  blockOnBadArtifacts,
  blockRun,
  logged,
  requireState,
  stateOf,
} from '../record/runMutation.js';
import { type Artifact, type Workflow } from '../record/workflow.js';
import { isoOf } from '../../fsx/timestamps.js';

/**
 * The stage that comes next: the first after the last completed one (undefined when none remains).
 */
export function nextStageOf(wf: Workflow): string | undefined {
  return wf.last_completed_stage === null
    ? wf.stage_order[0]
    : wf.stage_order[wf.stage_order.indexOf(wf.last_completed_stage) + 1];
}

/** stage-start: ACTIVE/IDLE → STAGE_ACTIVE for the next stage. */
export function startStage(wf: Workflow, stage: string, actor: string, now: Date): ActionOutcome {
  requireState(wf, 'stage-start', ['ACTIVE'], ['IDLE']);
  const next = nextStageOf(wf);
  if (stage !== next)
    fail(
      'refused',
      `stage-start: the next stage of run ${wf.run_id} is ` +
        `${next ?? '(none: every stage is done)'}, not ${stage}`,
    );
  return {
    workflow: logged({ ...wf, phase: 'STAGE_ACTIVE', active_stage: stage }, now, {
      actor,
      action: 'stage-start',
      from: stateOf(wf),
      detail: stage,
    }),
  };
}

/**
 * The checks of checkpoint that need no file: state, stage, a fresh passing acceptance, at least
 * one artifact.
 */
export function requireCheckpointable(wf: Workflow, stage: string, artifactCount: number): void {
  requireState(wf, 'checkpoint', ['ACTIVE'], ['STAGE_ACTIVE', 'PAUSE_REQUESTED']);
  if (wf.active_stage !== stage)
    fail(
      'refused',
      `checkpoint: the active stage of run ${wf.run_id} is ` +
        `${wf.active_stage ?? '(none)'}, not ${stage}`,
    );
  const since = wf.last_checkpoint_at ?? wf.created_at;
  if (wf.last_acceptance_ok !== true || wf.last_acceptance_at === null)
    fail('refused', `checkpoint: run ${wf.run_id} has no passing acceptance; run acceptance first`);
  if (Date.parse(wf.last_acceptance_at) <= Date.parse(since))
    fail(
      'refused',
      `checkpoint: the last acceptance (${wf.last_acceptance_at}) ` +
        `is stale: it ran before ` +
        `${wf.last_checkpoint_at === null ? 'the start' : 'the previous checkpoint'} ` +
        `(${since})`,
    );
  if (artifactCount < 1)
    fail('refused', 'checkpoint: name at least one artifact (--artifact PATH:TYPE)');
}

/**
 * checkpoint: the stage is done at `head`; PAUSED when a pause was requested; next phase IDLE or
 * REVIEW_PENDING.
 */
export function checkpointStage(
  wf: Workflow,
  stage: string,
  head: string,
  added: Artifact[],
  artifactsBad: string[],
  actor: string,
  now: Date,
  named = added.length,
): ActionOutcome {
  requireCheckpointable(wf, stage, named);
  const badEvidence = blockOnBadArtifacts(wf, actor, 'checkpoint', artifactsBad, now);
  if (badEvidence) return badEvidence;
  const done: Workflow = {
    ...wf,
    current_commit: head,
    last_checkpoint_commit: head,
    active_stage: null,
    last_completed_stage: stage,
    last_checkpoint_at: isoOf(now),
    artifacts: [...wf.artifacts, ...added],
  };
  const phase = nextStageOf(done) === undefined ? 'REVIEW_PENDING' : 'IDLE';
  const next: Workflow = wf.pause_requested
    ? { ...done, status: 'PAUSED', pause_requested: false, phase }
    : { ...done, phase };
  return {
    workflow: logged(next, now, {
      actor,
      action: 'checkpoint',
      from: stateOf(wf),
      detail:
        `${stage} at ` + `${head.slice(0, 12)}${wf.pause_requested ? '; paused as requested' : ''}`,
    }),
  };
}

/**
 * provider --failed: one more attempt, with the backoff to wait, or a blocking outcome when
 * attempts are exhausted (evidence given by the caller).
 */
export function providerFailed(
  wf: Workflow,
  name: string,
  reason: string,
  actor: string,
  now: Date,
  evidence: () => Artifact,
): ActionOutcome {
  requireState(wf, 'provider', ['ACTIVE']);
  const n = wf.provider_attempts + 1;
  const { max_attempts: max, base_delay_ms: base } = wf.retry_policy;
  if (n >= max) {
    return blockRun(
      { ...wf, provider_attempts: n },
      actor,
      'provider',
      `provider ${name} failed ${n} time(s): ${reason}`,
      now,
      [evidence()],
    );
  }
  const retryInMs = base * 2 ** (n - 1);
  const next = logged({ ...wf, provider_attempts: n }, now, {
    actor,
    action: 'provider',
    from: stateOf(wf),
    detail: `${name} failed (attempt ${n} of ${max}): ${reason}; retry in ${retryInMs} ms`,
  });
  return { workflow: next, extra: { retry_in_ms: retryInMs } };
}

/** provider --succeeded: attempts back to 0. */
export function providerSucceeded(
  wf: Workflow,
  name: string,
  actor: string,
  now: Date,
): ActionOutcome {
  requireState(wf, 'provider', ['ACTIVE']);
  return {
    workflow: logged({ ...wf, provider_attempts: 0 }, now, {
      actor,
      action: 'provider',
      from: stateOf(wf),
      detail: `${name} succeeded`,
    }),
  };
}

/** block: ACTIVE → BLOCKED, asked for (exit 0). */
export function blockOnRequest(
  wf: Workflow,
  reason: string,
  actor: string,
  now: Date,
): ActionOutcome {
  requireState(wf, 'block', ['ACTIVE']);
  const next: Workflow = { ...wf, status: 'BLOCKED', block_reason: reason };
  return {
    workflow: logged(next, now, { actor, action: 'block', from: stateOf(wf), detail: reason }),
  };
}
