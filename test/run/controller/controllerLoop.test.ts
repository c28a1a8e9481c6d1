// lib/run/controllerLoop: driveRun in process on a real run. Simulated agents answer each
// request the moment the controller reports it sent (their replies made with replyToRun and
// moved into the controller's inbox/new, as handoffd delivers them); the owner approves at
// the gate. The loop takes the lease, waits for mail or a change of the record, ends at a
// terminal status, waits on a PAUSED run without a lease, and stops on its abort signal.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { mailboxOf, personaPathOf, runPathsOf } from '../../../lib/project/layout.js';
import { readItem } from '../../../lib/queue/index.js';
import { ensureMailbox } from '../../../lib/queue/mailbox.js';
import { itemNamesIn } from '../../../lib/queue/names.js';
import { readPhase } from '../../../lib/run/controller/controllerPhase.js';
import { driveRun, type DriveOptions } from '../../../lib/run/controller/controllerLoop.js';
import { readLease } from '../../../lib/run/record/lease.js';
import {
  approveStep,
  endStep,
  pauseStep,
  resumeStep,
  startStep,
} from '../../../lib/run/owner/ownerSteps.js';
import { type RunContext } from '../../../lib/run/record/runContext.js';
import { replyToRun, type ReplyKind } from '../../../lib/run/controller/runReply.js';
import { readWorkflow } from '../../../lib/run/record/runStore.js';
import { makeRunRepo, startOptions } from '../../support/runs.js';

const START = startOptions();

