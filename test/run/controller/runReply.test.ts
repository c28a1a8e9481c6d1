// lib/run/runReply: `baton run reply` in process, on a real run in a real git repository:
// the copy into artifacts/ under its cycle-specific name, the run_result handoff queued from
// the agent's role to the run's controller, and every refusal (terminal run, other cycle,
// other stage, a file outside the caller's worktree, an overwrite with other bytes).
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { mailboxOf, runPathsOf } from '../../../lib/project/layout.js';
import { readItem } from '../../../lib/queue/item.js';
import { itemNamesIn } from '../../../lib/queue/names.js';
import {
  blockStep,
  checkpointStep,
  leaseAcquireStep,
  stageStartStep,
} from '../../../lib/run/gates/controllerActions.js';
import { acceptanceStep } from '../../../lib/run/gates/gateSteps.js';
import {
  endStep,
  retryStep,
  startStep,
  type StartOptions,
} from '../../../lib/run/owner/ownerSteps.js';
import { type RunContext } from '../../../lib/run/record/runContext.js';
import { expectedStageOf, replyToRun, type Reply } from '../../../lib/run/controller/runReply.js';
import { readWorkflow } from '../../../lib/run/record/runStore.js';
import { sampleWorkflow } from '../sampleWorkflow.js';
import { failure } from '../../support/failures.js';
import { tempDir } from '../../support/project.js';
import { makeRunRepo } from '../../support/runs.js';

const START: StartOptions = {
  request: 'req-1',
  task: 'add the thing',
  spec: 'spec.md',
  acceptance: 'true',
  stages: ['implementation', 'docs'],
  maxCycles: 3,
  acceptanceTimeoutS: 60,
  retryAttempts: 3,
  retryBaseMs: 100,
  roles: {
    worker: 'worker',
    reviewers: ['reviewer-a', 'reviewer-b'],
    validator: 'validator',
    controller: 'ctl',
  },
};

const sha256 = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');

