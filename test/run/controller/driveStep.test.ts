// lib/run/controllerStep: the keys a run's phase awaits; pumpReplies on a real controller
// inbox (a worker's question, a person's answer forwarded to that worker, the awaited reply
// taken once, anything else completed with a logged rejection); stepActiveRun taking a real
// run through stage, acceptance, checkpoint, review, validation and resolution, each request
// sent once. Replies are made with replyToRun and moved into the controller's inbox/new as
// handoffd would deliver them.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { mailboxOf, runPathsOf } from '../../../lib/project/layout.js';
import { queueSystemHandoff } from '../../../lib/handoff/systemSend.js';
import { readItem } from '../../../lib/queue/item.js';
import { ensureMailbox } from '../../../lib/queue/mailbox.js';
import { itemNamesIn } from '../../../lib/queue/names.js';
import { requestKey } from '../../../lib/run/controller/controllerMail.js';
import { emptyPhase, readPhase, writePhase } from '../../../lib/run/controller/controllerPhase.js';
import { awaitedKeys } from '../../../lib/run/controller/awaited.js';
import { pumpReplies, stepActiveRun, type Driver } from '../../../lib/run/controller/driveStep.js';
import { enforceDeadlines } from '../../../lib/run/controller/replyDeadlines.js';
import { leaseAcquireStep } from '../../../lib/run/gates/controllerActions.js';
import { startStep } from '../../../lib/run/owner/ownerSteps.js';
import { answerQuestion } from '../../../lib/run/owner/runAnswer.js';
import { type RunContext } from '../../../lib/run/record/runContext.js';
import { replyToRun, type ReplyKind } from '../../../lib/run/controller/runReply.js';
import { readWorkflow } from '../../../lib/run/record/runStore.js';
import { type Workflow } from '../../../lib/run/record/workflow.js';
import { sampleWorkflow } from '../sampleWorkflow.js';
import { makeRunRepo, startOptions } from '../../support/runs.js';
import { git, placeItem, runBin } from '../../support/project.js';

const START = startOptions();

