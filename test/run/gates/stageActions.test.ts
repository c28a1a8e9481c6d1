// lib/run/stageActions: the controller's stage transitions as pure changes of the record:
// stage-start, checkpoint (its checks, pause honoured, next phase), provider failures with
// their backoff and exhaustion, and block. Every refusal's message, every field set, the
// history entry, and a valid result.
import { recordProblems } from '../../../lib/fsx/records.js';
import assert from 'node:assert/strict';
import { CommandFailure } from '../../../lib/fsx/commandFailure.js';
import { type ActionOutcome } from '../../../lib/run/record/runMutation.js';
import { WORKFLOW } from '../../../lib/run/record/runStore.js';
import {
  blockOnRequest,
  checkpointStage,
  nextStageOf,
  providerFailed,
  providerSucceeded,
  requireCheckpointable,
  startStage,
} from '../../../lib/run/gates/stageActions.js';
import { type Artifact, type Workflow } from '../../../lib/run/record/workflow.js';
import { sampleWorkflow } from '../sampleWorkflow.js';

const ID = 'run-20260102T030405Z-a1b2c3';
const NOW = new Date('2026-01-05T06:07:08.009Z');
const AT = NOW.toISOString();
const BASE = 'b'.repeat(40);
const HEAD = 'c'.repeat(40);
const WORK: Artifact = {
  path: 'artifacts/work.md',
  sha256: 'd'.repeat(64),
  type: 'work',
  producer: 'controller',
};

function refused(message: string): (err: unknown) => boolean {
  return (err: unknown) => {
    assert.ok(err instanceof CommandFailure, `not a CommandFailure: ${String(err)}`);
    assert.deepEqual([err.kind, err.message], ['refused', message]);
    return true;
  };
}

function written(outcome: ActionOutcome): { wf: Workflow; entry: Workflow['history'][number] } {
  const wf = outcome.workflow;
  assert.ok(wf, 'the outcome writes a record');
  assert.deepEqual(recordProblems(WORKFLOW, wf), [], 'a valid record');
  assert.equal(wf.updated_at, AT);
  return { wf, entry: wf.history.at(-1)! };
}

function changedFields(before: Workflow, after: Workflow): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(after) as (keyof Workflow)[]) {
    if (
      key !== 'history' &&
      key !== 'updated_at' &&
      JSON.stringify(before[key]) !== JSON.stringify(after[key])
    )
      out[key] = after[key];
  }
  return out;
}

// A three-stage run (created 2026-01-02T03:04:05Z), ACTIVE.
const idle = sampleWorkflow('/repo', BASE, {
  status: 'ACTIVE',
  stage_order: ['design', 'build', 'docs'],
});
const accepted = { last_acceptance_at: '2026-01-04T00:00:00.000Z', last_acceptance_ok: true };
const inStage = (stage: string, more: Partial<Workflow> = {}): Workflow => ({
  ...idle,
  phase: 'STAGE_ACTIVE',
  active_stage: stage,
  ...accepted,
  ...more,
});

