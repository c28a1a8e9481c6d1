// Black-box tests of the built done_with_current in task and batch mode (protocol §7).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { parseEnvelope } from '../../lib/queue/envelope.js';
import {
  BIN_DIR,
  itemsIn,
  makeProject,
  placeItem,
  runBin,
  snapshot,
  tempDir,
  type Project,
} from '../support/project.js';
import { spawnSync } from 'node:child_process';

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe('done_with_current (built bin)', () => {
  let p: Project;
  beforeEach(() => {
    p = makeProject();
  });
  afterEach(() => p.cleanup());
  const done = (role = 'reviewer', args: string[] = []) =>
    runBin('done_with_current', args, { role, cwd: p.root });
  const ready = (role = 'reviewer') => runBin('ready_for_next', [], { role, cwd: p.root });

  describe('task mode', () => {
    it('with nothing in process: NO_CURRENT_TASK on stderr, exit 1', () => {
      const r = done();
      assert.deepEqual([r.code, r.stdout, r.stderr], [1, '', 'NO_CURRENT_TASK\n']);
    });

    it('completes the task (completed_at stamped), prints COMPLETED, then claims and prints the next', async () => {
      const box = p.box('reviewer');
      const a = await placeItem(box.inboxNew, { priority: '10' }, 'A\n');
      const b = await placeItem(box.inboxNew, { priority: '20' }, 'B\n');
      ready();
      const r = done();
      const completed = join(box.completed, a.split('/').pop()!);
      const next = join(box.inProcess, b.split('/').pop()!);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(
        r.stdout,
        `COMPLETED: ${completed}\nTASK: ${next}\nFROM: coder\nTYPE: note\nPRIORITY: 20\nPAYLOAD:\nB\n`,
      );
      const env = await parseEnvelope(fs.readFileSync(completed));
      assert.match(env.headers.completed_at!, ISO);
      assert.match(env.headers.dequeued_at!, ISO);
      assert.ok(env.headers.completed_at! >= env.headers.dequeued_at!);
      const last = done();
      assert.equal(
        last.stdout,
        `COMPLETED: ${join(box.completed, b.split('/').pop()!)}\nNO_TASK\n`,
      );
    });

    it('with an ID: completes only the item in process (by id or file name), else NOT_CURRENT_TASK exit 2 listing what is in process, nothing changed', async () => {
      const box = p.box('reviewer');
      const a = await placeItem(box.inboxNew, { id: 'id-a', priority: '10' });
      const b = await placeItem(box.inboxNew, { id: 'id-b', priority: '20' });
      ready();
      const before = snapshot(p.root);
      const wrong = done('reviewer', ['id-b']);
      assert.deepEqual(
        [wrong.code, wrong.stdout, wrong.stderr],
        [
          2,
          '',
          `NOT_CURRENT_TASK: id-b is not in process.\n- ${join(box.inProcess, a.split('/').pop()!)}\n`,
        ],
      );
      assert.deepEqual(snapshot(p.root), before);
      assert.equal(done('reviewer', ['id-a']).code, 0);
      const byName = done('reviewer', [b.split('/').pop()!]);
      assert.equal(byName.code, 0, byName.stderr);
      assert.equal(itemsIn(box.completed).length, 2);
      assert.deepEqual(itemsIn(box.completed), [a, b].map((x) => x.split('/').pop()!).sort());
    });

    it('a repeated done_with_current <ID> of completed work: ALREADY_COMPLETED: <path>, exit 0, nothing changed, then what ready_for_next prints', async () => {
      const box = p.box('reviewer');
      const a = await placeItem(
        box.inboxNew,
        { id: '20260101T000000Z_000001_from_coder', priority: '10' },
        'A\n',
      );
      const b = await placeItem(
        box.inboxNew,
        { id: '20260101T000000Z_000002_from_coder', priority: '20' },
        'B\n',
      );
      ready();
      const first = done('reviewer', ['20260101T000000Z_000001_from_coder']);
      const completedA = join(box.completed, a.split('/').pop()!);
      const taskB = `TASK: ${join(box.inProcess, b.split('/').pop()!)}\nFROM: coder\nTYPE: note\nPRIORITY: 20\nPAYLOAD:\nB\n`;
      assert.deepEqual([first.code, first.stdout], [0, `COMPLETED: ${completedA}\n${taskB}`]);
      const before = snapshot(p.root);
      const again = done('reviewer', ['20260101T000000Z_000001_from_coder']);
      assert.deepEqual(
        [again.code, again.stdout, again.stderr],
        [0, `ALREADY_COMPLETED: ${completedA}\n${taskB}`, ''],
      );
      assert.deepEqual(
        snapshot(p.root),
        before,
        'nothing changed: the work in process is shown again, not completed',
      );
      done('reviewer', [b.split('/').pop()!]);
      const last = done('reviewer', [b.split('/').pop()!]);
      assert.deepEqual(
        [last.code, last.stdout, last.stderr],
        [0, `ALREADY_COMPLETED: ${join(box.completed, b.split('/').pop()!)}\nNO_TASK\n`, ''],
      );
      const unknown = done('reviewer', ['20260101T000000Z_000009_from_coder']);
      assert.deepEqual(
        [unknown.code, unknown.stderr],
        [1, 'NO_CURRENT_TASK\n'],
        'an id never completed is still NO_CURRENT_TASK',
      );
    });

    it('refusals: batch in process, several tasks, completed name taken; exit 2, nothing changed', async () => {
      const box = p.box('reviewer');
      const batch = join(box.inProcess, 'batch_20260101T000000Z_000001');
      await placeItem(batch, {});
      let before = snapshot(p.root);
      let r = done();
      assert.deepEqual(
        [r.code, r.stderr],
        [
          2,
          `CURRENT_WORK_IS_BATCH: a batch is in process but this role receives single tasks.\n- ${batch}\n`,
        ],
      );
      assert.deepEqual(snapshot(p.root), before);
      fs.rmSync(batch, { recursive: true });
      const one = await placeItem(box.inProcess, { priority: '10' });
      const two = await placeItem(box.inProcess, { priority: '20' });
      before = snapshot(p.root);
      r = done();
      assert.deepEqual(
        [r.code, r.stderr],
        [2, `AMBIGUOUS_TASK_STATE: multiple tasks are in process.\n- ${one}\n- ${two}\n`],
      );
      assert.deepEqual(snapshot(p.root), before);
      fs.rmSync(two);
      const clash = join(box.completed, one.split('/').pop()!);
      fs.writeFileSync(clash, 'earlier');
      before = snapshot(p.root);
      r = done();
      assert.deepEqual(
        [r.code, r.stderr],
        [2, `AMBIGUOUS_TASK_STATE: completed file already exists: ${clash}\n- ${one}\n`],
      );
      assert.deepEqual(
        snapshot(p.root),
        before,
        'no header is stamped before the move is known to succeed',
      );
    });
  });

  describe('batch mode', () => {
    it('with nothing in process: NO_CURRENT_BATCH on stderr, exit 1', () => {
      const r = done('QA');
      assert.deepEqual([r.code, r.stderr], [1, 'NO_CURRENT_BATCH\n']);
    });

    it('stamps one completed_at on every file, moves the batch, prints each file and the batch, then the next batch', async () => {
      const box = p.box('QA');
      const a = await placeItem(box.inboxNew, { priority: '10' }, 'A\n');
      const b = await placeItem(box.inboxNew, { priority: '10' }, 'B\n');
      const c = await placeItem(box.inboxNew, { priority: '30' }, 'C\n');
      const claimed = ready('QA');
      const batchName = /^BATCH: .*\/(batch_\S+)\n/.exec(claimed.stdout)![1]!;
      const r = done('QA');
      assert.equal(r.code, 0, r.stderr);
      const completedDir = join(box.completed, batchName);
      const nextBatch = fs.readdirSync(box.inProcess).filter((n) => n.startsWith('batch_'));
      assert.equal(nextBatch.length, 1);
      const nextDir = join(box.inProcess, nextBatch[0]!);
      assert.equal(
        r.stdout,
        `COMPLETED: ${join(completedDir, a.split('/').pop()!)}\nCOMPLETED: ${join(completedDir, b.split('/').pop()!)}\nCOMPLETED_BATCH: ${completedDir}\n` +
          `BATCH: ${nextDir}\nCOUNT: 1\nPRIORITY: 30\n\nBATCH_ITEM: 1\nTASK: ${join(nextDir, c.split('/').pop()!)}\nFROM: coder\nTYPE: note\nPRIORITY: 30\nPAYLOAD:\nC\n`,
      );
      const stamps = await Promise.all(
        itemsIn(completedDir).map(
          async (n) =>
            (await parseEnvelope(fs.readFileSync(join(completedDir, n)))).headers.completed_at,
        ),
      );
      assert.match(stamps[0]!, ISO);
      assert.equal(new Set(stamps).size, 1);
      assert.equal(done('QA').stdout.endsWith('NO_TASK\n'), true);
    });

    it('a repeated done_with_current <batch name>: ALREADY_COMPLETED: <completed batch>, exit 0; another name: NOT_CURRENT_TASK listing the batch', async () => {
      const box = p.box('QA');
      await placeItem(box.inboxNew, { priority: '10' });
      const batchName = /^BATCH: .*\/(batch_\S+)\n/.exec(ready('QA').stdout)![1]!;
      assert.equal(done('QA', [batchName]).code, 0);
      const again = done('QA', [batchName]);
      assert.deepEqual(
        [again.code, again.stdout, again.stderr],
        [0, `ALREADY_COMPLETED: ${join(box.completed, batchName)}\nNO_TASK\n`, ''],
      );
      await placeItem(box.inboxNew, { priority: '10' });
      const next = /^BATCH: (.*)\n/.exec(ready('QA').stdout)![1]!;
      const wrong = done('QA', ['batch_20260101T000000Z_000042']);
      assert.deepEqual(
        [wrong.code, wrong.stdout, wrong.stderr],
        [2, '', `NOT_CURRENT_TASK: batch_20260101T000000Z_000042 is not in process.\n- ${next}\n`],
      );
    });

    it('refusals: single file in process, several batches, empty batch, completed batch name taken', async () => {
      const box = p.box('QA');
      const single = await placeItem(box.inProcess, {});
      let r = done('QA');
      assert.deepEqual(
        [r.code, r.stderr],
        [
          2,
          `CURRENT_WORK_IS_SINGLE_TASK: a single task is in process but this role receives batches.\n- ${single}\n`,
        ],
      );
      fs.rmSync(single);
      const b1 = join(box.inProcess, 'batch_20260101T000000Z_000001');
      const b2 = join(box.inProcess, 'batch_20260101T000000Z_000002');
      await placeItem(b1, {});
      await placeItem(b2, {});
      r = done('QA');
      assert.deepEqual(
        [r.code, r.stderr],
        [2, `AMBIGUOUS_TASK_STATE: multiple batches are in process.\n- ${b1}\n- ${b2}\n`],
      );
      fs.rmSync(b2, { recursive: true });
      fs.mkdirSync(join(box.completed, 'batch_20260101T000000Z_000001'));
      const before = snapshot(p.root);
      r = done('QA');
      assert.deepEqual(
        [r.code, r.stderr],
        [
          2,
          `AMBIGUOUS_TASK_STATE: completed batch already exists: ${join(box.completed, 'batch_20260101T000000Z_000001')}\n- ${b1}\n`,
        ],
      );
      assert.deepEqual(snapshot(p.root), before);
      fs.rmSync(join(box.completed, 'batch_20260101T000000Z_000001'), { recursive: true });
      fs.rmSync(b1, { recursive: true });
      fs.mkdirSync(b1);
      r = done('QA');
      assert.deepEqual(
        [r.code, r.stderr],
        [2, `AMBIGUOUS_TASK_STATE: batch contains no tasks: ${b1}\n- ${b1}\n`],
      );
    });
  });

  it('the .sh aliases name the same bins and work when installed under that name', async () => {
    const pkg = JSON.parse(fs.readFileSync('package.json', 'utf8')) as {
      bin: Record<string, string>;
    };
    for (const name of ['swarm_handoff', 'ready_for_next', 'done_with_current']) {
      assert.equal(pkg.bin[`${name}.sh`], pkg.bin[name]);
    }
    const binDir = tempDir();
    try {
      fs.symlinkSync(join(BIN_DIR, 'ready_for_next.js'), join(binDir, 'ready_for_next.sh'));
      await placeItem(p.box('reviewer').inboxNew, {});
      const r = spawnSync(join(binDir, 'ready_for_next.sh'), [], {
        cwd: p.root,
        env: { ...process.env, SWARMFORGE_ROLE: 'reviewer' },
      });
      assert.equal(r.status, 0, r.stderr.toString());
      assert.match(r.stdout.toString(), /^TASK: /);
    } finally {
      fs.rmSync(binDir, { recursive: true, force: true });
    }
  });
});