describe('lib/run/controller/driveStep', () => {
  describe('awaitedKeys', () => {
    const wf = sampleWorkflow('/repo', 'a'.repeat(40), {
      status: 'ACTIVE',
      active_stage: 'implementation',
    });
    const id = wf.run_id;
    it('the work of the active stage, both review lanes, or the validation and resolution of the cycle; none otherwise', () => {
      assert.deepEqual(awaitedKeys({ ...wf, phase: 'STAGE_ACTIVE' }), [
        `${id}/work/implementation/c1/g0`,
      ]);
      assert.deepEqual(awaitedKeys({ ...wf, phase: 'PAUSE_REQUESTED' }), [
        `${id}/work/implementation/c1/g0`,
      ]);
      assert.deepEqual(awaitedKeys({ ...wf, phase: 'STAGE_ACTIVE', active_stage: null }), []);
      assert.deepEqual(awaitedKeys({ ...wf, phase: 'REVIEW_PENDING', review_cycle: 2 }), [
        `${id}/review/review/c2/g0/structured`,
        `${id}/review/review/c2/g0/independent`,
      ]);
      assert.deepEqual(awaitedKeys({ ...wf, phase: 'FINDINGS_PENDING' }), [
        `${id}/validation/review/c1/g0`,
        `${id}/resolution/review/c1/g0`,
      ]);
      assert.deepEqual(awaitedKeys({ ...wf, phase: 'IDLE' }), []);
      assert.deepEqual(awaitedKeys({ ...wf, phase: 'STAGE_ACTIVE', status: 'PAUSED' }), []);
      assert.deepEqual(
        awaitedKeys({ ...wf, phase: 'REVIEW_PENDING', status: 'WAITING_FOR_HUMAN_APPROVAL' }),
        [],
      );
    });
  });

  let root: string;
  let clock: number;
  let ctx: RunContext;
  let runId: string;
  let d: Driver;
  let said: string[];
  beforeEach(async () => {
    root = makeRunRepo();
    clock = Date.parse('2030-01-01T00:00:00.000Z');
    ctx = { root, cwd: root, env: {}, user: 'alice', now: () => new Date((clock += 1000)) };
    runId = (await startStep(ctx, START)).status.run_id;
    const token = (
      (await leaseAcquireStep(ctx, runId, { pid: process.pid, ttlS: 3600, reclaimStale: false }))
        .status.lease as { token: string }
    ).token;
    said = [];
    d = {
      ctx,
      runId,
      token,
      paths: runPathsOf(root, runId),
      phase: emptyPhase(new Date()),
      say: (line) => said.push(line),
    };
    fs.mkdirSync(join(root, 'evidence'));
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  const record = (): Workflow => readWorkflow(root, runId).workflow;
  const ctlBox = () => mailboxOf(root, 'ctl');
  const step = () => stepActiveRun(d, record());
  const pump = () => pumpReplies(d, record());
  const logText = () =>
    fs.existsSync(d.paths.controllerLog) ? fs.readFileSync(d.paths.controllerLog, 'utf8') : '';

  /** Moves every handoff to the controller out of `role`'s outbox into the controller's inbox/new (handoffd's delivery). */
  function deliverFrom(role: string): string[] {
    const box = mailboxOf(root, role);
    ensureMailbox(ctlBox());
    const names = itemNamesIn(box.outbox).filter((n) => n.endsWith('_to_ctl.handoff'));
    for (const n of names) fs.renameSync(join(box.outbox, n), join(ctlBox().inboxNew, n));
    return names;
  }

  /** `role` replies with a file holding `text` (the cycle of the record unless given), delivered to the controller. */
  async function reply(
    role: string,
    kind: ReplyKind,
    stage: string,
    text: string,
    o: { lane?: string; cycle?: number } = {},
  ): Promise<string> {
    const file = `evidence/${role}-${kind}-${o.lane ?? ''}-${Date.now()}-${Math.random().toString(36).slice(2)}.txt`;
    fs.writeFileSync(join(root, file), text);
    const artifact = (
      await replyToRun(root, root, {
        runId,
        kind,
        stage,
        cycle: o.cycle ?? record().review_cycle,
        file,
        role,
        ...(o.lane ? { lane: o.lane } : {}),
      })
    ).artifact;
    deliverFrom(role);
    return artifact;
  }

  /** The requests the controller queued, as [type, to, key]. */
  async function requests(): Promise<string[][]> {
    const out: string[][] = [];
    for (const n of itemNamesIn(ctlBox().outbox)) {
      const h = (await readItem(join(ctlBox().outbox, n))).headers;
      out.push([h.type!, h.to!, h.key!]);
    }
    return out.sort((a, b) => a[2]!.localeCompare(b[2]!));
  }

  describe('pumpReplies', () => {
    it('a question makes the controller wait for a person; the answer goes to the worker that asked, its deadline starts again, and the controller drives again', async () => {
      await step(); // stage-start
      await step(); // run_stage
      const work = d.phase.awaiting![0]!;
      work.deadline_at = new Date(0).toISOString(); // the person took long to answer
      await reply('worker', 'question', 'implementation', 'Which database?\nmore detail\n');
      await pump();
      assert.equal(d.phase.state, 'WAITING_FOR_HUMAN_INPUT');
      assert.deepEqual(
        { ...d.phase.question!, since: 'x' },
        {
          text: 'Which database?\nmore detail',
          from: 'worker',
          stage: 'implementation',
          cycle: 1,
          since: 'x',
        },
      );
      assert.equal(
        said.at(-1),
        `QUESTION: from worker: Which database? (answer with: baton run answer ${runId} TEXT)`,
      );
      assert.deepEqual(
        readPhase(d.paths).question?.text,
        'Which database?\nmore detail',
        'the phase file is written',
      );
      assert.match(logText(), /Z QUESTION: from worker: Which database\?/);
      assert.deepEqual(itemNamesIn(ctlBox().inboxNew), []);
      assert.deepEqual(itemNamesIn(ctlBox().inProcess), []);
      assert.equal(itemNamesIn(ctlBox().completed).length, 1);

      await answerQuestion(root, runId, 'Use SQLite.');
      deliverFrom('ctl');
      await pump();
      assert.equal(d.phase.state, 'DRIVING');
      assert.equal(d.phase.question, null);
      assert.equal(said.at(-1), 'ANSWERED: worker');
      assert.ok(Date.parse(work.deadline_at) > Date.now(), "the worker's deadline starts again");
      const forwarded = (await requests()).filter((r) => r[0] === 'run_answer');
      assert.equal(forwarded.length, 1);
      assert.deepEqual(forwarded[0]!.slice(0, 2), ['run_answer', 'worker']);
      assert.match(forwarded[0]![2]!, new RegExp(`^${runId}/answer/`));
      const toWorker = itemNamesIn(ctlBox().outbox).filter((n) => n.endsWith('_to_worker.handoff'));
      const items = await Promise.all(toWorker.map((n) => readItem(join(ctlBox().outbox, n))));
      const item = items.find((i) => i.headers.type === 'run_answer')!;
      assert.equal(item.body.toString('utf8'), 'Use SQLite.\n');
      assert.deepEqual([item.headers.kind, item.headers.run_id], ['answer', runId]);
      assert.equal(itemNamesIn(ctlBox().completed).length, 2);
    });

    it("the awaited reply is taken once; a second reply for the same key, another cycle's reply and a stray answer are rejected and logged", async () => {
      await step(); // stage-start
      const artifact = await reply('worker', 'work', 'implementation', 'done\n');
      await pump();
      const key = requestKey(record(), 'work', 'implementation');
      assert.deepEqual(d.phase.replies, { [key]: artifact });
      assert.equal(
        said.at(-1),
        `REPLY: work of worker for stage implementation, cycle 1: ${artifact}`,
      );
      // the same reply again: baton run reply refuses it (answered already), and one queued
      // by hand around that check is rejected by the controller (its key is taken already)
      const sameReply = {
        runId,
        kind: 'work' as const,
        stage: 'implementation',
        cycle: 1,
        file: 'evidence/' + fs.readdirSync(join(root, 'evidence'))[0]!,
        role: 'worker',
      };
      await assert.rejects(replyToRun(root, root, sameReply), /was answered already/);
      await queueSystemHandoff(root, 'worker', {
        to: ['ctl'],
        priority: '40',
        type: 'run_result',
        headers: {
          run_id: runId,
          stage: 'implementation',
          cycle: '1',
          kind: 'work',
          key,
          artifact,
          sha256: 'a'.repeat(64),
        },
        body: 'again\n',
      });
      const again = deliverFrom('worker');
      await pump();
      assert.deepEqual(d.phase.replies, { [key]: artifact });
      assert.match(
        said.at(-1)!,
        new RegExp(
          `^REJECTED: run_result \\S+ \\(run ${runId}, work stage implementation cycle 1\\): not what run ${runId} awaits now$`,
        ),
      );
      assert.ok(
        said
          .at(-1)!
          .includes(` ${again[0]!.replace(/^40_/, '').replace(/_to_ctl\.handoff$/, '')} `),
        'the rejection names the item',
      );
      // a reply of another cycle (a stale one, queued by hand: replyToRun refuses it)
      await queueSystemHandoff(root, 'worker', {
        to: ['ctl'],
        priority: '40',
        type: 'run_result',
        headers: {
          run_id: runId,
          stage: 'implementation',
          cycle: '2',
          kind: 'work',
          key: `${runId}/work/implementation/c2/g0`,
          artifact: artifact,
          sha256: 'a'.repeat(64),
        },
        body: 'stale\n',
      });
      deliverFrom('worker');
      await pump();
      assert.match(
        said.at(-1)!,
        new RegExp(
          `^REJECTED: run_result \\S+ \\(run ${runId}, work stage implementation cycle 2\\)`,
        ),
      );
      // an answer with no question open is rejected, not forwarded
      await queueSystemHandoff(root, 'ctl', {
        to: ['ctl'],
        priority: '10',
        type: 'run_answer',
        headers: { run_id: runId, kind: 'answer' },
        body: 'unasked\n',
      });
      deliverFrom('ctl');
      await pump();
      assert.match(said.at(-1)!, /^REJECTED: run_answer /);
      assert.deepEqual(
        (await requests()).filter((r) => r[0] === 'run_answer'),
        [],
      );
      assert.deepEqual(d.phase.replies, { [key]: artifact });
      assert.equal(
        logText()
          .split('\n')
          .filter((l) => l.includes(' REJECTED: ')).length,
        3,
      );
      assert.equal(d.phase.handled.length, 4);
      assert.equal(itemNamesIn(ctlBox().completed).length, 4);
      assert.deepEqual(itemNamesIn(ctlBox().inProcess), []);
    });

    it('a reply already handled (its id in the phase, a restart after the handling) is completed without being used again', async () => {
      await step();
      await reply('worker', 'work', 'implementation', 'done\n');
      const [name] = itemNamesIn(ctlBox().inboxNew);
      const id = (await readItem(join(ctlBox().inboxNew, name!))).headers.id!;
      d.phase.handled.push(id);
      await pump();
      assert.deepEqual(d.phase.replies, {});
      assert.deepEqual(said, ['STAGE: implementation (cycle 1)']);
      assert.deepEqual(itemNamesIn(ctlBox().completed), [name]);
    });
  });

  describe('replies that cannot be used (lib/run/controller/replyIntake)', () => {
    const workKey = () => requestKey(record(), 'work', 'implementation');
    /** A run_result queued by hand from `role` (around baton run reply's check). */
    async function handReply(role: string, name: string, text: string): Promise<void> {
      const artifact = `artifacts/${name}`;
      fs.writeFileSync(join(d.paths.dir, artifact), text);
      await queueSystemHandoff(root, role, {
        to: ['ctl'],
        priority: '40',
        type: 'run_result',
        headers: {
          run_id: runId,
          stage: 'implementation',
          cycle: '1',
          kind: 'work',
          key: workKey(),
          artifact,
          sha256: createHash('sha256').update(text).digest('hex'),
        },
        body: 'by hand\n',
      });
      deliverFrom(role);
    }
    /** The run_rejected handoffs queued to `role`: their bodies. */
    const rejectionsTo = async (role: string) => {
      const out: string[] = [];
      for (const n of itemNamesIn(ctlBox().outbox)) {
        const item = await readItem(join(ctlBox().outbox, n));
        if (item.headers.type === 'run_rejected' && item.headers.to === role)
          out.push(item.body.toString('utf8'));
      }
      return out;
    };

    it('an unusable reply is rejected to its sender and counted; the fixed reply takes the next attempt name', async () => {
      await step(); // stage-start, the work requested
      await handReply('worker', 'hand-1.txt', '  \n');
      await pump();
      assert.equal(
        said.at(-1),
        'REJECTED unusable (1 of 3): work of worker for cycle 1: the file is empty; say what ' +
          'you did or ask',
      );
      assert.deepEqual([d.phase.replies, d.phase.rejections], [{}, { [workKey()]: 1 }]);
      const [body] = await rejectionsTo('worker');
      assert.match(body!, /was not used: the file is empty/);
      assert.match(
        body!,
        new RegExp(
          `baton run reply ${runId} --kind work --stage implementation --cycle 1 --file FILE`,
        ),
      );
      writePhase(d.paths, d.phase);
      const artifact = await reply('worker', 'work', 'implementation', 'done\n');
      assert.equal(artifact, 'artifacts/implementation-c1-work-a2.txt');
      await pump();
      assert.deepEqual(d.phase.replies, { [workKey()]: artifact });
    });

    it('the third unusable reply to one request blocks the run, naming the role and the fault', async () => {
      await step();
      for (const n of [1, 2, 3]) {
        await handReply('worker', `hand-${n}.txt`, '');
        await pump();
      }
      assert.equal(record().status, 'BLOCKED');
      assert.equal(
        record().block_reason,
        "worker's work for cycle 1 was unusable 3 times: the file is empty; say what you did or ask",
      );
      assert.equal((await rejectionsTo('worker')).length, 3);
      assert.deepEqual(d.phase.replies, {});
    });

    it('a reply from a role not asked for it is rejected and not counted; a changed artifact is', async () => {
      await step();
      await handReply('reviewer-a', 'hand-1.txt', 'done by someone else\n');
      await pump();
      assert.equal(
        said.at(-1),
        'REJECTED wrong-role: work of reviewer-a for cycle 1: worker is asked for it',
      );
      assert.match((await rejectionsTo('reviewer-a'))[0]!, /reviewer-a is not asked for it/);
      assert.equal(d.phase.rejections?.[workKey()], undefined, 'not counted');
      const artifact = await reply('worker', 'work', 'implementation', 'done\n');
      fs.appendFileSync(join(d.paths.dir, artifact), 'edited after the reply\n');
      await pump();
      assert.equal(
        said.at(-1),
        `REJECTED unusable (1 of 3): work of worker for cycle 1: its artifact ${artifact} ` +
          'changed since the reply (sha256 differs)',
      );
      assert.deepEqual(d.phase.replies, {});
    });
  });

  describe('stepActiveRun', () => {
    it('takes a run from IDLE through stage, acceptance, checkpoint, review, validation and resolution; each request sent once, to its role', async () => {
      const id = runId;
      assert.equal(await step(), 'moved');
      assert.deepEqual(
        [record().phase, record().active_stage, said.at(-1)],
        ['STAGE_ACTIVE', 'implementation', 'STAGE: implementation (cycle 1)'],
      );
      assert.equal(await step(), 'waiting');
      assert.equal(await step(), 'waiting');
      assert.deepEqual(await requests(), [
        ['run_stage', 'worker', `${id}/work/implementation/c1/g0`],
      ]);
      assert.equal(said.filter((l) => l.startsWith('SENT: ')).length, 1);
      assert.equal(said.at(-1), `SENT: run_stage to worker (${id}/work/implementation/c1/g0)`);
      assert.deepEqual(d.phase.sent, [`${id}/work/implementation/c1/g0`]);
      assert.deepEqual(readPhase(d.paths).sent, [], 'written by the loop, after its turn');

      await reply('worker', 'work', 'implementation', 'the work\n');
      await pump();
      assert.equal(await step(), 'moved');
      assert.equal(said.at(-1), 'ACCEPTANCE: passed');
      assert.equal(await step(), 'moved');
      assert.equal(said.at(-1), 'CHECKPOINT: implementation');
      assert.equal(record().phase, 'REVIEW_PENDING');
      assert.ok(
        record().artifacts.some(
          (a) =>
            a.path === 'artifacts/implementation-c1-work.txt' &&
            a.type === 'work' &&
            a.producer === 'worker',
        ),
        "the reply is registered as the stage's work, produced by the worker who sent it",
      );

      assert.equal(await step(), 'waiting');
      assert.deepEqual(
        (await requests()).filter((r) => r[0] === 'run_review'),
        [
          ['run_review', 'reviewer-b', `${id}/review/review/c1/g0/independent`],
          ['run_review', 'reviewer-a', `${id}/review/review/c1/g0/structured`],
        ],
      );
      await reply(
        'reviewer-a',
        'review',
        'review',
        'LANE: structured\nCYCLE: 1\nFINDING sec-1 Critical leaks the token\n',
        { lane: 'structured' },
      );
      await pump();
      assert.equal(await step(), 'waiting', 'one lane is not a review');
      await reply('reviewer-b', 'review', 'review', 'LANE: independent\nCYCLE: 1\n', {
        lane: 'independent',
      });
      await pump();
      assert.equal(await step(), 'moved');
      assert.equal(said.at(-1), 'REVIEW: cycle 1: 1 blocking finding(s)');
      assert.equal(record().phase, 'FINDINGS_PENDING');

      assert.equal(await step(), 'waiting');
      const validate = itemNamesIn(ctlBox().outbox).find((n) =>
        n.endsWith('_to_validator.handoff'),
      )!;
      assert.match(
        (await readItem(join(ctlBox().outbox, validate))).body.toString('utf8'),
        /\n- sec-1 Critical \(structured\): leaks the token\n/,
      );
      await reply(
        'validator',
        'validation',
        'review',
        JSON.stringify({
          cycle: 1,
          findings: [{ id: 'sec-1', valid: true, reason: 'reproduced' }],
        }),
      );
      await pump();
      assert.equal(await step(), 'waiting');
      const resolve = (await requests()).filter((r) => r[0] === 'run_resolve');
      assert.deepEqual(resolve, [['run_resolve', 'worker', `${id}/resolution/review/c1/g0`]]);
      await reply(
        'worker',
        'resolution',
        'review',
        JSON.stringify({
          cycle: 1,
          resolved: [{ id: 'sec-1', change: 'masked', tests: 'a test' }],
        }),
      );
      await pump();
      assert.equal(await step(), 'moved');
      assert.equal(said.at(-1), 'RESOLVED: cycle 1');
      assert.deepEqual([record().phase, record().review_cycle], ['REVIEW_PENDING', 2]);
      // cycle 2 starts with a fresh acceptance after the resolution, then new review requests
      assert.equal(await step(), 'moved');
      assert.equal(said.at(-1), 'ACCEPTANCE: passed');
      assert.equal(await step(), 'waiting');
      assert.deepEqual(
        (await requests())
          .filter((r) => r[0] === 'run_review')
          .map((r) => r[2])
          .sort(),
        [
          `${id}/review/review/c1/g0/independent`,
          `${id}/review/review/c1/g0/structured`,
          `${id}/review/review/c2/g0/independent`,
          `${id}/review/review/c2/g0/structured`,
        ],
      );
      assert.equal(said.filter((l) => l.startsWith('SENT: ')).length, 7);
    });

    it('a validator that changes the repository while validating blocks the run before the worker is asked to resolve', async () => {
      await step(); // stage-start
      await step(); // the work requested
      await reply('worker', 'work', 'implementation', 'the work\n');
      await pump();
      await step(); // acceptance
      await step(); // checkpoint
      await step(); // both lanes requested
      await reply(
        'reviewer-a',
        'review',
        'review',
        'LANE: structured\nCYCLE: 1\nFINDING sec-1 Critical leaks the token\n',
        { lane: 'structured' },
      );
      await reply('reviewer-b', 'review', 'review', 'LANE: independent\nCYCLE: 1\n', {
        lane: 'independent',
      });
      await pump();
      await step(); // the review recorded: FINDINGS_PENDING
      assert.equal(record().phase, 'FINDINGS_PENDING');
      // The repository as the validator gets it, read while the review was recorded.
      assert.deepEqual(d.phase.validating, {
        key: `${runId}/validation/review/c1/g0`,
        snapshot: { head: git(root, 'rev-parse', 'HEAD'), modified: {} },
      });
      assert.equal(await step(), 'waiting', 'the validation requested');
      fs.writeFileSync(join(root, 'spec.md'), 'edited by the validator\n');
      await reply(
        'validator',
        'validation',
        'review',
        JSON.stringify({ cycle: 1, findings: [{ id: 'sec-1', valid: true, reason: 'seen' }] }),
      );
      await pump();
      assert.equal(await step(), 'moved');
      const reason =
        'the validator changed the repository while validating: tracked files changed: spec.md';
      assert.deepEqual([record().status, record().block_reason], ['BLOCKED', reason]);
      assert.equal(said.at(-1), `BLOCKED: ${reason}`);
      assert.deepEqual(
        (await requests()).filter((r) => r[0] === 'run_resolve'),
        [],
        'the worker is not asked to resolve',
      );
    });

    it('a failing acceptance is reported as BLOCKED and blocks the run; the work reply stays recorded in the phase', async () => {
      await step();
      await step();
      await reply('worker', 'work', 'implementation', 'the work\n');
      await pump();
      fs.writeFileSync(join(root, 'accept-exit'), '3');
      assert.equal(await step(), 'moved');
      assert.match(said.at(-1)!, /^BLOCKED: /);
      assert.equal(record().status, 'BLOCKED');
      assert.equal(Object.keys(d.phase.replies).length, 1);
    });
  });
  describe('reviewer rotation (runtime.md §12.3)', () => {
    let rotated: string[];
    beforeEach(() => {
      rotated = [];
      // The session side is lib/cli's (tmux, restart); its real test is in
      // test/bin/run_rotation.test.ts. Here the protocol: when, once, and the ack.
      d.rotateSession = async (role) => {
        rotated.push(role);
        return '/clear typed';
      };
    });

    /** Takes the run through cycle 1 (one blocking finding, validated, resolved). */
    async function toCycleTwo(): Promise<void> {
      await step();
      await step();
      await reply('worker', 'work', 'implementation', 'the work\n');
      await pump();
      await step(); // acceptance
      await step(); // checkpoint
      assert.equal(await step(), 'waiting');
      assert.deepEqual(rotated, [], 'no rotation before the first review');
      await reply(
        'reviewer-a',
        'review',
        'review',
        'LANE: structured\nCYCLE: 1\nFINDING s-1 Critical x\n',
        {
          lane: 'structured',
        },
      );
      await reply('reviewer-b', 'review', 'review', 'LANE: independent\nCYCLE: 1\n', {
        lane: 'independent',
      });
      await pump();
      await step(); // review recorded
      await step(); // run_validate
      const valid = { cycle: 1, findings: [{ id: 's-1', valid: true, reason: 'yes' }] };
      await reply('validator', 'validation', 'review', JSON.stringify(valid));
      await pump();
      await step(); // run_resolve
      const resolved = { cycle: 1, resolved: [{ id: 's-1', change: 'c', tests: 't' }] };
      await reply('worker', 'resolution', 'review', JSON.stringify(resolved));
      await pump();
      await step(); // resolved
      await step(); // acceptance of cycle 2
      assert.equal(record().review_cycle, 2);
    }

    const rotateItems = async () => {
      const out: Record<string, string>[] = [];
      for (const n of itemNamesIn(ctlBox().outbox)) {
        const h = (await readItem(join(ctlBox().outbox, n))).headers as Record<string, string>;
        if (h.type === 'run_rotate') out.push(h);
      }
      return out;
    };
    const cycleTwoReviews = async () =>
      (await requests()).filter((r) => r[0] === 'run_review' && r[2]!.includes('/c2/'));
    const ack = (role: string, nonce: string) =>
      runBin('baton', ['run', 'ack', runId, '--nonce', nonce], { cwd: root, role });

    it('clears each reviewer once before cycle 2, sends run_rotate with a nonce, and its review only after baton run ack with that nonce', async () => {
      await toCycleTwo();
      assert.equal(await step(), 'waiting');
      assert.deepEqual(rotated, ['reviewer-a', 'reviewer-b']);
      const rotates = await rotateItems();
      assert.deepEqual(
        rotates.map((h) => [h.to, h.kind, /^[0-9a-f]{16}$/.test(h.nonce!)]),
        [
          ['reviewer-a', 'rotate', true],
          ['reviewer-b', 'rotate', true],
        ].sort(),
      );
      assert.deepEqual(await cycleTwoReviews(), [], 'no review before the ack');
      const nonceOf = (role: string) => rotates.find((h) => h.to === role)!.nonce!;

      const wrong = ack('reviewer-a', 'f'.repeat(16));
      assert.deepEqual(
        [wrong.code, wrong.stderr],
        [
          2,
          'baton run ack: wrong nonce for the rotation of reviewer-a: use the one in its run_rotate\n',
        ],
      );
      const stranger = ack('worker', nonceOf('reviewer-a'));
      assert.deepEqual(
        [stranger.code, stranger.stderr],
        [2, `baton run ack: no rotation of worker awaits an acknowledgement in run ${runId}\n`],
      );
      assert.deepEqual(deliverFrom('reviewer-a'), [], 'a refused ack queues nothing');

      const right = ack('reviewer-a', nonceOf('reviewer-a'));
      assert.equal(right.code, 0, right.stderr);
      assert.equal(deliverFrom('reviewer-a').length, 1);
      await pump();
      assert.equal(said.filter((l) => l.startsWith('ROTATED: reviewer-a')).length, 1);
      assert.equal(await step(), 'waiting');
      assert.deepEqual(
        (await cycleTwoReviews()).map((r) => r[1]),
        ['reviewer-a'],
        'the acknowledged reviewer gets its review; the other still waits',
      );
      assert.equal(await step(), 'waiting');
      assert.deepEqual(rotated, ['reviewer-a', 'reviewer-b'], 'each cleared once');
      assert.equal((await rotateItems()).length, 2, 'each run_rotate sent once');
      const again = ack('reviewer-a', nonceOf('reviewer-a'));
      assert.equal(again.code, 2, 'an acknowledgement counts once');
    });

    it('an ack run again after a kill once it had queued (two run_acks): one counts, the other is rejected, the review goes once', async () => {
      await toCycleTwo();
      await step();
      const nonce = (await rotateItems()).find((h) => h.to === 'reviewer-a')!.nonce!;
      // The first ack queued its run_ack and was killed before it could say so: the agent
      // runs it again, and the controller has not taken the first one yet.
      assert.equal(ack('reviewer-a', nonce).code, 0);
      assert.equal(ack('reviewer-a', nonce).code, 0);
      assert.equal(deliverFrom('reviewer-a').length, 2);
      await pump();
      assert.equal(said.filter((l) => l.startsWith('ROTATED: reviewer-a')).length, 1);
      assert.equal(said.filter((l) => l.startsWith('REJECTED: run_ack from reviewer-a')).length, 1);
      await step();
      await step();
      assert.deepEqual(
        (await cycleTwoReviews()).map((r) => r[1]),
        ['reviewer-a'],
      );
    });

    it('waits while the reviewer has work in process; a session that cannot be rotated is logged and reviewed without', async () => {
      await toCycleTwo();
      const held = await placeItem(mailboxOf(root, 'reviewer-a').inProcess, { to: 'reviewer-a' });
      d.rotateSession = async (role) => {
        rotated.push(role);
        if (role === 'reviewer-b') throw new Error('reviewer-b has no pane (is the swarm up?)');
        return '/clear typed';
      };
      assert.equal(await step(), 'waiting');
      assert.deepEqual(rotated, ['reviewer-b'], 'reviewer-a is busy: not cleared');
      assert.ok(
        said.includes(
          'ROTATION SKIPPED: reviewer-b: reviewer-b has no pane (is the swarm up?); the review goes without',
        ),
      );
      assert.deepEqual(
        (await cycleTwoReviews()).map((r) => r[1]),
        ['reviewer-b'],
      );
      fs.rmSync(held);
      assert.equal(await step(), 'waiting');
      assert.deepEqual(rotated, ['reviewer-b', 'reviewer-a']);
    });

    it('no ack by the review deadline is silence: the next generation rotates again with a new nonce', async () => {
      await toCycleTwo();
      await step();
      const first = (await rotateItems()).find((h) => h.to === 'reviewer-a')!;
      const entry = d.phase.awaiting!.find((a) => a.role === 'reviewer-a' && a.kind === 'review')!;
      const lines = await enforceDeadlines(
        d,
        record(),
        new Date(Date.parse(entry.deadline_at) + 1),
      );
      assert.match(lines.join('\n'), /DEADLINE: reviewer-a did not answer review for cycle 2/);
      await enforceDeadlines(d, record(), new Date(Date.parse(entry.deadline_at) + 3_600_000));
      assert.equal(entry.generation, 2);
      await step();
      const second = (await rotateItems()).filter((h) => h.to === 'reviewer-a');
      assert.equal(second.length, 2, 'rotated again for the next generation');
      assert.notEqual(second[1]!.nonce, first.nonce);
      assert.equal(rotated.filter((r) => r === 'reviewer-a').length, 2);
      const stale = ack('reviewer-a', first.nonce!);
      assert.equal(stale.code, 2, "the last generation's nonce no longer counts");
    });
  });
});
