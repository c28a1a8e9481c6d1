import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { readItemsIn } from '../../lib/queue/claim.js';
import { parseEnvelope } from '../../lib/queue/envelope.js';
import {
  completedItemPaths,
  findCompleted,
  finishBatch,
  finishItem,
} from '../../lib/queue/finish.js';
import { ensureMailbox, mailboxAt, type Mailbox } from '../../lib/queue/mailbox.js';
import { durableStepsOf } from '../support/durability.js';
import { placeItem, tempDir } from '../support/project.js';

describe('lib/queue/finish', () => {
  let dir: string;
  let box: Mailbox;
  const now = new Date('2026-06-15T15:00:00.000Z');
  beforeEach(() => {
    dir = tempDir();
    box = mailboxAt(join(dir, 'box'));
    ensureMailbox(box);
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('completes one item: completed_at stamped, moved to completed/', async () => {
    await placeItem(box.inProcess, {}, 'keep\r\n');
    const [item] = await readItemsIn(box.inProcess, () => undefined);
    const target = await finishItem(box, item!, now);
    assert.equal(target, join(box.completed, item!.name));
    const env = await parseEnvelope(fs.readFileSync(target));
    assert.equal(env.headers.completed_at, '2026-06-15T15:00:00.000Z');
    assert.equal(env.body.toString(), 'keep\r\n');
    assert.deepEqual(fs.readdirSync(box.inProcess), []);
  });

  it('completes a batch with one completed_at, reusing one already written by an interrupted attempt', async () => {
    const batchDir = join(box.inProcess, 'batch_x_000001');
    await placeItem(batchDir, {});
    await placeItem(batchDir, { completed_at: '2026-06-15T14:59:00.000Z' });
    const items = await readItemsIn(batchDir, () => undefined);
    const target = await finishBatch(box, batchDir, 'batch_x_000001', items, now);
    const stamps = await Promise.all(
      fs
        .readdirSync(target)
        .map(
          async (n) => (await parseEnvelope(fs.readFileSync(join(target, n)))).headers.completed_at,
        ),
    );
    assert.deepEqual(stamps, ['2026-06-15T14:59:00.000Z', '2026-06-15T14:59:00.000Z']);
    assert.equal(fs.existsSync(batchDir), false);
  });

  it('a completion fsyncs the stamped file, then completed/ and in_process/ once each after the move', async () => {
    await placeItem(box.inProcess, {});
    const [item] = await readItemsIn(box.inProcess, () => undefined);
    const steps = await durableStepsOf(box.dir, () => finishItem(box, item!, now));
    const n = item!.name;
    assert.deepEqual(steps, [
      `fsync inbox/in_process/.${n}.tmp`,
      `rename inbox/in_process/.${n}.tmp -> inbox/in_process/${n}`,
      `rename inbox/in_process/${n} -> inbox/completed/${n}`,
      'fsync inbox/completed',
      'fsync inbox/in_process',
    ]);
  });

  it('a batch completion fsyncs each stamped file, the batch folder once, then both folders of the move', async () => {
    const batchDir = join(box.inProcess, 'batch_x_000001');
    for (let i = 0; i < 3; i++) await placeItem(batchDir, {});
    const items = await readItemsIn(batchDir, () => undefined);
    const steps = await durableStepsOf(box.dir, () =>
      finishBatch(box, batchDir, 'batch_x_000001', items, now),
    );
    const fsyncs = steps.filter((s) => s.startsWith('fsync '));
    assert.deepEqual(fsyncs, [
      ...items.map((i) => `fsync inbox/in_process/batch_x_000001/.${i.name}.tmp`),
      'fsync inbox/in_process/batch_x_000001',
      'fsync inbox/completed',
      'fsync inbox/in_process',
    ]);
  });

  it('lists every completed item, batch directories included', async () => {
    const single = await placeItem(box.completed, {});
    const batched = await placeItem(join(box.completed, 'batch_x_000001'), {});
    fs.mkdirSync(join(box.completed, 'not-a-batch'));
    assert.deepEqual(completedItemPaths(box).sort(), [single, batched].sort());
  });

  it('findCompleted: a completed batch by name, a completed item by file name or id (confirmed by its header), in completed/ or a completed batch', async () => {
    const loose = await placeItem(box.completed, { id: '20260101T000000Z_000001_from_coder' });
    const batch = join(box.completed, 'batch_20260101T000000Z_000001');
    const inBatch = await placeItem(batch, { id: '20260101T000000Z_000002_from_coder' });
    await placeItem(
      box.completed,
      { id: 'other' },
      'x',
      '50_20260101T000000Z_000003_from_coder_to_QA.handoff',
    );
    assert.equal(await findCompleted(box, 'batch_20260101T000000Z_000001'), batch);
    assert.equal(await findCompleted(box, '20260101T000000Z_000001_from_coder'), loose);
    assert.equal(await findCompleted(box, loose.split('/').pop()!), loose);
    assert.equal(await findCompleted(box, '20260101T000000Z_000002_from_coder'), inBatch);
    assert.equal(
      await findCompleted(box, '20260101T000000Z_000003_from_coder'),
      undefined,
      'a name is not authority: the header says another id',
    );
    assert.equal(await findCompleted(box, 'batch_20260101T000000Z_000009'), undefined);
    assert.equal(await findCompleted(box, '../completed'), undefined);
    fs.rmSync(box.completed, { recursive: true });
    assert.equal(
      await findCompleted(box, '20260101T000000Z_000001_from_coder'),
      undefined,
      'no completed/ at all',
    );
  });
});
