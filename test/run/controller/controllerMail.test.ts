// lib/run/controllerMail: request keys (run, kind, stage, cycle, generation, lane), the scan
// of the controller's outbox, sent/ and failed/ for keys already queued, a request sent once,
// and the replies claimed from the controller's inbox (one left in process first) and completed.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { basename, join } from 'node:path';
import { mailboxOf } from '../../../lib/project/layout.js';
import { queueSystemHandoff } from '../../../lib/handoff/systemSend.js';
import { readItem } from '../../../lib/queue/item.js';
import { ensureMailbox } from '../../../lib/queue/mailbox.js';
import { itemNamesIn } from '../../../lib/queue/names.js';
import {
  completeReply,
  generationOf,
  nextReply,
  queuedKeys,
  requestKey,
  sendOnce,
} from '../../../lib/run/controller/controllerMail.js';
import { emptyPhase } from '../../../lib/run/controller/controllerPhase.js';
import { type Workflow } from '../../../lib/run/record/workflow.js';
import { sampleWorkflow } from '../sampleWorkflow.js';
import { tempDir } from '../../support/project.js';

const retry = {
  at: '2026-01-02T03:04:06Z',
  actor: 'alice',
  action: 'retry',
  from: 'BLOCKED',
  to: 'ACTIVE',
  detail: '',
};