describe('lib/run/controller/controllerLoop', () => {
  let root: string;
  let ctx: RunContext;
  let runId: string;
  let said: string[];
  let warned: string[];
  let pending: Promise<unknown>[];
  let stop: AbortController;
  beforeEach(async () => {
    root = makeRunRepo();
    ctx = { root, cwd: root, env: {}, user: 'alice', now: () => new Date() };
    runId = (await startStep(ctx, START)).status.run_id;
    fs.mkdirSync(join(root, 'evidence'));
    said = [];
    warned = [];
    pending = [];
    stop = new AbortController();
  });
  afterEach(() => {
    stop.abort();
    fs.rmSync(root, { recursive: true, force: true });
  });

  const paths = () => runPathsOf(root, runId);
  const record = () => readWorkflow(root, runId).workflow;

  /** `role` replies with a file holding `text`; the run_result is moved into the controller's inbox/new. */
  async function reply(
    role: string,
    kind: ReplyKind,
    stage: string,
    text: string,
    lane?: string,
  ): Promise<void> {
    const file = `evidence/${role}-${kind}-${lane ?? 'x'}.txt`;
    fs.writeFileSync(join(root, file), text);
    await replyToRun(root, root, {
      runId,
      kind,
      stage,
      cycle: record().review_cycle,
      file,
      role,
      ...(lane ? { lane } : {}),
    });
    const from = mailboxOf(root, role);
    const ctl = mailboxOf(root, 'ctl');
    ensureMailbox(ctl);
    for (const n of itemNamesIn(from.outbox))
      fs.renameSync(join(from.outbox, n), join(ctl.inboxNew, n));
  }

  /** Runs `fn` beside the loop; a failure aborts the loop and is rethrown after it. */
  function beside(fn: () => Promise<unknown>): void {
    pending.push(
      fn().catch((err: unknown) => {
        stop.abort();
        throw err;
      }),
    );
  }

  /** The simulated agents and owner: they act on the controller's lines. */
  function agentsAnd(extra: (line: string) => void = () => undefined): DriveOptions {
    return {
      reclaimStale: false,
      pollMs: 60_000,
      signal: stop.signal,
      warn: (line) => warned.push(line),
      say: (line) => {
        said.push(line);
        if (line.startsWith('SENT: run_stage to worker '))
          beside(() => reply('worker', 'work', 'implementation', 'the work\n'));
        if (line.startsWith('SENT: run_review to reviewer-a '))
          beside(() =>
            reply('reviewer-a', 'review', 'review', 'LANE: structured\nCYCLE: 1\n', 'structured'),
          );
        if (line.startsWith('SENT: run_review to reviewer-b '))
          beside(() =>
            reply('reviewer-b', 'review', 'review', 'LANE: independent\nCYCLE: 1\n', 'independent'),
          );
        extra(line);
      },
    };
  }

  async function drive(o: DriveOptions): Promise<string> {
    const status = await driveRun(ctx, runId, o);
    await Promise.all(pending);
    return status;
  }

  it('takes the lease, drives the run to the approval gate, waits there, and ends when the owner approves (COMPLETED)', async () => {
    let leaseSeen: ReturnType<typeof readLease>;
    const status = await drive(
      agentsAnd((line) => {
        if (line.startsWith('LEASE: ')) leaseSeen = readLease(paths());
        if (line.startsWith('APPROVAL: ')) beside(() => approveStep(ctx, runId));
      }),
    );
    assert.equal(status, 'COMPLETED');
    assert.equal(record().status, 'COMPLETED');
    assert.equal(leaseSeen!.pid, process.pid);
    const id = runId;
    const events = said.map((l) => l.split(':')[0]);
    assert.deepEqual(events, [
      'LEASE',
      'STAGE',
      'SENT',
      'REPLY',
      'ACCEPTANCE',
      'CHECKPOINT',
      'SENT',
      'SENT',
      'REPLY',
      'REPLY',
      'REVIEW',
      'APPROVAL',
    ]);
    assert.equal(said[2], `SENT: run_stage to worker (${id}/work/implementation/c1/g0)`);
    assert.equal(said.at(-2), 'REVIEW: cycle 1: 0 blocking finding(s)');
    assert.equal(
      said.at(-1),
      `APPROVAL: run ${id} waits for its owner: baton run approve ${id}, or baton run request-changes ${id} --note TEXT`,
    );
    assert.deepEqual(warned, []);
    const phase = readPhase(paths());
    assert.equal(phase.sent.length, 3);
    assert.equal(Object.keys(phase.replies).length, 3);
    assert.equal(phase.handled.length, 3);
    assert.deepEqual(itemNamesIn(mailboxOf(root, 'ctl').inboxNew), []);
    assert.deepEqual(itemNamesIn(mailboxOf(root, 'ctl').inProcess), []);
    // The work reply is completed once the loop waits again: after the acceptance, the
    // checkpoint and the review requests it allowed, not before them.
    const ctl = mailboxOf(root, 'ctl');
    const headersIn = (dir: string) =>
      Promise.all(itemNamesIn(dir).map(async (n) => (await readItem(join(dir, n))).headers));
    const work = (await headersIn(ctl.completed)).find((h) => h.kind === 'work')!;
    const reviewsAsked = (await headersIn(ctl.outbox))
      .filter((h) => h.type === 'run_review')
      .map((h) => Date.parse(h.created_at!));
    assert.equal(reviewsAsked.length, 2);
    assert.ok(
      Date.parse(work.completed_at!) >= Math.max(...reviewsAsked),
      `work reply completed at ${work.completed_at}, before the review requests`,
    );
    assert.deepEqual(
      record()
        .artifacts.filter((a) => a.type === 'work' || a.type === 'review')
        .map((a) => a.path)
        .sort(),
      [
        'artifacts/implementation-c1-work.txt',
        'artifacts/review-c1-review-independent.txt',
        'artifacts/review-c1-review-structured.txt',
      ],
    );
  });

  it('the abort signal ends a loop waiting for a reply (long before its poll), with the run still ACTIVE and nothing sent twice', async () => {
    const o = agentsAnd();
    o.say = (line) => {
      said.push(line);
      // The abort comes once the step is over and the loop waits (a macrotask after the
      // step's synchronous tail): an abort during the step itself is not seen by the wait
      // (see the report of this change), so the test does not depend on that.
      if (line.startsWith('SENT: ')) setImmediate(() => stop.abort());
    };
    const started = Date.now();
    assert.equal(await drive(o), 'ACTIVE');
    assert.ok(
      Date.now() - started < 10_000,
      'ended by the signal, not by the 60 s poll or the 20 s heartbeat',
    );
    assert.deepEqual(
      said.map((l) => l.split(':')[0]),
      ['LEASE', 'STAGE', 'SENT'],
    );
    assert.equal(
      readLease(paths())?.pid,
      process.pid,
      'the lease stays until it expires or is reclaimed',
    );
    assert.equal(itemNamesIn(mailboxOf(root, 'ctl').outbox).length, 1);
    assert.deepEqual(readPhase(paths()).sent, [`${runId}/work/implementation/c1/g0`]);
  });

  it("writes the next turn's files into spares made while it waits; a killed controller's spares go at the start, its own at the end", async () => {
    const sparesDir = join(paths().dir, 'controller', 'spares');
    fs.mkdirSync(sparesDir, { recursive: true });
    fs.writeFileSync(join(sparesDir, 'spare.99'), ''); // a killed controller's
    let waiting: Map<number, string> | undefined;
    const o = agentsAnd((line) => {
      if (line.startsWith('APPROVAL: ')) beside(() => approveStep(ctx, runId));
    });
    const say = o.say;
    o.say = (line) => {
      if (!line.startsWith('SENT: run_stage ')) return say(line);
      said.push(line);
      // Once the loop waits for the work: the spares it made, then the worker's reply.
      setImmediate(() => {
        waiting = new Map(
          fs.readdirSync(sparesDir).map((n) => [fs.statSync(join(sparesDir, n)).ino, n]),
        );
        beside(() => reply('worker', 'work', 'implementation', 'the work\n'));
      });
    };
    assert.equal(await drive(o), 'COMPLETED');
    assert.equal(waiting!.size, 16);
    assert.ok(![...waiting!.values()].includes('spare.99'), "the killed controller's spare");
    const ctl = mailboxOf(root, 'ctl');
    const reviews = [];
    for (const n of itemNamesIn(ctl.outbox))
      if ((await readItem(join(ctl.outbox, n))).headers.type === 'run_review')
        reviews.push(fs.statSync(join(ctl.outbox, n)).ino);
    assert.equal(reviews.length, 2);
    for (const ino of reviews) assert.ok(waiting!.has(ino), 'a review request was not a spare');
    assert.equal(fs.existsSync(sparesDir), false, 'the spares are left behind');
  });

  it('a terminal run ends the loop at once, without taking a lease', async () => {
    await endStep(ctx, runId, 'cancel', 'not needed');
    assert.equal(await drive(agentsAnd()), 'CANCELLED');
    assert.deepEqual(said, []);
    assert.equal(readLease(paths()), undefined);
  });

  it('a PAUSED run is waited on without a lease, reported once; when the owner resumes it the loop takes the lease and drives', async () => {
    await pauseStep(ctx, runId);
    assert.equal(record().status, 'PAUSED');
    const status = await drive(
      agentsAnd((line) => {
        if (line.startsWith('WAITING: ')) {
          assert.equal(readLease(paths()), undefined);
          beside(() => resumeStep(ctx, runId, false));
        }
        if (line.startsWith('STAGE: ')) stop.abort();
      }),
    );
    assert.equal(status, 'ACTIVE');
    assert.equal(said[0], `WAITING: run ${runId} is PAUSED`);
    assert.deepEqual(said.map((l) => l.split(':')[0]).slice(0, 3), ['WAITING', 'LEASE', 'STAGE']);
    assert.equal(said.filter((l) => l.startsWith('WAITING')).length, 1);
    assert.equal(record().phase, 'STAGE_ACTIVE');
  });
  it("each request carries its role's persona after it, naming the file: the project's override, else Baton's shipped one; a symlinked override is passed over", async () => {
    const soul = (name: string) => personaPathOf(root, name);
    fs.mkdirSync(dirname(soul('student-worker')), { recursive: true });
    fs.writeFileSync(soul('student-worker'), '---\nname: w\n---\nYou are our worker.\n');
    fs.mkdirSync(dirname(soul('student-reviewer')), { recursive: true });
    fs.symlinkSync(resolve('personas', 'teacher-cto.md'), soul('student-reviewer'));
    const o = agentsAnd((line) => {
      if (line.startsWith('SENT: run_review to reviewer-b ')) stop.abort();
    });
    await drive(o);
    const bodies = new Map<string, string>();
    const ctl = mailboxOf(root, 'ctl');
    for (const dir of [ctl.outbox, ctl.sent])
      for (const name of fs.existsSync(dir) ? itemNamesIn(dir) : []) {
        const item = await readItem(join(dir, name));
        bodies.set(`${item.headers.type}:${item.headers.to}`, item.body.toString('utf8'));
      }
    const stage = bodies.get('run_stage:worker')!;
    assert.ok(
      stage.endsWith(
        `\n\nYour persona (student-worker, from ${soul('student-worker')}):\nYou are our worker.`,
      ),
      stage,
    );
    assert.ok(stage.startsWith(`Run ${runId}, stage implementation`), 'the request comes first');
    const shipped = fs.readFileSync(resolve('personas', 'student-reviewer.md'), 'utf8');
    const review = bodies.get('run_review:reviewer-a')!;
    assert.ok(
      review.includes(
        `Your persona (student-reviewer, from ${resolve('personas', 'student-reviewer.md')}):\n`,
      ),
      review,
    );
    assert.ok(review.includes(shipped.split('---\n')[2]!.trim().split('\n')[0]!));
    assert.deepEqual(warned, [
      `persona '${soul('student-reviewer')}' is a symlink: ignored (never followed)`,
    ]);
  });
});
