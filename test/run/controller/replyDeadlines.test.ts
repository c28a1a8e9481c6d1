// lib/run/controller/replyDeadlines: durations and --reply-timeout; on a real run and real
// mailboxes, a missed deadline recorded as a provider failure once per generation (again
// after a lost phase file: not twice), the request re-sent as the next generation after the
// backoff (same key, `generation: 2`), a reply to generation 1 rejected as stale and counted,
// the reply to generation 2 used, the last attempt's miss blocking the run with a reason
// naming the role and the fault, and --restart-dead restarting a dead agent once per run.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { mailboxOf, runPathsOf } from '../../../lib/project/layout.js';
import { ensureMailbox } from '../../../lib/queue/mailbox.js';
import { itemNamesIn } from '../../../lib/queue/names.js';
import { emptyPhase } from '../../../lib/run/controller/controllerPhase.js';
import { pumpReplies, stepActiveRun, type Driver } from '../../../lib/run/controller/driveStep.js';
import { durationMs, durationText } from '../../../lib/fsx/duration.js';
import {
  DEFAULT_REPLY_TIMEOUTS_MS,
  enforceDeadlines,
  replyTimeoutsOf,
} from '../../../lib/run/controller/replyDeadlines.js';
import { replyToRun } from '../../../lib/run/controller/runReply.js';
import { leaseAcquireStep } from '../../../lib/run/gates/controllerActions.js';
import { startStep } from '../../../lib/run/owner/ownerSteps.js';
import { type RunContext } from '../../../lib/run/record/runContext.js';
import { readWorkflow } from '../../../lib/run/record/runStore.js';
import { makeRunRepo, startOptions } from '../../support/runs.js';

