import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { CommandFailure } from '../../lib/fsx/commandFailure.js';
import { completeCurrent, doneWithCurrent, readyForNext } from '../../lib/handoff/receive.js';
import { parseEnvelope } from '../../lib/queue/envelope.js';
import { type QuarantinedItem, type UnusableItem } from '../../lib/queue/item.js';
import { ensureMailbox } from '../../lib/queue/mailbox.js';
import { copyFixture } from '../support/fixtures.js';
import { itemsIn, makeProject, placeItem, snapshot, type Project } from '../support/project.js';

const T1 = new Date('2026-06-15T14:05:31.123Z');
const T2 = new Date('2026-06-15T15:00:00.456Z');

describe('lib/handoff/receive', () => {
  let p: Project;
  let skipped: UnusableItem[];
  const onSkip = (problem: UnusableItem) => {
    skipped.push(problem);
  };
  before(() => {
    p = makeProject();
  });
  after(() => p.cleanup());
  beforeEach(() => {
    skipped = [];
    for (const role of ['reviewer', 'QA']) {
      fs.rmSync(p.box(role).dir, { recursive: true, force: true });
      ensureMailbox(p.box(role));
    }
  });

  const env = (role: string) => ({ SWARMFORGE_ROLE: role });
  const ready = (role = 'reviewer', now = T1) => readyForNext(p.root, env(role), onSkip, now);
  const done = (role = 'reviewer', id?: string, now = T2) =>
    doneWithCurrent(p.root, env(role), id, onSkip, now);
  const headersOf = async (path: string) => (await parseEnvelope(fs.readFileSync(path))).headers;
  const nameOf = (path: string) => path.split('/').pop()!;

  function refused(kind: string, lines: string[]) {
    return (err: unknown) => {
      assert.ok(err instanceof CommandFailure, String(err));
      assert.deepEqual([err.kind, err.lines], [kind, lines]);
      return true;
    };
  }

  describe('task mode', () => {
    it('NO_TASK on an empty inbox (the mailbox is created on demand)', async () => {
      fs.rmSync(p.box('reviewer').dir, { recursive: true, force: true });
      const out = await ready();
      assert.ok(Buffer.isBuffer(out));
      assert.equal(out.toString(), 'NO_TASK\n');
      assert.ok(fs.statSync(p.box('reviewer').inboxNew).isDirectory());
    });

    it('NO_TASK on an idle inbox without taking the inbox lock; any entry in new/ or in_process/, or a long new/, takes it', async () => {
      const box = p.box('reviewer');
      const lockFiles = () =>
        fs.existsSync(box.inboxLock) ? fs.readdirSync(box.inboxLock).sort() : [];
      assert.equal((await ready()).toString(), 'NO_TASK\n');
      assert.deepEqual(lockFiles(), [], 'an idle inbox is answered without the lock');
      // A folder that held many entries keeps its size: it is not listed unlocked.
      for (let i = 0; i < 300; i++)
        fs.writeFileSync(join(box.inboxNew, `x${i}`.padEnd(60, 'x')), '');
      for (const name of fs.readdirSync(box.inboxNew)) fs.rmSync(join(box.inboxNew, name));
      assert.ok(fs.statSync(box.inboxNew).size > 4096);
      assert.equal((await ready()).toString(), 'NO_TASK\n');
      assert.notDeepEqual(lockFiles(), [], 'a long new/ is listed under the lock');
      fs.rmSync(box.inboxNew, { recursive: true });
      fs.mkdirSync(box.inboxNew);
      fs.rmSync(box.inboxLock, { recursive: true });
      // A batch being staged in in_process/ (an entry) takes the lock, which rolls it back.
      const staged = join(box.inProcess, '.claiming-x');
      fs.mkdirSync(staged);
      assert.equal((await ready()).toString(), 'NO_TASK\n');
      assert.notDeepEqual(lockFiles(), []);
      assert.equal(fs.existsSync(staged), false, 'rolled back under the lock');
    });

    it("claims the first item in name order, stamps dequeued_at with the call's instant, and prints it", async () => {
      const box = p.box('reviewer');
      const later = await placeItem(
        box.inboxNew,
        { priority: '50', type: 'git_handoff', task: 'task-2' },
        'second\n',
      );
      const first = await placeItem(
        box.inboxNew,
        { priority: '10', type: 'git_handoff', task: 'task-1' },
        'first\n',
      );
      const out = (await ready()).toString();
      const claimed = join(box.inProcess, nameOf(first));
      assert.equal(
        out,
        `TASK: ${claimed}\nFROM: coder\nTYPE: git_handoff\nPRIORITY: 10\nTASK_NAME: task-1\nPAYLOAD:\nfirst\n`,
      );
      assert.equal((await headersOf(claimed)).dequeued_at, T1.toISOString());
      assert.deepEqual(itemsIn(box.inboxNew), [nameOf(later)]);
    });

    it('resumes the item in process with the same text, keeping its dequeued_at', async () => {
      await placeItem(p.box('reviewer').inboxNew, {});
      const first = await ready('reviewer', T1);
      const again = await ready('reviewer', T2);
      assert.ok(again.equals(first));
      const [name] = itemsIn(p.box('reviewer').inProcess);
      assert.equal(
        (await headersOf(join(p.box('reviewer').inProcess, name!))).dequeued_at,
        T1.toISOString(),
      );
    });

    it('quarantines each unusable entry of new/ into inbox/bad/ (with its .error), reports it once and hands out the next usable one', async () => {
      const box = p.box('reviewer');
      fs.mkdirSync(box.inboxNew, { recursive: true });
      const noId = join(box.inboxNew, '00_a.handoff');
      copyFixture(noId, 'handoffs', 'unusable', 'no-id.handoff');
      const good = await placeItem(box.inboxNew, { priority: '20' }, 'good\n');
      const link = join(box.inboxNew, '01_link.handoff');
      fs.symlinkSync(good, link);
      const out = (await ready()).toString();
      assert.ok(out.startsWith(`TASK: ${join(box.inProcess, nameOf(good))}\n`), out);
      assert.deepEqual(
        skipped.map((s) => [s.path, s.reason, (s as QuarantinedItem).badPath]),
        [
          [noId, 'no id header', join(box.bad, '00_a.handoff')],
          [link, 'is a symlink', join(box.bad, '01_link.handoff')],
        ],
      );
      assert.deepEqual(itemsIn(box.inboxNew), []);
      assert.equal(fs.readFileSync(join(box.bad, '00_a.handoff.error'), 'utf8'), 'no id header\n');
      assert.equal(
        fs.readlinkSync(join(box.bad, '01_link.handoff')),
        good,
        'the symlink itself moved, not followed',
      );
      skipped = [];
      await ready();
      assert.deepEqual(skipped, [], 'reported once, at the first sight');
    });

    it('done_with_current quarantines too: it claims the next item after completing', async () => {
      const box = p.box('reviewer');
      const a = await placeItem(box.inboxNew, { priority: '10' });
      await ready();
      const junk = copyFixture(
        join(box.inboxNew, '20_junk.handoff'),
        'handoffs',
        'unusable',
        'no-header.handoff',
      );
      assert.equal(
        (await done()).toString(),
        `COMPLETED: ${join(box.completed, nameOf(a))}\nNO_TASK\n`,
      );
      assert.deepEqual(
        skipped.map((s) => [s.path, (s as QuarantinedItem).badPath]),
        [[junk, join(box.bad, '20_junk.handoff')]],
      );
    });

    it('done: stamps completed_at, moves the item to completed/, prints COMPLETED and then the next task', async () => {
      const box = p.box('reviewer');
      const a = await placeItem(box.inboxNew, { priority: '10' }, 'A\n');
      const b = await placeItem(box.inboxNew, { priority: '20' }, 'B');
      await ready();
      const out = (await done()).toString();
      const completed = join(box.completed, nameOf(a));
      assert.equal(
        out,
        `COMPLETED: ${completed}\nTASK: ${join(box.inProcess, nameOf(b))}\nFROM: coder\nTYPE: note\nPRIORITY: 20\nPAYLOAD:\nB\n`,
      );
      const h = await headersOf(completed);
      assert.deepEqual([h.dequeued_at, h.completed_at], [T1.toISOString(), T2.toISOString()]);
      assert.equal((await headersOf(join(box.inProcess, nameOf(b)))).dequeued_at, T2.toISOString());
      assert.equal(
        (await done()).toString(),
        `COMPLETED: ${join(box.completed, nameOf(b))}\nNO_TASK\n`,
      );
    });

    it('completeCurrent: done_with_current without claiming the next (the COMPLETED line only; the next item stays waiting)', async () => {
      const box = p.box('reviewer');
      const a = await placeItem(box.inboxNew, {
        id: '20260101T000000Z_000301_from_coder',
        priority: '10',
      });
      const b = await placeItem(box.inboxNew, { priority: '20' });
      await ready();
      const out = (
        await completeCurrent(
          p.root,
          env('reviewer'),
          '20260101T000000Z_000301_from_coder',
          onSkip,
          T2,
        )
      ).toString();
      assert.equal(out, `COMPLETED: ${join(box.completed, nameOf(a))}\n`);
      assert.equal(
        (await headersOf(join(box.completed, nameOf(a)))).completed_at,
        T2.toISOString(),
      );
      assert.deepEqual([itemsIn(box.inProcess), itemsIn(box.inboxNew)], [[], [nameOf(b)]]);
      assert.equal(
        (
          await completeCurrent(
            p.root,
            env('reviewer'),
            '20260101T000000Z_000301_from_coder',
            onSkip,
            T2,
          )
        ).toString(),
        `ALREADY_COMPLETED: ${join(box.completed, nameOf(a))}\n`,
      );
      await assert.rejects(
        completeCurrent(p.root, env('reviewer'), undefined, onSkip, T2),
        refused('state', ['NO_CURRENT_TASK']),
      );
    });

    it('done with an ID: the id or the file name of the item in process; any other is refused and nothing changes', async () => {
      const box = p.box('reviewer');
      const a = await placeItem(box.inboxNew, {
        id: '20260101T000000Z_000101_from_coder',
        priority: '10',
      });
      const b = await placeItem(box.inboxNew, {
        id: '20260101T000000Z_000102_from_coder',
        priority: '20',
      });
      await ready();
      const before = snapshot(box.dir);
      await assert.rejects(
        done('reviewer', '20260101T000000Z_000102_from_coder'),
        refused('refused', [
          'NOT_CURRENT_TASK: 20260101T000000Z_000102_from_coder is not in process.',
          `- ${join(box.inProcess, nameOf(a))}`,
        ]),
      );
      assert.deepEqual(snapshot(box.dir), before);
      assert.match(
        (await done('reviewer', '20260101T000000Z_000101_from_coder')).toString(),
        /^COMPLETED: /,
      );
      assert.match((await done('reviewer', nameOf(b))).toString(), /^COMPLETED: /);
      assert.deepEqual(itemsIn(box.completed), [nameOf(a), nameOf(b)]);
    });

    it('done with the ID of work already completed: ALREADY_COMPLETED, nothing about it changes, then what ready prints', async () => {
      const box = p.box('reviewer');
      const a = await placeItem(
        box.inboxNew,
        { id: '20260101T000000Z_000201_from_coder', priority: '10' },
        'A\n',
      );
      const b = await placeItem(
        box.inboxNew,
        { id: '20260101T000000Z_000202_from_coder', priority: '20' },
        'B\n',
      );
      await ready();
      const first = (await done('reviewer', '20260101T000000Z_000201_from_coder')).toString();
      const completedA = join(box.completed, nameOf(a));
      const taskB = `TASK: ${join(box.inProcess, nameOf(b))}\nFROM: coder\nTYPE: note\nPRIORITY: 20\nPAYLOAD:\nB\n`;
      assert.equal(first, `COMPLETED: ${completedA}\n${taskB}`);
      const before = snapshot(box.dir);
      for (const id of ['20260101T000000Z_000201_from_coder', nameOf(a)]) {
        assert.equal(
          (await done('reviewer', id, T1)).toString(),
          `ALREADY_COMPLETED: ${completedA}\n${taskB}`,
          'the repeated call shows the work in process again',
        );
      }
      assert.deepEqual(snapshot(box.dir), before, 'a repeated call changes nothing');
      assert.match((await done('reviewer', nameOf(b))).toString(), /^COMPLETED: .*\nNO_TASK\n$/);
      assert.equal(
        (await done('reviewer', nameOf(b))).toString(),
        `ALREADY_COMPLETED: ${join(box.completed, nameOf(b))}\nNO_TASK\n`,
      );
      await assert.rejects(
        done('reviewer', '20260101T000000Z_000299_from_coder'),
        refused('state', ['NO_CURRENT_TASK']),
        'an id never seen',
      );
    });

    it('a repeated done with the ID after the next item arrived claims it, as the first call would have', async () => {
      const box = p.box('reviewer');
      const a = await placeItem(box.inboxNew, {
        id: '20260101T000000Z_000301_from_coder',
        priority: '10',
      });
      await ready();
      assert.equal(
        (await done('reviewer', nameOf(a))).toString(),
        `COMPLETED: ${join(box.completed, nameOf(a))}\nNO_TASK\n`,
      );
      const b = await placeItem(
        box.inboxNew,
        { id: '20260101T000000Z_000302_from_coder', priority: '20' },
        'B\n',
      );
      assert.equal(
        (await done('reviewer', nameOf(a))).toString(),
        `ALREADY_COMPLETED: ${join(box.completed, nameOf(a))}\nTASK: ${join(box.inProcess, nameOf(b))}\nFROM: coder\nTYPE: note\nPRIORITY: 20\nPAYLOAD:\nB\n`,
      );
    });

    it('done with nothing in process: NO_CURRENT_TASK (kind state, exit 1)', async () => {
      await assert.rejects(done(), refused('state', ['NO_CURRENT_TASK']));
    });

    it('refusals list every item in process, sorted, and change nothing', async () => {
      const box = p.box('reviewer');
      const y = await placeItem(box.inProcess, {}, 'y', '50_y.handoff');
      const x = await placeItem(box.inProcess, {}, 'x', '50_x.handoff');
      const before = snapshot(box.dir);
      await assert.rejects(
        ready(),
        refused('refused', [
          'AMBIGUOUS_TASK_STATE: multiple tasks are already in process.',
          `- ${x}`,
          `- ${y}`,
        ]),
      );
      await assert.rejects(
        done(),
        refused('refused', [
          'AMBIGUOUS_TASK_STATE: multiple tasks are in process.',
          `- ${x}`,
          `- ${y}`,
        ]),
      );
      assert.deepEqual(snapshot(box.dir), before);
    });

    it('a batch in process refuses both commands in task mode', async () => {
      const box = p.box('reviewer');
      await placeItem(join(box.inProcess, 'batch_20260101T000000Z_000001'), {});
      const dir = join(box.inProcess, 'batch_20260101T000000Z_000001');
      await assert.rejects(
        ready(),
        refused('refused', [
          'TASK_IN_PROCESS_IS_BATCH: a batch is in process but this role receives single tasks.',
          `- ${dir}`,
        ]),
      );
      await assert.rejects(
        done(),
        refused('refused', [
          'CURRENT_WORK_IS_BATCH: a batch is in process but this role receives single tasks.',
          `- ${dir}`,
        ]),
      );
    });
  });

  describe('batch mode', () => {
    it("claims every waiting item with the first item's priority into one batch, stamped with the call's instant", async () => {
      const box = p.box('QA');
      const a = await placeItem(box.inboxNew, { priority: '30' }, 'A\n');
      const b = await placeItem(box.inboxNew, { priority: '30', task: 't' }, 'B\n');
      const c = await placeItem(box.inboxNew, { priority: '40' }, 'C\n');
      const out = (await ready('QA')).toString();
      const dir = join(box.inProcess, 'batch_20260615T140531Z_000001');
      assert.equal(
        out,
        `BATCH: ${dir}\nCOUNT: 2\nPRIORITY: 30\n` +
          `\nBATCH_ITEM: 1\nTASK: ${join(dir, nameOf(a))}\nFROM: coder\nTYPE: note\nPRIORITY: 30\nPAYLOAD:\nA\n` +
          `\nBATCH_ITEM: 2\nTASK: ${join(dir, nameOf(b))}\nFROM: coder\nTYPE: note\nPRIORITY: 30\nTASK_NAME: t\nPAYLOAD:\nB\n`,
      );
      for (const x of [a, b])
        assert.equal((await headersOf(join(dir, nameOf(x)))).dequeued_at, T1.toISOString());
      assert.deepEqual(itemsIn(box.inboxNew), [nameOf(c)]);
      assert.ok(
        (await ready('QA', T2)).equals(Buffer.from(out)),
        'a second call resumes the same batch',
      );
    });

    it('quarantines unusable entries of new/ before claiming the batch; they never join it', async () => {
      const box = p.box('QA');
      const junk = copyFixture(
        join(box.inboxNew, '30_junk.handoff'),
        'handoffs',
        'unusable',
        'unclosed.handoff',
      );
      const a = await placeItem(box.inboxNew, { priority: '30' });
      const out = (await ready('QA')).toString();
      assert.match(out, /^BATCH: .*\nCOUNT: 1\n/);
      assert.deepEqual(itemsIn(join(box.inProcess, 'batch_20260615T140531Z_000001')), [nameOf(a)]);
      assert.deepEqual(
        skipped.map((s) => [s.path, (s as QuarantinedItem).badPath]),
        [[junk, join(box.bad, '30_junk.handoff')]],
      );
      assert.equal(
        fs.readFileSync(join(box.bad, '30_junk.handoff.error'), 'utf8'),
        'front matter is not closed by a --- line\n',
      );
    });

    it('rolls back an interrupted batch claim (a staging directory) before claiming', async () => {
      const box = p.box('QA');
      const staged = await placeItem(
        join(box.inProcess, '.claiming-batch_20260101T000000Z_000001'),
        { priority: '30' },
        'S\n',
      );
      const waiting = await placeItem(box.inboxNew, { priority: '30' }, 'W\n');
      const out = (await ready('QA')).toString();
      assert.match(out, /^BATCH: .*\nCOUNT: 2\n/);
      assert.deepEqual(fs.readdirSync(box.inProcess), ['batch_20260615T140531Z_000001']);
      assert.deepEqual(
        itemsIn(join(box.inProcess, 'batch_20260615T140531Z_000001')),
        [nameOf(staged), nameOf(waiting)].sort(),
      );
    });

    it('done: one completed_at on every item, the batch moved, COMPLETED per item, COMPLETED_BATCH, then the next', async () => {
      const box = p.box('QA');
      const a = await placeItem(box.inboxNew, { priority: '30' });
      const b = await placeItem(box.inboxNew, { priority: '30' });
      await ready('QA');
      const completed = join(box.completed, 'batch_20260615T140531Z_000001');
      const out = (await done('QA')).toString();
      assert.equal(
        out,
        `COMPLETED: ${join(completed, nameOf(a))}\nCOMPLETED: ${join(completed, nameOf(b))}\nCOMPLETED_BATCH: ${completed}\nNO_TASK\n`,
      );
      for (const x of [a, b])
        assert.equal((await headersOf(join(completed, nameOf(x)))).completed_at, T2.toISOString());
      assert.deepEqual(fs.readdirSync(box.inProcess), []);
    });

    it("done with the name of a completed batch, or the id of one of its items: ALREADY_COMPLETED with its path, then ready's output", async () => {
      const box = p.box('QA');
      const a = await placeItem(box.inboxNew, {
        id: '20260101T000000Z_000401_from_coder',
        priority: '30',
      });
      await ready('QA');
      const batch = 'batch_20260615T140531Z_000001';
      assert.match(
        (await done('QA', batch)).toString(),
        /^COMPLETED: .*\nCOMPLETED_BATCH: .*\nNO_TASK\n$/,
      );
      const before = snapshot(box.dir);
      assert.equal(
        (await done('QA', batch)).toString(),
        `ALREADY_COMPLETED: ${join(box.completed, batch)}\nNO_TASK\n`,
      );
      assert.equal(
        (await done('QA', '20260101T000000Z_000401_from_coder')).toString(),
        `ALREADY_COMPLETED: ${join(box.completed, batch, nameOf(a))}\nNO_TASK\n`,
      );
      assert.deepEqual(snapshot(box.dir), before);
      await assert.rejects(
        done('QA', 'batch_20260615T140531Z_000009'),
        refused('state', ['NO_CURRENT_BATCH']),
      );
    });

    it('done with an ID that is not the batch in process nor completed: NOT_CURRENT_TASK listing the batch', async () => {
      const box = p.box('QA');
      await placeItem(box.inboxNew, { priority: '30' });
      await ready('QA');
      await assert.rejects(
        done('QA', 'nope'),
        refused('refused', [
          'NOT_CURRENT_TASK: nope is not in process.',
          `- ${join(box.inProcess, 'batch_20260615T140531Z_000001')}`,
        ]),
      );
    });

    it('done with nothing in process: NO_CURRENT_BATCH; a single file in process is refused', async () => {
      await assert.rejects(done('QA'), refused('state', ['NO_CURRENT_BATCH']));
      const one = await placeItem(p.box('QA').inProcess, {});
      await assert.rejects(
        ready('QA'),
        refused('refused', [
          'TASK_IN_PROCESS_IS_SINGLE: a single task is in process but this role receives batches.',
          `- ${one}`,
        ]),
      );
      await assert.rejects(
        done('QA'),
        refused('refused', [
          'CURRENT_WORK_IS_SINGLE_TASK: a single task is in process but this role receives batches.',
          `- ${one}`,
        ]),
      );
    });
  });

  it('an unknown receive mode in roles.tsv: INVALID_RECEIVE_MODE (kind refused) for both commands', async () => {
    const rolesPath = join(p.root, '.swarmforge', 'roles.tsv');
    const original = fs.readFileSync(rolesPath, 'utf8');
    try {
      fs.writeFileSync(rolesPath, original.replace(/^(reviewer\t.*\t)task$/m, '$1weird'));
      await assert.rejects(
        ready(),
        refused('refused', ['INVALID_RECEIVE_MODE: weird for role reviewer']),
      );
      await assert.rejects(
        done(),
        refused('refused', ['INVALID_RECEIVE_MODE: weird for role reviewer']),
      );
    } finally {
      fs.writeFileSync(rolesPath, original);
    }
  });

  it('environment checks come first: unset role, unknown role', async () => {
    await assert.rejects(
      readyForNext(p.root, {}, onSkip),
      refused('environment', ['Set SWARMFORGE_ROLE.']),
    );
    await assert.rejects(
      doneWithCurrent(p.root, env('ghost'), undefined, onSkip),
      refused('environment', ['Unknown role: ghost', 'Known roles: coder, reviewer, QA.']),
    );
  });
});
