import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import {
  claimBatch,
  claimItem,
  inProcessOf,
  pathTaken,
  readItemsIn,
  readWaitingItems,
  rollBackStagedBatches,
  stampIfMissing,
  uniqueBatchName,
} from '../../lib/queue/claim.js';
import { parseEnvelope } from '../../lib/queue/envelope.js';
import { QuarantinedItem, readItem, type UnusableItem } from '../../lib/queue/item.js';
import { ensureMailbox, mailboxAt, type Mailbox } from '../../lib/queue/mailbox.js';
import { durableStepsOf } from '../support/durability.js';
import { copyFixture } from '../support/fixtures.js';
import { placeItem, tempDir } from '../support/project.js';

describe('lib/queue/claim', () => {
  let dir: string;
  let box: Mailbox;
  const now = new Date('2026-06-15T14:05:31.123Z');
  const skipped: string[] = [];
  const onSkip = (e: { path: string }) => skipped.push(e.path);
  beforeEach(() => {
    dir = tempDir();
    box = mailboxAt(join(dir, 'box'));
    ensureMailbox(box);
    skipped.length = 0;
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('reads usable items in queue order, reporting the others, up to a limit', async () => {
    await placeItem(box.inboxNew, { priority: '20' });
    copyFixture(join(box.inboxNew, '00_bad.handoff'), 'handoffs', 'unusable', 'no-header.handoff');
    await placeItem(box.inboxNew, { priority: '10' });
    const all = await readItemsIn(box.inboxNew, onSkip);
    assert.deepEqual(
      all.map((i) => i.headers.priority),
      ['10', '20'],
    );
    assert.deepEqual(skipped, [join(box.inboxNew, '00_bad.handoff')]);
    assert.equal((await readItemsIn(box.inboxNew, onSkip, 1)).length, 1);
  });

  it('readWaitingItems quarantines each unusable entry of new/ it meets into bad/ and reports it; usable items stay', async () => {
    const reports: UnusableItem[] = [];
    copyFixture(join(box.inboxNew, '00_bad.handoff'), 'handoffs', 'unusable', 'no-header.handoff');
    const first = await placeItem(box.inboxNew, { priority: '10' });
    copyFixture(join(box.inboxNew, '20_later.handoff'), 'handoffs', 'unusable', 'no-id.handoff');
    const [item] = await readWaitingItems(box, (p) => reports.push(p), 1);
    assert.equal(item!.path, first);
    assert.deepEqual(
      reports.map((r) => [r instanceof QuarantinedItem, r.path, (r as QuarantinedItem).badPath]),
      [[true, join(box.inboxNew, '00_bad.handoff'), join(box.bad, '00_bad.handoff')]],
      'only what it met before the limit',
    );
    assert.deepEqual(
      fs.readdirSync(box.inboxNew).sort(),
      [first.split('/').pop(), '20_later.handoff'].sort(),
    );
    assert.equal((await readWaitingItems(box, (p) => reports.push(p))).length, 1);
    assert.deepEqual(fs.readdirSync(box.bad).sort(), [
      '00_bad.handoff',
      '00_bad.handoff.error',
      '20_later.handoff',
      '20_later.handoff.error',
    ]);
    assert.equal(
      fs.readFileSync(join(box.bad, '20_later.handoff.error'), 'utf8'),
      'no id header\n',
    );
  });

  it('readWaitingItems: a name that is not valid UTF-8 (listed as one that opens nothing) is quarantined, then new/ is read again', async () => {
    const reports: UnusableItem[] = [];
    fs.writeFileSync(
      Buffer.concat([
        Buffer.from(`${box.inboxNew}/00_`),
        Buffer.from([0xc3, 0x28]),
        Buffer.from('.handoff'),
      ]),
      'x',
    );
    const good = await placeItem(box.inboxNew, { priority: '50' });
    const items = await readWaitingItems(box, (r) => reports.push(r));
    assert.deepEqual(
      items.map((i) => i.path),
      [good],
    );
    assert.deepEqual(
      reports.map((r) => [r.reason, (r as QuarantinedItem).badPath]),
      [['name is not valid UTF-8', join(box.bad, '00_\ufffd(.handoff')]],
    );
  });

  it('claims an item: moved to in_process/ with dequeued_at, gone from new/', async () => {
    const path = await placeItem(box.inboxNew, {});
    const [item] = await readItemsIn(box.inboxNew, onSkip);
    const claimed = await claimItem(box, item!, now);
    assert.equal(claimed.path, join(box.inProcess, item!.name));
    assert.equal(fs.existsSync(path), false);
    assert.equal(
      (await parseEnvelope(fs.readFileSync(claimed.path))).headers.dequeued_at,
      '2026-06-15T14:05:31.123Z',
    );
    assert.deepEqual(inProcessOf(box), { files: [item!.name], batches: [] });
  });

  it('a claim fsyncs the stamped file, then in_process/ once for the move and the stamp, then new/', async () => {
    await placeItem(box.inboxNew, {});
    const [item] = await readItemsIn(box.inboxNew, onSkip);
    const steps = await durableStepsOf(box.dir, () => claimItem(box, item!, now));
    const n = item!.name;
    assert.deepEqual(steps, [
      `rename inbox/new/${n} -> inbox/in_process/${n}`,
      `fsync inbox/in_process/.${n}.tmp`,
      `rename inbox/in_process/.${n}.tmp -> inbox/in_process/${n}`,
      'fsync inbox/in_process',
      'fsync inbox/new',
    ]);
  });

  it('a batch claim fsyncs each stamped file, then the batch folder and in_process/ once each', async () => {
    for (let i = 0; i < 3; i++) await placeItem(box.inboxNew, {});
    const items = await readItemsIn(box.inboxNew, onSkip);
    const name = uniqueBatchName(box, '20260615T140531Z');
    const steps = await durableStepsOf(box.dir, () => claimBatch(box, items, name, now));
    const fsyncs = steps.filter((s) => s.startsWith('fsync '));
    assert.deepEqual(fsyncs, [
      'fsync inbox/in_process', // the staging folder created
      `fsync inbox/in_process/.claiming-${name}`,
      'fsync inbox/new',
      ...items.map((i) => `fsync inbox/in_process/${name}/.${i.name}.tmp`),
      `fsync inbox/in_process/${name}`,
      'fsync inbox/in_process',
    ]);
  });

  it('stamps only a missing header', async () => {
    const item = await readItem(await placeItem(box.inboxNew, { dequeued_at: 'earlier' }));
    assert.equal(
      (await stampIfMissing(item, 'dequeued_at', 'later')).headers.dequeued_at,
      'earlier',
    );
    await stampIfMissing(item, 'completed_at', 'later');
    assert.equal((await readItem(item.path)).headers.completed_at, 'later');
  });

  it('claims a batch with one rename and one dequeued_at for all items', async () => {
    await placeItem(box.inboxNew, {});
    await placeItem(box.inboxNew, {});
    const items = await readItemsIn(box.inboxNew, onSkip);
    const name = uniqueBatchName(box, '20260615T140531Z');
    assert.equal(name, 'batch_20260615T140531Z_000001');
    const batch = await claimBatch(box, items, name, now);
    assert.deepEqual(inProcessOf(box), { files: [], batches: [name] });
    assert.deepEqual(fs.readdirSync(box.inboxNew), []);
    for (const item of batch.items)
      assert.equal(
        (await parseEnvelope(fs.readFileSync(item.path))).headers.dequeued_at,
        '2026-06-15T14:05:31.123Z',
      );
    fs.mkdirSync(join(box.completed, 'batch_20260615T140531Z_000002'));
    assert.equal(uniqueBatchName(box, '20260615T140531Z'), 'batch_20260615T140531Z_000003');
  });

  it('rolls a staged (unpublished) batch claim back into new/', async () => {
    const a = await placeItem(box.inboxNew, {});
    const staging = join(box.inProcess, '.claiming-batch_x_000001');
    fs.mkdirSync(staging);
    fs.renameSync(a, join(staging, a.split('/').pop()!));
    rollBackStagedBatches(box);
    assert.deepEqual(fs.readdirSync(box.inProcess), []);
    assert.ok(fs.existsSync(a));
  });

  it('pathTaken sees files, dirs and dangling symlinks', () => {
    fs.symlinkSync(join(dir, 'nowhere'), join(dir, 'dangling'));
    assert.ok(pathTaken(join(dir, 'dangling')));
    assert.ok(pathTaken(box.inbox));
    assert.ok(!pathTaken(join(dir, 'missing')));
  });
});