describe('lib/run/controller/replyDeadlines', () => {
  it('durations: 500ms, 90s, 30m, 2h (and back); anything else is not one', () => {
    assert.equal(durationMs('500ms'), 500);
    assert.equal(durationMs('90s'), 90_000);
    assert.equal(durationMs('1.5s'), 1500);
    assert.equal(durationMs('30m'), 1_800_000);
    assert.equal(durationMs('2h'), 7_200_000);
    for (const bad of ['', '90', 's', '0s', '-1s', '1d', '1 s'])
      assert.equal(durationMs(bad), undefined, bad);
    assert.deepEqual(['2h', '30m', '90s', '1500ms'].map(durationMs).map(Number).map(durationText), [
      '2h',
      '30m',
      '90s',
      '1500ms',
    ]);
  });

  it('--reply-timeout KIND=DURATION over the defaults (work 60m, review 30m, validation 20m, resolution 60m); the first bad entry is one line', () => {
    assert.deepEqual(replyTimeoutsOf([]), DEFAULT_REPLY_TIMEOUTS_MS);
    assert.deepEqual(DEFAULT_REPLY_TIMEOUTS_MS, {
      work: 3_600_000,
      review: 1_800_000,
      validation: 1_200_000,
      resolution: 3_600_000,
    });
    assert.deepEqual(replyTimeoutsOf(['review=90s', 'work=2h']), {
      ...DEFAULT_REPLY_TIMEOUTS_MS,
      review: 90_000,
      work: 7_200_000,
    });
    assert.equal(
      replyTimeoutsOf(['answer=1m']),
      '--reply-timeout takes KIND=DURATION with KIND one of work, review, validation, ' +
        "resolution, not 'answer=1m'",
    );
    assert.equal(
      replyTimeoutsOf(['review=soon']),
      "--reply-timeout review: 'soon' is not a duration like 90s, 30m or 2h",
    );
  });

  describe('on a real run', () => {
    let root: string;
    let ctx: RunContext;
    let runId: string;
    let d: Driver;
    let said: string[];
    let t0: number;
    const at = (ms: number) => new Date(t0 + ms);
    beforeEach(async () => {
      t0 = Date.now();
      root = makeRunRepo();
      ctx = { root, cwd: root, env: {}, user: 'alice', now: () => new Date() };
      runId = (await startStep(ctx, startOptions())).status.run_id;
      const lease = await leaseAcquireStep(ctx, runId, {
        pid: process.pid,
        ttlS: 3600,
        reclaimStale: false,
      });
      said = [];
      d = {
        ctx,
        runId,
        token: (lease.status.lease as { token: string }).token,
        paths: runPathsOf(root, runId),
        phase: emptyPhase(new Date()),
        say: (line) => said.push(line),
        replyTimeouts: { ...DEFAULT_REPLY_TIMEOUTS_MS, work: 60_000 },
      };
    });
    afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

    const record = () => readWorkflow(root, runId).workflow;
    const deadlines = (ms: number) => enforceDeadlines(d, record(), at(ms));
    const providerEntries = () => record().history.filter((h) => h.action === 'provider');
    /** The controller's requests so far, as text, in the order queued. */
    const requests = () => {
      const outbox = mailboxOf(root, 'ctl').outbox;
      return itemNamesIn(outbox).map((n) => fs.readFileSync(join(outbox, n), 'utf8'));
    };
    /** Gives the worker request `i` to hold in process (as ready_for_next would). */
    function holdRequest(i: number): void {
      const box = mailboxOf(root, 'worker');
      ensureMailbox(box);
      const outbox = mailboxOf(root, 'ctl').outbox;
      const name = itemNamesIn(outbox)[i]!;
      fs.copyFileSync(join(outbox, name), join(box.inProcess, name));
    }
    /** The worker replies (SWARMFORGE_ROLE worker); its run_result delivered to the controller. */
    async function workerReplies(text: string): Promise<void> {
      fs.writeFileSync(join(root, 'evidence', 'work.md'), text);
      await replyToRun(root, root, {
        runId,
        kind: 'work',
        stage: 'implementation',
        cycle: 1,
        file: 'evidence/work.md',
        role: 'worker',
      });
      const box = mailboxOf(root, 'worker');
      ensureMailbox(mailboxOf(root, 'ctl'));
      for (const n of itemNamesIn(box.outbox))
        fs.renameSync(join(box.outbox, n), join(mailboxOf(root, 'ctl').inboxNew, n));
    }

    it('a missed deadline: one provider failure per generation, the next generation after the backoff, a reply to the old one stale, the new one used', async () => {
      fs.mkdirSync(join(root, 'evidence'));
      await stepActiveRun(d, record());
      await stepActiveRun(d, record());
      assert.equal(requests().length, 1);
      assert.match(requests()[0]!, /\ngeneration: 1\n/);
      const entry = d.phase.awaiting![0]!;
      assert.equal(entry.role, 'worker');
      assert.equal(Date.parse(entry.deadline_at) - Date.parse(entry.sent_at), 60_000);
      assert.deepEqual(await deadlines(59_000), [], 'not before the deadline');

      const missed = await deadlines(61_000);
      assert.deepEqual(missed, [
        'DEADLINE: worker did not answer work for cycle 1 within 1m (1 of 3); ' +
          're-sending in 100 ms',
      ]);
      assert.equal(providerEntries().length, 1);
      assert.match(
        providerEntries()[0]!.detail,
        /^worker failed \(attempt 1 of 3\): no work reply for cycle 1 within 1m \(request \S+ generation 1\)/,
      );
      // A controller that lost what it counted (killed before the phase was written) finds
      // the miss in the run's history and does not record it again.
      entry.attempts = 0;
      delete entry.resend_at;
      await deadlines(61_000);
      assert.equal(providerEntries().length, 1, 'the miss recorded once');
      assert.equal(entry.attempts, 1);

      await stepActiveRun(d, record());
      assert.equal(requests().length, 1, 'nothing re-sent during the backoff');
      assert.deepEqual(await deadlines(61_100), [
        `RESEND: work to worker as generation 2 (${entry.key})`,
      ]);
      await stepActiveRun(d, record());
      await stepActiveRun(d, record());
      assert.equal(requests().length, 2, 'generation 2 sent once');
      assert.match(requests()[1]!, new RegExp(`\\nkey: ${entry.key}\\n`));
      assert.match(requests()[1]!, /\ngeneration: 2\n/);

      holdRequest(0);
      await workerReplies('late work for generation 1\n');
      await pumpReplies(d, record());
      assert.match(said.at(-1)!, /REJECTED unusable \(1 of 3\): .*generation 1 .* generation 2/);
      assert.equal(d.phase.replies[entry.key], undefined);

      holdRequest(1);
      await workerReplies('the work, for generation 2\n');
      await pumpReplies(d, record());
      assert.match(said.at(-1)!, /^REPLY: work of worker/);
      assert.equal(d.phase.awaiting!.length, 0, 'nothing awaited once answered');
      assert.equal(record().provider_attempts, 0, 'the answer recorded as the provider succeeding');
    });

    /** The record with the worker observed dead. */
    const dead = () => {
      const wf = record();
      const seen = { pane: '%1', status: 'dead', seen_at: new Date().toISOString() };
      return { ...wf, observations: { ...wf.observations, panes: { worker: seen } } };
    };

    it('--restart-dead: an agent seen dead at its deadline is restarted once per run, and not at the last attempt, which blocks', async () => {
      await stepActiveRun(d, record());
      await stepActiveRun(d, record());
      const restarts: string[] = [];
      d.restartAgent = async (role) => {
        restarts.push(role);
        return 'restarted, pid 42';
      };
      await enforceDeadlines(d, dead(), at(61_000));
      assert.deepEqual(restarts, ['worker'], said.join('\n'));
      assert.ok(said.includes('agent-restarted role=worker (restarted, pid 42)'), said.join('\n'));
      assert.deepEqual(d.phase.restarted, ['worker']);
      await deadlines(71_000);
      await stepActiveRun(d, record());
      await enforceDeadlines(d, dead(), at(200_000));
      assert.deepEqual(restarts, ['worker'], 'once per role in a run');
      d.phase.restarted = [];
      await deadlines(210_000);
      await stepActiveRun(d, record());
      assert.deepEqual(await enforceDeadlines(d, dead(), at(400_000)), [
        'BLOCKED: worker did not answer work for cycle 1: 3 deadlines of 1m missed',
      ]);
      assert.deepEqual(restarts, ['worker'], 'no restart when no re-send is to come');
    });

    it('--restart-dead: a restart that fails is said, printable, and the deadline goes on', async () => {
      await stepActiveRun(d, record());
      await stepActiveRun(d, record());
      d.restartAgent = async () => {
        throw new Error('no pane \u001b[2J\nmore');
      };
      const lines = await enforceDeadlines(d, dead(), at(61_000));
      assert.ok(
        said.includes('agent-restart-failed role=worker: no pane \\u001b[2J'),
        said.join('\n'),
      );
      assert.match(
        lines[0]!,
        /^DEADLINE: worker did not answer work for cycle 1 within 1m \(1 of 3\)/,
      );
    });

    it("the last attempt's missed deadline blocks the run, naming the role and the fault", async () => {
      await stepActiveRun(d, record());
      await stepActiveRun(d, record());
      let now = 61_000;
      for (let miss = 1; miss < 3; miss++) {
        await deadlines(now);
        await deadlines((now += 10_000));
        await stepActiveRun(d, record());
        now += 61_000;
      }
      assert.equal(requests().length, 3, 'generations 1, 2, 3');
      assert.deepEqual(await deadlines(now), [
        'BLOCKED: worker did not answer work for cycle 1: 3 deadlines of 1m missed',
      ]);
      assert.equal(record().status, 'BLOCKED');
      assert.equal(
        record().block_reason,
        'worker did not answer work for cycle 1: 3 deadlines of 1m missed',
      );
    });
  });
});