describe('lib/run/gates/stageActions', () => {
  describe('nextStageOf', () => {
    it('the first stage before any is done, then the one after the last completed, then none', () => {
      assert.equal(nextStageOf(idle), 'design');
      assert.equal(nextStageOf({ ...idle, last_completed_stage: 'design' }), 'build');
      assert.equal(nextStageOf({ ...idle, last_completed_stage: 'build' }), 'docs');
      assert.equal(nextStageOf({ ...idle, last_completed_stage: 'docs' }), undefined);
    });
  });

  describe('stage-start', () => {
    it('ACTIVE/IDLE → STAGE_ACTIVE with the next stage active', () => {
      const { wf, entry } = written(startStage(idle, 'design', 'controller', NOW));
      assert.deepEqual(changedFields(idle, wf), { phase: 'STAGE_ACTIVE', active_stage: 'design' });
      assert.deepEqual(entry, {
        at: AT,
        actor: 'controller',
        action: 'stage-start',
        from: 'ACTIVE/IDLE',
        to: 'ACTIVE/STAGE_ACTIVE',
        detail: 'design',
      });
    });

    it('refuses any stage but the next one', () => {
      assert.throws(
        () => startStage(idle, 'build', 'controller', NOW),
        refused(`stage-start: the next stage of run ${ID} is design, not build`),
      );
      const afterDesign = { ...idle, last_completed_stage: 'design' };
      assert.throws(
        () => startStage(afterDesign, 'design', 'controller', NOW),
        refused(`stage-start: the next stage of run ${ID} is build, not design`),
      );
      assert.throws(
        () => startStage({ ...idle, last_completed_stage: 'docs' }, 'docs', 'controller', NOW),
        refused(
          `stage-start: the next stage of run ${ID} is (none: every stage is done), not docs`,
        ),
      );
    });

    it('refuses outside ACTIVE/IDLE: a stage already active, a pause request, a paused or terminal run', () => {
      assert.throws(
        () => startStage(inStage('design'), 'build', 'controller', NOW),
        refused(`stage-start: run ${ID} is in phase STAGE_ACTIVE; stage-start needs IDLE`),
      );
      assert.throws(
        () =>
          startStage(
            { ...idle, phase: 'PAUSE_REQUESTED', pause_requested: true },
            'design',
            'controller',
            NOW,
          ),
        refused(`stage-start: run ${ID} is in phase PAUSE_REQUESTED; stage-start needs IDLE`),
      );
      assert.throws(
        () => startStage({ ...idle, status: 'PAUSED' }, 'design', 'controller', NOW),
        refused(`stage-start: run ${ID} is PAUSED; stage-start needs ACTIVE`),
      );
      assert.throws(
        () => startStage({ ...idle, status: 'FAILED' }, 'design', 'controller', NOW),
        refused(`stage-start: run ${ID} is FAILED, a terminal status: nothing changes any more`),
      );
    });
  });

  describe('checkpoint: its checks', () => {
    it('passes a stage with a passing acceptance newer than the start and one artifact', () => {
      requireCheckpointable(inStage('design'), 'design', 1);
    });

    it('refuses outside ACTIVE with a stage active (or a pause requested)', () => {
      assert.throws(
        () => requireCheckpointable(idle, 'design', 1),
        refused(
          `checkpoint: run ${ID} is in phase IDLE; checkpoint needs STAGE_ACTIVE or PAUSE_REQUESTED`,
        ),
      );
      assert.throws(
        () =>
          requireCheckpointable(
            { ...inStage('design'), status: 'BLOCKED', block_reason: 'x' },
            'design',
            1,
          ),
        refused(`checkpoint: run ${ID} is BLOCKED; checkpoint needs ACTIVE`),
      );
    });

    it('refuses another stage than the active one', () => {
      assert.throws(
        () => requireCheckpointable(inStage('design'), 'build', 1),
        refused(`checkpoint: the active stage of run ${ID} is design, not build`),
      );
      assert.throws(
        () =>
          requireCheckpointable(
            { ...idle, phase: 'PAUSE_REQUESTED', pause_requested: true, ...accepted },
            'design',
            1,
          ),
        refused(`checkpoint: the active stage of run ${ID} is (none), not design`),
      );
    });

    it('refuses without a passing acceptance', () => {
      for (const more of [
        { last_acceptance_ok: false },
        { last_acceptance_ok: null, last_acceptance_at: null },
        { last_acceptance_ok: true, last_acceptance_at: null },
      ]) {
        assert.throws(
          () => requireCheckpointable(inStage('design', more), 'design', 1),
          refused(`checkpoint: run ${ID} has no passing acceptance; run acceptance first`),
        );
      }
    });

    it('refuses an acceptance that ran before the start, or before the previous checkpoint', () => {
      assert.throws(
        () =>
          requireCheckpointable(
            inStage('design', { last_acceptance_at: '2026-01-01T00:00:00.000Z' }),
            'design',
            1,
          ),
        refused(
          'checkpoint: the last acceptance (2026-01-01T00:00:00.000Z) is stale: it ran before the start (2026-01-02T03:04:05Z)',
        ),
      );
      const second = inStage('build', {
        last_completed_stage: 'design',
        last_checkpoint_at: '2026-01-04T00:00:00.000Z',
        last_checkpoint_commit: HEAD,
      });
      assert.throws(
        () => requireCheckpointable(second, 'build', 1),
        refused(
          'checkpoint: the last acceptance (2026-01-04T00:00:00.000Z) is stale: it ran before the previous checkpoint (2026-01-04T00:00:00.000Z)',
        ),
      );
      requireCheckpointable(
        { ...second, last_acceptance_at: '2026-01-04T00:00:00.001Z' },
        'build',
        1,
      );
    });

    it('refuses a checkpoint without artifacts', () => {
      assert.throws(
        () => requireCheckpointable(inStage('design'), 'design', 0),
        refused('checkpoint: name at least one artifact (--artifact PATH:TYPE)'),
      );
    });
  });

  describe('checkpoint', () => {
    it('records the stage done at HEAD with its artifacts, clears the active stage; IDLE while stages remain', () => {
      const from = inStage('design');
      const { wf, entry } = written(
        checkpointStage(from, 'design', HEAD, [WORK], [], 'controller', NOW),
      );
      assert.deepEqual(changedFields(from, wf), {
        current_commit: HEAD,
        last_checkpoint_commit: HEAD,
        active_stage: null,
        last_completed_stage: 'design',
        last_checkpoint_at: AT,
        artifacts: [WORK],
        phase: 'IDLE',
      });
      assert.deepEqual(entry, {
        at: AT,
        actor: 'controller',
        action: 'checkpoint',
        from: 'ACTIVE/STAGE_ACTIVE',
        to: 'ACTIVE/IDLE',
        detail: 'design at cccccccccccc',
      });
    });

    it('after the last stage: REVIEW_PENDING', () => {
      const from = inStage('docs', {
        last_completed_stage: 'build',
        last_checkpoint_at: '2026-01-03T00:00:00.000Z',
        last_checkpoint_commit: BASE,
      });
      const { wf, entry } = written(
        checkpointStage(from, 'docs', HEAD, [WORK], [], 'controller', NOW),
      );
      assert.deepEqual(
        [wf.status, wf.phase, wf.last_completed_stage],
        ['ACTIVE', 'REVIEW_PENDING', 'docs'],
      );
      assert.equal(entry.to, 'ACTIVE/REVIEW_PENDING');
    });

    it('honours a pause request: PAUSED in the next phase, the request cleared', () => {
      const from = inStage('design', { phase: 'PAUSE_REQUESTED', pause_requested: true });
      const { wf, entry } = written(
        checkpointStage(from, 'design', HEAD, [WORK], [], 'controller', NOW),
      );
      assert.deepEqual(
        [wf.status, wf.phase, wf.pause_requested, wf.active_stage],
        ['PAUSED', 'IDLE', false, null],
      );
      assert.deepEqual(
        [entry.from, entry.to, entry.detail],
        ['ACTIVE/PAUSE_REQUESTED', 'PAUSED/IDLE', 'design at cccccccccccc; paused as requested'],
      );
      const last = inStage('docs', {
        phase: 'PAUSE_REQUESTED',
        pause_requested: true,
        last_completed_stage: 'build',
      });
      const { wf: atReview } = written(
        checkpointStage(last, 'docs', HEAD, [WORK], [], 'controller', NOW),
      );
      assert.deepEqual([atReview.status, atReview.phase], ['PAUSED', 'REVIEW_PENDING']);
    });

    it('a changed or missing artifact blocks the run: the stage stays active, nothing is added', () => {
      const from = inStage('design', { artifacts: [WORK] });
      const outcome = checkpointStage(
        from,
        'design',
        HEAD,
        [{ ...WORK, path: 'artifacts/new.md' }],
        ['artifacts/work.md (missing)'],
        'controller',
        NOW,
      );
      const { wf, entry } = written(outcome);
      assert.equal(outcome.blocked, 'artifact changed or missing: artifacts/work.md (missing)');
      assert.deepEqual(changedFields(from, wf), {
        status: 'BLOCKED',
        block_reason: outcome.blocked,
      });
      assert.deepEqual(
        [entry.action, entry.from, entry.to],
        ['checkpoint', 'ACTIVE/STAGE_ACTIVE', 'BLOCKED/STAGE_ACTIVE'],
      );
    });

    it('runs the checks first: a refusal, never a block, when the state is wrong', () => {
      assert.throws(
        () => checkpointStage(idle, 'design', HEAD, [WORK], ['x'], 'controller', NOW),
        refused(
          `checkpoint: run ${ID} is in phase IDLE; checkpoint needs STAGE_ACTIVE or PAUSE_REQUESTED`,
        ),
      );
    });
  });

  describe('provider', () => {
    const failure: Artifact = {
      path: 'artifacts/design-c1-provider-failure.json',
      sha256: 'f'.repeat(64),
      type: 'provider-failure',
      producer: 'controller',
    };
    const evidenceNeverAsked = () => assert.fail('no evidence before the attempts are exhausted');

    it('a failure counts an attempt and reports the backoff, base × 2^(n−1)', () => {
      let wf = { ...inStage('design'), retry_policy: { max_attempts: 4, base_delay_ms: 250 } };
      const waits: unknown[] = [];
      for (let n = 1; n <= 3; n++) {
        const outcome = providerFailed(
          wf,
          'claude',
          'rate limited',
          'controller',
          NOW,
          evidenceNeverAsked,
        );
        const { wf: next, entry } = written(outcome);
        assert.deepEqual(changedFields(wf, next), { provider_attempts: n });
        assert.equal(outcome.blocked, undefined);
        waits.push(outcome.extra?.retry_in_ms);
        assert.deepEqual(entry, {
          at: AT,
          actor: 'controller',
          action: 'provider',
          from: 'ACTIVE/STAGE_ACTIVE',
          to: 'ACTIVE/STAGE_ACTIVE',
          detail: `claude failed (attempt ${n} of 4): rate limited; retry in ${250 * 2 ** (n - 1)} ms`,
        });
        wf = next;
      }
      assert.deepEqual(waits, [250, 500, 1000]);
    });

    it('the last attempt is a blocking outcome with the provider-failure evidence, the phase kept', () => {
      const from = { ...inStage('design'), provider_attempts: 2 };
      let asked = 0;
      const outcome = providerFailed(from, 'claude', 'rate limited', 'controller', NOW, () => {
        asked++;
        return failure;
      });
      const { wf, entry } = written(outcome);
      assert.equal(asked, 1);
      assert.equal(outcome.blocked, 'provider claude failed 3 time(s): rate limited');
      assert.deepEqual(changedFields(from, wf), {
        status: 'BLOCKED',
        block_reason: outcome.blocked,
        provider_attempts: 3,
        artifacts: [failure],
      });
      assert.deepEqual(
        [entry.from, entry.to, entry.detail],
        ['ACTIVE/STAGE_ACTIVE', 'BLOCKED/STAGE_ACTIVE', `blocked: ${outcome.blocked}`],
      );
      assert.equal(outcome.extra, undefined, 'no backoff once blocked');
    });

    it('one allowed attempt blocks at the first failure', () => {
      const outcome = providerFailed(
        { ...idle, retry_policy: { max_attempts: 1, base_delay_ms: 10 } },
        'p',
        'down',
        'controller',
        NOW,
        () => failure,
      );
      assert.equal(outcome.blocked, 'provider p failed 1 time(s): down');
    });

    it('a success sets the attempts back to 0', () => {
      const from = { ...inStage('design'), provider_attempts: 2 };
      const { wf, entry } = written(providerSucceeded(from, 'claude', 'controller', NOW));
      assert.deepEqual(changedFields(from, wf), { provider_attempts: 0 });
      assert.deepEqual(
        [entry.action, entry.from, entry.to, entry.detail],
        ['provider', 'ACTIVE/STAGE_ACTIVE', 'ACTIVE/STAGE_ACTIVE', 'claude succeeded'],
      );
    });

    it('refuses a run that is not ACTIVE', () => {
      const paused = { ...idle, status: 'PAUSED' as const };
      assert.throws(
        () => providerFailed(paused, 'p', 'r', 'c', NOW, evidenceNeverAsked),
        refused(`provider: run ${ID} is PAUSED; provider needs ACTIVE`),
      );
      assert.throws(
        () => providerSucceeded(paused, 'p', 'c', NOW),
        refused(`provider: run ${ID} is PAUSED; provider needs ACTIVE`),
      );
    });
  });

  describe('block', () => {
    it('ACTIVE → BLOCKED with the reason (asked for: not a blocking outcome), the phase kept', () => {
      const from = inStage('design');
      const outcome = blockOnRequest(from, 'waiting for a key', 'controller', NOW);
      const { wf, entry } = written(outcome);
      assert.equal(outcome.blocked, undefined);
      assert.deepEqual(changedFields(from, wf), {
        status: 'BLOCKED',
        block_reason: 'waiting for a key',
      });
      assert.deepEqual(entry, {
        at: AT,
        actor: 'controller',
        action: 'block',
        from: 'ACTIVE/STAGE_ACTIVE',
        to: 'BLOCKED/STAGE_ACTIVE',
        detail: 'waiting for a key',
      });
    });

    it('refuses a run that is not ACTIVE', () => {
      assert.throws(
        () => blockOnRequest({ ...idle, status: 'BLOCKED', block_reason: 'x' }, 'again', 'c', NOW),
        refused(`block: run ${ID} is BLOCKED; block needs ACTIVE`),
      );
      assert.throws(
        () => blockOnRequest({ ...idle, status: 'WAITING_FOR_HUMAN_APPROVAL' }, 'x', 'c', NOW),
        refused(`block: run ${ID} is WAITING_FOR_HUMAN_APPROVAL; block needs ACTIVE`),
      );
    });
  });
});
