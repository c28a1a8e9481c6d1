import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { inspectMailbox } from '../../lib/queue/inspect.js';
import { STALE_TEMP_MS } from '../../lib/queue/tempFiles.js';
import { ensureMailbox, mailboxAt, type Mailbox } from '../../lib/queue/mailbox.js';
import { copyFixture } from '../support/fixtures.js';
import { placeItem, tempDir } from '../support/project.js';

describe('lib/queue/inspect', () => {
  let dir: string;
  let box: Mailbox;
  beforeEach(() => {
    dir = tempDir();
    box = mailboxAt(join(dir, 'box'));
    ensureMailbox(box);
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));
  const problems = async (now = Date.now()) =>
    (await inspectMailbox(box, now)).map(
      (f) => `${f.path.slice(box.dir.length + 1)}: ${f.problem}`,
    );

  it('finds nothing in a healthy mailbox (one item in process, a batch done, items waiting, fresh temp files)', async () => {
    await placeItem(box.inboxNew, {});
    await placeItem(box.inProcess, {});
    await placeItem(join(box.completed, 'batch_x_000001'), {});
    await placeItem(box.sent, {});
    fs.writeFileSync(join(box.outboxTmp, 'a.handoff.tmp'), '', { mode: 0o600 });
    assert.deepEqual(await problems(), []);
  });

  it('reports two items in process, ids in two places, symlinks, FIFOs, unusable items and loose modes', async () => {
    const a = await placeItem(box.inProcess, { id: 'same' });
    await placeItem(join(box.inProcess, 'batch_x_000001'), { id: 'other' });
    await placeItem(join(box.completed, 'batch_y_000001'), { id: 'same' }, 'x', '99_same.handoff');
    await placeItem(box.outbox, { id: 'out' });
    await placeItem(box.sent, { id: 'out' }, 'x', '99_out.handoff');
    fs.symlinkSync(a, join(box.inboxNew, '50_link.handoff'));
    execFileSync('mkfifo', [join(box.inboxNew, '50_fifo.handoff')]);
    copyFixture(join(box.failed, '50_junk.handoff'), 'handoffs', 'unusable', 'no-header.handoff');
    fs.writeFileSync(join(box.failed, '50_open.handoff'), '---\nid: open\n---\n', { mode: 0o644 });
    fs.chmodSync(box.sent, 0o755);
    const found = await problems();
    const expect = [
      /^inbox\/in_process: 2 items in process \(at most one allowed\): \S+\.handoff, batch_x_000001$/,
      /^inbox\/completed\/batch_y_000001\/99_same\.handoff: id same also at .*in_process\/.*\.handoff$/,
      /^sent\/99_out\.handoff: id out also at .*outbox\/.*\.handoff$/,
      /^inbox\/new\/50_link\.handoff: symlink in a mailbox folder \(never followed\)$/,
      /^inbox\/new\/50_fifo\.handoff: not a regular file$/,
      /^failed\/50_junk\.handoff: unusable item: /,
      /^failed\/50_open\.handoff: file readable by others, expected mode 600$/,
      /^sent: folder mode 755, expected 700$/,
    ];
    for (const re of expect)
      assert.ok(
        found.some((f) => re.test(f)),
        `${re}\n${found.join('\n')}`,
      );
    assert.equal(found.length, expect.length, found.join('\n'));
    assert.deepEqual((await inspectMailbox(box)).map((f) => f.kind).sort(), [
      'duplicate-id',
      'duplicate-id',
      'file-mode',
      'folder-mode',
      'not-regular',
      'several-in-process',
      'symlink',
      'unusable-item',
    ]);
  });

  it('a mailbox shared with a group (baton share): group access is fine, access by others is not', async () => {
    for (const d of [box.dir, box.inboxNew, box.sent, box.failed]) fs.chmodSync(d, 0o2770);
    const item = await placeItem(box.inboxNew, {});
    fs.chmodSync(item, 0o640);
    assert.deepEqual(await problems(), []);
    fs.chmodSync(box.sent, 0o2775);
    fs.writeFileSync(join(box.failed, '50_open.handoff'), '---\nid: open\n---\n', { mode: 0o644 });
    fs.chmodSync(join(box.failed, '50_open.handoff'), 0o660);
    assert.deepEqual((await problems()).sort(), [
      'failed/50_open.handoff: file open to others or writable by its group, expected mode 640',
      'sent: folder mode 2775, expected 2770',
    ]);
    const expected = (await inspectMailbox(box)).map((f) => f.expectedMode).sort();
    assert.deepEqual(expected, ['2770', '640']);
  });

  it('reports temp files older than 36 h and interrupted batch claims', async () => {
    const old = join(box.inProcess, '.50_a.handoff.tmp');
    fs.writeFileSync(old, '');
    fs.mkdirSync(join(box.inProcess, '.claiming-batch_z_000001'));
    const found = await inspectMailbox(box, Date.now() + STALE_TEMP_MS + 60_000);
    assert.deepEqual(
      found
        .map((f) => [f.path, f.problem, f.kind, f.staleTemp ?? false])
        .sort((x, y) => (x[0]! < y[0]! ? -1 : 1)),
      [
        [old, 'temp file older than 36 h', 'stale-temp', true],
        [
          join(box.inProcess, '.claiming-batch_z_000001'),
          'interrupted batch claim (the next ready_for_next rolls it back)',
          'interrupted-claim',
          false,
        ],
      ].sort((x, y) => (x[0]! < y[0]! ? -1 : 1)),
    );
  });
});