describe('lib/run/controller/controllerMail', () => {
  let root: string;
  let wf: Workflow;
  const now = new Date('2030-01-01T00:00:00.000Z');
  beforeEach(() => {
    root = tempDir('baton-mail-');
    wf = sampleWorkflow(root, 'a'.repeat(40), {
      status: 'ACTIVE',
      phase: 'STAGE_ACTIVE',
      active_stage: 'implementation',
      roles: {
        worker: 'worker',
        reviewers: ['reviewer-a', 'reviewer-b'],
        validator: 'validator',
        controller: 'ctl',
      },
    });
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  /** Queues a handoff from `from` to the controller and moves it into the controller's inbox/new, as handoffd would. */
  async function deliverToController(
    from: string,
    headers: Record<string, string>,
    body = 'reply\n',
  ): Promise<string> {
    const path = await queueSystemHandoff(
      root,
      from,
      { to: ['ctl'], priority: '40', type: 'run_result', headers, body },
      now,
    );
    const box = mailboxOf(root, 'ctl');
    ensureMailbox(box);
    fs.renameSync(path, join(box.inboxNew, basename(path)));
    return basename(path);
  }

  it("generationOf counts the owner's retries; requestKey names run, kind, stage, cycle, generation and lane", () => {
    assert.equal(generationOf(wf), 0);
    assert.equal(
      requestKey(wf, 'work', 'implementation'),
      `${wf.run_id}/work/implementation/c1/g0`,
    );
    const later = {
      ...wf,
      review_cycle: 2,
      history: [...wf.history, retry, { ...retry, action: 'pause' }, retry],
    };
    assert.equal(generationOf(later), 2);
    assert.equal(
      requestKey(later, 'review', 'review', 'independent'),
      `${wf.run_id}/review/review/c2/g2/independent`,
    );
  });

  it('sendOnce queues the request from the controller with run_id, cycle and key headers, records the key, and never queues it twice', async () => {
    const phase = emptyPhase(now);
    const key = requestKey(wf, 'work', 'implementation');
    const request = {
      key,
      to: 'worker',
      type: 'run_stage' as const,
      headers: { stage: 'implementation', kind: 'work' },
      body: 'do it\n',
    };
    assert.equal(await sendOnce(root, wf, phase, request, now), true);
    assert.deepEqual(phase.sent, [key]);
    assert.equal(await sendOnce(root, wf, phase, request, now), false);
    const box = mailboxOf(root, 'ctl');
    const names = itemNamesIn(box.outbox);
    assert.equal(names.length, 1);
    assert.match(names[0]!, /_to_worker\.handoff$/);
    const item = await readItem(join(box.outbox, names[0]!));
    assert.deepEqual(
      {
        type: item.headers.type,
        from: item.headers.from,
        to: item.headers.to,
        priority: item.headers.priority,
        run_id: item.headers.run_id,
        cycle: item.headers.cycle,
        stage: item.headers.stage,
        kind: item.headers.kind,
        key: item.headers.key,
      },
      {
        type: 'run_stage',
        from: 'ctl',
        to: 'worker',
        priority: '40',
        run_id: wf.run_id,
        cycle: '1',
        stage: 'implementation',
        kind: 'work',
        key,
      },
    );
    assert.equal(item.body.toString('utf8'), 'do it\n');
    // a key found by the mailbox scan (a restarted controller) is not sent again either
    const restarted = emptyPhase(now);
    restarted.sent = queuedKeys(root, 'ctl');
    assert.equal(await sendOnce(root, wf, restarted, request, now), false);
    assert.equal(itemNamesIn(box.outbox).length, 1);
  });

  it('queuedKeys finds the keys in the outbox, sent/ and failed/, none for a role without a mailbox', async () => {
    assert.deepEqual(queuedKeys(root, 'ctl'), []);
    const phase = emptyPhase(now);
    for (const k of ['k-out', 'k-sent', 'k-failed'])
      await sendOnce(
        root,
        wf,
        phase,
        { key: k, to: 'worker', type: 'run_stage', headers: {}, body: 'x\n' },
        now,
      );
    const box = mailboxOf(root, 'ctl');
    const byKey = new Map(
      itemNamesIn(box.outbox).map((n) => [
        /\nkey: (\S+)\n/.exec(fs.readFileSync(join(box.outbox, n), 'utf8'))![1]!,
        n,
      ]),
    );
    for (const [k, dir] of [
      ['k-sent', box.sent],
      ['k-failed', box.failed],
    ] as const) {
      const name = byKey.get(k)!;
      fs.mkdirSync(dir, { recursive: true });
      fs.renameSync(join(box.outbox, name), join(dir, name));
    }
    assert.deepEqual(queuedKeys(root, 'ctl').sort(), ['k-failed', 'k-out', 'k-sent']);
  });

  it('nextReply claims the next waiting reply into in_process/, returns it again until completed, then the next; none when empty', async () => {
    assert.equal(await nextReply(root, 'ctl', now), undefined);
    const first = await deliverToController(
      'worker',
      { run_id: wf.run_id, kind: 'work' },
      'first\n',
    );
    const box = mailboxOf(root, 'ctl');
    const claimed = await nextReply(root, 'ctl', now);
    assert.equal(claimed!.name, first);
    assert.equal(claimed!.body.toString('utf8'), 'first\n');
    assert.equal(claimed!.headers.dequeued_at, '2030-01-01T00:00:00.000Z');
    assert.deepEqual(itemNamesIn(box.inboxNew), []);
    assert.deepEqual(itemNamesIn(box.inProcess), [first]);
    const second = await deliverToController(
      'reviewer-a',
      { run_id: wf.run_id, kind: 'review' },
      'second\n',
    );
    // a restart finds the one left in process before anything waiting
    assert.equal((await nextReply(root, 'ctl', now))!.name, first);
    await completeReply(root, 'ctl', claimed!, new Date('2030-01-01T00:00:09.000Z'));
    assert.deepEqual(itemNamesIn(box.inProcess), []);
    assert.deepEqual(itemNamesIn(box.completed), [first]);
    assert.equal(
      (await readItem(join(box.completed, first))).headers.completed_at,
      '2030-01-01T00:00:09.000Z',
    );
    const next = await nextReply(root, 'ctl', now);
    assert.equal(next!.name, second);
    await completeReply(root, 'ctl', next!, now);
    assert.equal(await nextReply(root, 'ctl', now), undefined);
    assert.deepEqual(itemNamesIn(box.completed).sort(), [first, second].sort());
  });
});
