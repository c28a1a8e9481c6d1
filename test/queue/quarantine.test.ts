import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { QuarantinedItem, readItem, UnusableItem } from '../../lib/queue/item.js';
import { ensureMailbox, mailboxAt, UnsafeMailbox, type Mailbox } from '../../lib/queue/mailbox.js';
import {
  quarantineItem,
  quarantineUndecodable,
  undecodableNamesIn,
} from '../../lib/queue/quarantine.js';
import { copyFixture, fixtureBytes } from '../support/fixtures.js';
import { placeItem, tempDir } from '../support/project.js';

describe('lib/queue/quarantine', () => {
  let dir: string;
  let box: Mailbox;
  before(() => (dir = tempDir()));
  beforeEach(() => ensureMailbox((box = mailboxAt(fs.mkdtempSync(join(dir, 'box-'))))));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** The UnusableItem that reading `path` raises. */
  async function problemOf(path: string): Promise<UnusableItem> {
    try {
      await readItem(path);
    } catch (err) {
      if (err instanceof UnusableItem) return err;
      throw err;
    }
    throw new Error(`${path} is usable`);
  }

  it('moves the entry from new/ into bad/ (created 0700 on first use), its reason on one printable line in <name>.error (0600)', async () => {
    const path = copyFixture(
      join(box.inboxNew, '00_ctl.handoff'),
      'handoffs',
      'unusable',
      'control-bytes.handoff',
    );
    const moved = quarantineItem(box, await problemOf(path));
    assert.ok(moved instanceof QuarantinedItem);
    assert.deepEqual([moved.path, moved.badPath], [path, join(box.bad, '00_ctl.handoff')]);
    assert.equal(fs.existsSync(path), false);
    assert.ok(
      fs
        .readFileSync(moved.badPath)
        .equals(fixtureBytes('handoffs', 'unusable', 'control-bytes.handoff')),
      'moved byte for byte',
    );
    assert.equal(
      fs.readFileSync(`${moved.badPath}.error`, 'utf8'),
      "unreadable header line '\\u001b]0;pwned\\u0007\\u001b[2J\\u001b[31mred\\u202etxt'\n",
    );
    assert.equal(fs.statSync(box.bad).mode & 0o777, 0o700);
    assert.equal(fs.statSync(`${moved.badPath}.error`).mode & 0o777, 0o600);
    assert.deepEqual(fs.readdirSync(box.bad).sort(), ['00_ctl.handoff', '00_ctl.handoff.error']);
  });

  it('moves symlinks, FIFOs and folders as they are, never following them', async () => {
    const target = await placeItem(dir, { id: 'elsewhere' }, 'bait\n', 'bait.handoff');
    fs.symlinkSync(target, join(box.inboxNew, '00_link.handoff'));
    execFileSync('mkfifo', ['-m', '600', join(box.inboxNew, '01_fifo.handoff')]);
    fs.mkdirSync(join(box.inboxNew, '02_folder.handoff'));
    for (const name of ['00_link.handoff', '01_fifo.handoff', '02_folder.handoff'])
      quarantineItem(box, await problemOf(join(box.inboxNew, name)));
    assert.deepEqual(fs.readdirSync(box.inboxNew), []);
    assert.equal(fs.readlinkSync(join(box.bad, '00_link.handoff')), target);
    assert.ok(fs.lstatSync(join(box.bad, '01_fifo.handoff')).isFIFO());
    assert.ok(fs.lstatSync(join(box.bad, '02_folder.handoff')).isDirectory());
    assert.equal(fs.readFileSync(join(box.bad, '00_link.handoff.error'), 'utf8'), 'is a symlink\n');
    assert.equal(
      fs.readFileSync(join(box.bad, '01_fifo.handoff.error'), 'utf8'),
      'not a regular file\n',
    );
    assert.equal(fs.readFileSync(target, 'utf8').endsWith('bait\n'), true);
  });

  it('keeps an earlier entry of the same name in bad/ (a dangling symlink too): the newcomer gets .<N>', async () => {
    fs.mkdirSync(box.bad);
    fs.symlinkSync(join(dir, 'nowhere'), join(box.bad, '00_x.handoff'));
    const path = copyFixture(
      join(box.inboxNew, '00_x.handoff'),
      'handoffs',
      'unusable',
      'no-id.handoff',
    );
    const moved = quarantineItem(box, await problemOf(path));
    assert.equal(moved.badPath, join(box.bad, '00_x.1.handoff'));
    assert.equal(fs.readFileSync(join(box.bad, '00_x.1.handoff.error'), 'utf8'), 'no id header\n');
    assert.ok(
      fs.lstatSync(join(box.bad, '00_x.handoff')).isSymbolicLink(),
      'the earlier entry is kept',
    );
  });

  it('replaces the .error and .error.tmp left by an interrupted quarantine of the same entry', async () => {
    const path = copyFixture(
      join(box.inboxNew, '00_x.handoff'),
      'handoffs',
      'unusable',
      'no-id.handoff',
    );
    fs.mkdirSync(box.bad);
    fs.writeFileSync(join(box.bad, '00_x.handoff.error'), 'half');
    fs.writeFileSync(join(box.bad, '00_x.handoff.error.tmp'), 'half written');
    quarantineItem(box, await problemOf(path));
    assert.deepEqual(fs.readdirSync(box.bad).sort(), ['00_x.handoff', '00_x.handoff.error']);
    assert.equal(fs.readFileSync(join(box.bad, '00_x.handoff.error'), 'utf8'), 'no id header\n');
  });

  it('refuses a bad/ that is a symlink, and anything not directly in new/; nothing moves', async () => {
    const path = copyFixture(
      join(box.inboxNew, '00_x.handoff'),
      'handoffs',
      'unusable',
      'no-id.handoff',
    );
    fs.symlinkSync(dir, box.bad);
    const problem = await problemOf(path);
    assert.throws(
      () => quarantineItem(box, problem),
      (e: unknown) => e instanceof UnsafeMailbox && /is a symlink/.test(e.message),
    );
    fs.rmSync(box.bad);
    const elsewhere = copyFixture(
      join(box.inProcess, '00_y.handoff'),
      'handoffs',
      'unusable',
      'no-id.handoff',
    );
    assert.throws(
      () => quarantineItem(box, new UnusableItem(elsewhere, 'no id header')),
      /only entries of/,
    );
    assert.ok(fs.existsSync(path) && fs.existsSync(elsewhere));
    assert.equal(fs.existsSync(box.bad), false);
  });

  it('an entry whose name is not valid UTF-8: found by its raw bytes and moved under its decoded name; other names are left alone', () => {
    const raw = (name: string, bad: number) =>
      Buffer.concat([Buffer.from(`${box.inboxNew}/50_`), Buffer.from([bad]), Buffer.from(name)]);
    fs.writeFileSync(raw('x.handoff', 0xff), 'first');
    fs.writeFileSync(raw('x.handoff', 0xfe), 'second');
    fs.writeFileSync(raw('notes.txt', 0xff), 'not an item');
    const names = undecodableNamesIn(box.inboxNew);
    assert.equal(names.length, 2);
    const moved = names.map((name) => quarantineUndecodable(box, name));
    assert.deepEqual(
      moved.map((m) => [m.path, m.reason, m.badPath]),
      [
        [
          join(box.inboxNew, '50_\ufffdx.handoff'),
          'name is not valid UTF-8',
          join(box.bad, '50_\ufffdx.handoff'),
        ],
        [
          join(box.inboxNew, '50_\ufffdx.handoff'),
          'name is not valid UTF-8',
          join(box.bad, '50_\ufffdx.1.handoff'),
        ],
      ],
    );
    assert.deepEqual(
      fs
        .readdirSync(box.bad)
        .map((n) => fs.readFileSync(join(box.bad, n), 'utf8'))
        .sort(),
      ['first', 'name is not valid UTF-8\n', 'name is not valid UTF-8\n', 'second'],
    );
    assert.deepEqual(fs.readdirSync(box.inboxNew, { encoding: 'buffer' }), [
      raw('notes.txt', 0xff).subarray(box.inboxNew.length + 1),
    ]);
    assert.deepEqual(undecodableNamesIn(box.inboxNew), []);
  });
});