describe('lib/run/controller/runReply', () => {
  let root: string;
  let clock: number;
  let ctx: RunContext;
  let runId: string;
  let token: string;
  const others: string[] = [];
  beforeEach(async () => {
    root = makeRunRepo();
    clock = Date.parse('2030-01-01T00:00:00.000Z');
    ctx = { root, cwd: root, env: {}, user: 'alice', now: () => new Date((clock += 1000)) };
    runId = (await startStep(ctx, START)).status.run_id;
    token = (
      (await leaseAcquireStep(ctx, runId, { pid: process.pid, ttlS: 3600, reclaimStale: false }))
        .status.lease as { token: string }
    ).token;
    await stageStartStep(ctx, runId, token, 'implementation');
    fs.writeFileSync(join(root, 'report.md'), 'the work is done\n');
  });
  afterEach(() => {
    fs.rmSync(root, { recursive: true, force: true });
    for (const d of others.splice(0)) fs.rmSync(d, { recursive: true, force: true });
  });

  const paths = () => runPathsOf(root, runId);
  const work = (over: Partial<Reply> = {}): Reply => ({
    runId,
    kind: 'work',
    stage: 'implementation',
    cycle: 1,
    file: 'report.md',
    role: 'worker',
    ...over,
  });
  const outboxOf = (role: string) => itemNamesIn(mailboxOf(root, role).outbox);

  it('copies the file to artifacts/<stage>-c<cycle>-<kind>.<ext> and queues one run_result to the controller with every header', async () => {
    const now = new Date('2030-02-03T04:05:06.000Z');
    const artifact = (await replyToRun(root, root, work(), () => now)).artifact;
    assert.equal(artifact, 'artifacts/implementation-c1-work.md');
    assert.equal(fs.readFileSync(join(paths().dir, artifact), 'utf8'), 'the work is done\n');
    const names = outboxOf('worker');
    assert.equal(names.length, 1);
    const item = await readItem(join(mailboxOf(root, 'worker').outbox, names[0]!));
    const h = item.headers;
    assert.equal(h.type, 'run_result');
    assert.equal(h.from, 'worker');
    assert.equal(h.to, 'ctl');
    assert.equal(h.priority, '40');
    assert.equal(h.created_at, '2030-02-03T04:05:06.000Z');
    assert.deepEqual(
      {
        run_id: h.run_id,
        stage: h.stage,
        cycle: h.cycle,
        kind: h.kind,
        lane: h.lane,
        key: h.key,
        artifact: h.artifact,
        sha256: h.sha256,
      },
      {
        run_id: runId,
        stage: 'implementation',
        cycle: '1',
        kind: 'work',
        lane: undefined,
        key: `${runId}/work/implementation/c1/g0`,
        artifact,
        sha256: sha256('the work is done\n'),
      },
    );
    assert.match(
      item.body.toString('utf8'),
      new RegExp(
        `^work reply of worker for run ${runId}, stage implementation, cycle 1: ${artifact}\n`,
      ),
    );
    // the agent never writes run state: the record lists no such artifact
    assert.ok(!readWorkflow(root, runId).workflow.artifacts.some((a) => a.path === artifact));
  });

  it('stamps created_at when the run_result is made, after the checks and the copy: the window a transition is timed from starts at the queue', async () => {
    const seen: boolean[] = [];
    const clock = () => {
      seen.push(fs.existsSync(join(paths().artifacts, 'implementation-c1-work.md')));
      return new Date('2030-02-03T04:05:06.000Z');
    };
    await replyToRun(root, root, work(), clock);
    assert.deepEqual(seen, [true], 'one reading of the clock, once the artifact was copied');
  });

  it('a question carries the file text in the body; a review names its lane in the name, the key and a lane header', async () => {
    fs.writeFileSync(join(root, 'q.txt'), 'Which database?\n');
    const q = (await replyToRun(root, root, work({ kind: 'question', file: 'q.txt' }))).artifact;
    assert.equal(q, 'artifacts/implementation-c1-question.txt');
    const item = await readItem(join(mailboxOf(root, 'worker').outbox, outboxOf('worker')[0]!));
    assert.equal(
      item.body.toString('utf8'),
      `question reply of worker for run ${runId}, stage implementation, cycle 1: ${q}\nWhich database?\n`,
    );
    // Both stages checkpointed, the run awaits the review lanes.
    for (const stage of ['implementation', 'docs']) {
      if (stage === 'docs') await stageStartStep(ctx, runId, token, stage);
      assert.equal((await acceptanceStep(ctx, runId, token)).blocked, undefined);
      fs.writeFileSync(join(root, `${stage}.md`), `${stage} done\n`);
      await checkpointStep(ctx, runId, token, stage, [`${stage}.md:work`]);
    }
    fs.writeFileSync(join(root, 'lane'), 'LANE: structured\nCYCLE: 1\n');
    const r = (
      await replyToRun(root, root, {
        runId,
        kind: 'review',
        stage: 'review',
        cycle: 1,
        lane: 'structured',
        file: 'lane',
        role: 'reviewer-a',
      })
    ).artifact;
    assert.equal(r, 'artifacts/review-c1-review-structured.txt');
    const review = await readItem(
      join(mailboxOf(root, 'reviewer-a').outbox, outboxOf('reviewer-a')[0]!),
    );
    assert.equal(review.headers.lane, 'structured');
    assert.equal(review.headers.key, `${runId}/review/review/c1/g0/structured`);
  });

  it('a rerun with the same bytes is accepted and queues the handoff again; other bytes are refused as an overwrite', async () => {
    const artifact = (await replyToRun(root, root, work())).artifact;
    assert.equal((await replyToRun(root, root, work())).artifact, artifact);
    assert.equal(outboxOf('worker').length, 2);
    fs.writeFileSync(join(root, 'report.md'), 'other words\n');
    await assert.rejects(
      replyToRun(root, root, work()),
      failure(
        'refused',
        `already replied: ${artifact} exists with other bytes; a reply is never overwritten`,
      ),
    );
    assert.equal(fs.readFileSync(join(paths().dir, artifact), 'utf8'), 'the work is done\n');
    assert.equal(outboxOf('worker').length, 2);
  });

  it('refuses another cycle, another stage, a review without its lane, and queues nothing', async () => {
    await assert.rejects(
      replyToRun(root, root, work({ cycle: 2 })),
      failure('refused', `run ${runId} is in cycle 1, not 2`),
    );
    await assert.rejects(
      replyToRun(root, root, work({ stage: 'docs' })),
      failure('refused', `a work reply of run ${runId} names stage implementation, not docs`),
    );
    await assert.rejects(
      replyToRun(root, root, work({ kind: 'validation' })),
      failure(
        'refused',
        `a validation reply of run ${runId} names stage review, not implementation`,
      ),
    );
    await assert.rejects(
      replyToRun(root, root, work({ kind: 'review', stage: 'review' })),
      failure('usage', 'a review reply names its lane: --lane structured|independent'),
    );
    assert.deepEqual(outboxOf('worker'), []);
    assert.deepEqual(
      fs.existsSync(paths().artifacts)
        ? fs.readdirSync(paths().artifacts).filter((n) => n.includes('-work'))
        : [],
      [],
    );
  });

  it("refuses a file outside the caller's git worktree, and a missing file", async () => {
    const elsewhere = tempDir('baton-elsewhere-');
    others.push(elsewhere);
    fs.writeFileSync(join(elsewhere, 'r.md'), 'x\n');
    await assert.rejects(
      replyToRun(root, root, work({ file: join(elsewhere, 'r.md') })),
      failure('refused', new RegExp(`is outside your worktree '${fs.realpathSync(root)}'$`)),
    );
    await assert.rejects(
      replyToRun(root, root, work({ file: 'nope.md' })),
      failure('usage', "no such file 'nope.md'"),
    );
    assert.deepEqual(outboxOf('worker'), []);
  });

  it('after the owner retried the run, the name and the key carry the generation (-g1), so the reply of the first attempt is not overwritten', async () => {
    const first = (await replyToRun(root, root, work())).artifact;
    await blockStep(ctx, runId, token, 'provider down');
    await retryStep(ctx, runId, 0, false);
    const wf = readWorkflow(root, runId).workflow;
    assert.equal(wf.status, 'ACTIVE');
    fs.writeFileSync(join(root, 'report.md'), 'the second attempt\n');
    const stage = 'implementation';
    assert.equal(wf.active_stage, stage);
    const second = (await replyToRun(root, root, work({ stage }))).artifact;
    assert.equal(second, `artifacts/${stage}-c1-work-g1.md`);
    assert.notEqual(second, first);
    assert.equal(fs.readFileSync(join(paths().dir, first), 'utf8'), 'the work is done\n');
    const items = await Promise.all(
      outboxOf('worker').map((n) => readItem(join(mailboxOf(root, 'worker').outbox, n))),
    );
    assert.deepEqual(
      items.map((i) => i.headers.key).sort(),
      [`${runId}/work/${stage}/c1/g0`, `${runId}/work/${stage}/c1/g1`].sort(),
    );
  });

  it('refuses a terminal run', async () => {
    await endStep(ctx, runId, 'cancel', 'no longer needed');
    await assert.rejects(
      replyToRun(root, root, work()),
      failure('refused', `run ${runId} is CANCELLED: it takes no replies`),
    );
    assert.deepEqual(outboxOf('worker'), []);
  });

  it('expectedStageOf: the active (else last completed) stage for work and questions, review for the review kinds', () => {
    const wf = sampleWorkflow('/r', 'a'.repeat(40), {
      active_stage: 'docs',
      last_completed_stage: 'implementation',
    });
    assert.equal(expectedStageOf(wf, 'work'), 'docs');
    assert.equal(expectedStageOf(wf, 'question'), 'docs');
    for (const k of ['review', 'validation', 'resolution'] as const)
      assert.equal(expectedStageOf(wf, k), 'review');
    assert.equal(expectedStageOf({ ...wf, active_stage: null }, 'work'), 'implementation');
  });
});
