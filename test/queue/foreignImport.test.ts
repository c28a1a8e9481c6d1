import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import {
  findImportedCopy,
  importFolderOf,
  importForeignItem,
  importTempOf,
  IMPORTED_SUFFIX,
  markImported,
} from '../../lib/queue/foreignImport.js';
import { readItem } from '../../lib/queue/item.js';
import { ensureMailbox, mailboxAt, type Mailbox } from '../../lib/queue/mailbox.js';
import { fixtureBytes } from '../support/fixtures.js';
import { placeItem, tempDir } from '../support/project.js';

const NAME = '40_20250614T093000Z_000003_from_coder_to_architect.handoff';
const ID = '20250614T093000Z_000003_from_coder';

describe('lib/queue/foreignImport', () => {
  // Each test gets a mailbox and, beside it, a foreign folder (as a reference mailbox would be).
  const made: string[] = [];
  let box: Mailbox;
  let foreign: string;
  beforeEach(() => {
    made.push(tempDir());
    [box, foreign] = [mailboxAt(join(made.at(-1)!, 'box')), join(made.at(-1)!, 'foreign')];
    ensureMailbox(box);
    fs.mkdirSync(foreign);
  });
  afterEach(() => {
    for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  });

  /** A legacy-format fixture in the foreign folder under NAME. */
  function original(): string {
    const path = join(foreign, NAME);
    fs.writeFileSync(
      path,
      fixtureBytes('reference-mail', 'four-roles', 'master', 'inbox', 'new', NAME),
      { mode: 0o600 },
    );
    return path;
  }

  for (const side of ['inbox', 'outbox'] as const) {
    it(`${side}: copies the bytes under the same name into ${side === 'inbox' ? 'inbox/new/' : 'outbox/'}, then marks the original <name>.imported`, async () => {
      const path = original();
      const bytes = fs.readFileSync(path);
      const done = await importForeignItem(box, side, await readItem(path));
      const target = join(importFolderOf(box, side), NAME);
      assert.deepEqual(done, { kind: 'copied', path: target });
      assert.ok(fs.readFileSync(target).equals(bytes));
      assert.equal(fs.statSync(target).mode & 0o777, 0o600);
      assert.deepEqual(fs.readdirSync(foreign), [`${NAME}${IMPORTED_SUFFIX}`]);
      assert.equal(fs.existsSync(importTempOf(box, side, NAME)), false);
    });
  }

  it('the inbox side finds the id wherever the copy has moved (in process, a completed batch): no second copy, the original marked', async () => {
    for (const place of [box.inProcess, join(box.completed, 'batch_20260101T000000Z_000001')]) {
      fs.rmSync(box.dir, { recursive: true });
      ensureMailbox(box);
      const path = original();
      const there = await placeItem(place, { id: ID }, 'x', NAME);
      assert.deepEqual(await importForeignItem(box, 'inbox', await readItem(path)), {
        kind: 'present',
        path: there,
      });
      assert.deepEqual(fs.readdirSync(box.inboxNew), []);
      assert.deepEqual(fs.readdirSync(foreign), [`${NAME}${IMPORTED_SUFFIX}`]);
      fs.rmSync(join(foreign, `${NAME}${IMPORTED_SUFFIX}`));
    }
  });

  it('the outbox side finds the id in sent/ or failed/, also under a .N clash name', async () => {
    const path = original();
    const sent = await placeItem(box.sent, { id: ID }, 'x', NAME.replace('.handoff', '.2.handoff'));
    await placeItem(box.sent, { id: 'another' }, 'x', NAME);
    assert.deepEqual(await findImportedCopy(box, 'outbox', await readItem(path)), {
      kind: 'present',
      path: sent,
    });
    assert.deepEqual(
      (await importForeignItem(box, 'outbox', await readItem(path))).kind,
      'present',
    );
    assert.deepEqual(
      fs.readdirSync(box.outbox).filter((n) => n.endsWith('.handoff')),
      [],
    );
  });

  it('a name taken by another id is a clash: nothing copied, the original left as it is (on the outbox side only in outbox/ itself)', async () => {
    const path = original();
    await placeItem(box.completed, { id: 'another' }, 'x', NAME);
    assert.deepEqual(await importForeignItem(box, 'inbox', await readItem(path)), {
      kind: 'clash',
      path: join(box.completed, NAME),
    });
    assert.deepEqual(fs.readdirSync(box.inboxNew), []);
    assert.ok(fs.existsSync(path));
    await placeItem(box.sent, { id: 'another' }, 'x', NAME);
    assert.equal(
      (await importForeignItem(box, 'outbox', await readItem(path))).kind,
      'copied',
      'sent/ keeps both files: no clash',
    );
    fs.renameSync(`${path}${IMPORTED_SUFFIX}`, path);
    fs.rmSync(join(box.outbox, NAME));
    fs.writeFileSync(join(box.outbox, NAME), 'no header', { mode: 0o600 });
    assert.deepEqual(await importForeignItem(box, 'outbox', await readItem(path)), {
      kind: 'clash',
      path: join(box.outbox, NAME),
    });
  });

  it('removes the temp file a kill left, whether the retry copies anew or finds the copy', async () => {
    const path = original();
    const temp = importTempOf(box, 'inbox', NAME);
    fs.writeFileSync(temp, 'half');
    assert.equal((await importForeignItem(box, 'inbox', await readItem(path))).kind, 'copied');
    assert.equal(fs.existsSync(temp), false);
    fs.renameSync(`${path}${IMPORTED_SUFFIX}`, path);
    fs.writeFileSync(temp, 'half');
    assert.equal((await importForeignItem(box, 'inbox', await readItem(path))).kind, 'present');
    assert.equal(fs.existsSync(temp), false);
  });

  it('an original gone meanwhile (another import finished it) is left alone', async () => {
    const path = original();
    const item = await readItem(path);
    fs.rmSync(path);
    assert.deepEqual(await importForeignItem(box, 'inbox', item), { kind: 'gone' });
    assert.deepEqual(fs.readdirSync(box.inboxNew), []);
  });

  it('markImported never overwrites: <name>.imported, then <name>.1.imported', () => {
    const a = join(foreign, 'x.handoff');
    fs.writeFileSync(a, 'one');
    assert.equal(markImported(a), `${a}.imported`);
    fs.writeFileSync(a, 'two');
    assert.equal(markImported(a), join(foreign, 'x.handoff.1.imported'));
    assert.equal(fs.readFileSync(`${a}.imported`, 'utf8'), 'one');
  });

  it('the temp files are a dot-file in new/ and a file in outbox/tmp/ (both temp files to readers and doctor)', () => {
    assert.equal(importTempOf(box, 'inbox', NAME), join(box.inboxNew, `.${NAME}.import.tmp`));
    assert.equal(importTempOf(box, 'outbox', NAME), join(box.outboxTmp, `${NAME}.import.tmp`));
  });
});
