import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import {
  copyPlaces,
  deliverCopy,
  freeNameIn,
  idPlaces,
  moveOriginal,
} from '../../lib/queue/deliver.js';
import { ensureMailbox, mailboxAt, type Mailbox } from '../../lib/queue/mailbox.js';
import { tempDir } from '../support/project.js';

describe('lib/queue/deliver', () => {
  let dir: string;
  let box: Mailbox;
  const name = '50_20260101T000000Z_000001_from_coder_to_reviewer.handoff';
  beforeEach(() => {
    dir = tempDir();
    box = mailboxAt(join(dir, 'box'));
    ensureMailbox(box);
    fs.mkdirSync(join(dir, 'tmp'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  describe('deliverCopy', () => {
    it('writes the bytes through the temp file and links them into new/ (mode 0600, temp removed)', () => {
      const temp = join(dir, 'tmp', `reviewer.${name}`);
      const bytes = Buffer.from('---\nid: x\n---\nbody\r\n\n');
      assert.equal(deliverCopy(temp, bytes, box.inboxNew, name), true);
      const copy = join(box.inboxNew, name);
      assert.ok(fs.readFileSync(copy).equals(bytes));
      assert.equal(fs.statSync(copy).mode & 0o777, 0o600);
      assert.equal(fs.statSync(copy).nlink, 1, 'the temp link is gone');
      assert.deepEqual(fs.readdirSync(join(dir, 'tmp')), []);
      assert.deepEqual(fs.readdirSync(box.inboxNew), [name]);
    });

    it('replaces a leftover temp file of an interrupted delivery instead of failing', () => {
      const temp = join(dir, 'tmp', 'leftover');
      fs.writeFileSync(temp, 'a much longer half-written copy from a crash');
      assert.equal(deliverCopy(temp, Buffer.from('new'), box.inboxNew, name), true);
      assert.equal(fs.readFileSync(join(box.inboxNew, name), 'utf8'), 'new');
      assert.equal(fs.existsSync(temp), false);
    });

    it('refuses a name already taken in new/: returns false, keeps the existing file, removes the temp', () => {
      fs.writeFileSync(join(box.inboxNew, name), 'first copy', { mode: 0o600 });
      const temp = join(dir, 'tmp', 't');
      assert.equal(deliverCopy(temp, Buffer.from('second copy'), box.inboxNew, name), false);
      assert.equal(fs.readFileSync(join(box.inboxNew, name), 'utf8'), 'first copy');
      assert.equal(fs.existsSync(temp), false);
      assert.deepEqual(fs.readdirSync(box.inboxNew), [name]);
    });

    it('a dangling symlink at the name also counts as taken (never followed)', () => {
      const target = join(dir, 'elsewhere');
      fs.symlinkSync(target, join(box.inboxNew, name));
      assert.equal(deliverCopy(join(dir, 'tmp', 't'), Buffer.from('x'), box.inboxNew, name), false);
      assert.equal(fs.existsSync(target), false);
    });
  });

  describe('idPlaces', () => {
    const id = '20260101T120000Z_000001_from_coder';
    const put = (path: string) => {
      fs.mkdirSync(join(path, '..'), { recursive: true });
      fs.writeFileSync(path, 'x');
      return path;
    };

    it('finds every item name carrying the id, wherever in the inbox, under any name', () => {
      const found = [
        put(join(box.inboxNew, `40_${id}_to_reviewer_again.handoff`)),
        put(join(box.inProcess, `50_${id}_to_reviewer.handoff`)),
        put(join(box.inProcess, 'batch_20260101T120001Z_000001', `60_${id}_to_QA.handoff`)),
        put(join(box.inProcess, '.claiming-batch_20260101T120002Z_000002', `50_${id}_x.handoff`)),
        put(join(box.completed, `by-hand-${id}.handoff`)),
        put(join(box.completed, 'batch_20260101T130000Z_000003', `50_${id}_to_QA.handoff`)),
      ];
      put(join(box.inboxNew, '50_20260101T120000Z_000002_from_coder_to_reviewer.handoff'));
      put(join(box.outbox, `50_${id}_to_reviewer.handoff`));
      put(join(box.completed, `50_${id}_to_reviewer.error`));
      assert.deepEqual(idPlaces(box, id, true).sort(), found.sort());
      assert.deepEqual(idPlaces(box, id, false).sort(), found.sort());
    });

    it("not deep, completed batches claimed more than a day before the id's time are not listed; deep, every one is", () => {
      const old = put(
        join(box.completed, 'batch_20251230T000000Z_000001', `50_${id}_to_QA.handoff`),
      );
      const recent = put(
        join(box.completed, 'batch_20251231T130000Z_000002', `50_${id}_to_QA.handoff`),
      );
      assert.deepEqual(idPlaces(box, id, false), [recent]);
      assert.deepEqual(idPlaces(box, id, true).sort(), [old, recent].sort());
    });

    it("lists through the lister given (a cache of the daemon's), and a missing folder is nothing", () => {
      fs.rmSync(box.inbox, { recursive: true });
      const listed: string[] = [];
      const lister = {
        itemNames: (d: string) => (listed.push(d), []),
        entryNames: (d: string) => (listed.push(d), []),
      };
      assert.deepEqual(idPlaces(box, id, true, lister), []);
      assert.deepEqual(listed.sort(), [box.completed, box.completed, box.inboxNew].sort());
    });
  });

  describe('copyPlaces', () => {
    const put = (path: string) => {
      fs.mkdirSync(join(path, '..'), { recursive: true });
      fs.writeFileSync(path, 'x');
      return path;
    };

    it('is empty when the name is nowhere in the inbox', () => {
      put(join(box.inboxNew, 'other.handoff'));
      assert.deepEqual(copyPlaces(box, name, true), []);
    });

    it('finds new/, in_process/, its batch and hidden staging dirs, and completed/; completed batches only when deep', () => {
      const shallow = [
        put(join(box.inboxNew, name)),
        put(join(box.inProcess, name)),
        put(join(box.completed, name)),
        put(join(box.inProcess, 'batch_20260101T000000Z_000001', name)),
        put(join(box.inProcess, '.claiming-batch_20260101T000000Z_000002', name)),
      ];
      const batchDone = put(join(box.completed, 'batch_20260101T000000Z_000003', name));
      put(join(box.completed, 'not-a-batch', name));
      put(join(box.outbox, name));
      put(join(box.sent, name));
      assert.deepEqual(copyPlaces(box, name, false).sort(), [...shallow].sort());
      assert.deepEqual(copyPlaces(box, name, true).sort(), [...shallow, batchDone].sort());
    });

    it('lists entries of any type at the name (a directory or a symlink still takes the name)', () => {
      fs.mkdirSync(join(box.inboxNew, name));
      fs.symlinkSync('/nonexistent', join(box.completed, name));
      assert.deepEqual(
        copyPlaces(box, name, false).sort(),
        [join(box.inboxNew, name), join(box.completed, name)].sort(),
      );
    });

    it('works on a mailbox whose inbox folders do not exist yet', () => {
      assert.deepEqual(copyPlaces(mailboxAt(join(dir, 'fresh')), name, true), []);
    });
  });

  describe('freeNameIn', () => {
    it('is the name itself when free, else .1, .2, ... inserted before .handoff', () => {
      assert.equal(freeNameIn(box.sent, name), join(box.sent, name));
      fs.writeFileSync(join(box.sent, name), '');
      const stem = name.slice(0, -'.handoff'.length);
      assert.equal(freeNameIn(box.sent, name), join(box.sent, `${stem}.1.handoff`));
      fs.writeFileSync(join(box.sent, `${stem}.1.handoff`), '');
      assert.equal(freeNameIn(box.sent, name), join(box.sent, `${stem}.2.handoff`));
      fs.rmSync(join(box.sent, `${stem}.1.handoff`));
      assert.equal(
        freeNameIn(box.sent, name),
        join(box.sent, `${stem}.1.handoff`),
        'the smallest free N',
      );
    });

    it('appends .N to a name without .handoff', () => {
      fs.writeFileSync(join(box.failed, 'odd'), '');
      assert.equal(freeNameIn(box.failed, 'odd'), join(box.failed, 'odd.1'));
    });

    it('counts a dangling symlink as taken (a rename onto it would replace it)', () => {
      fs.symlinkSync(join(box.dir, 'nowhere'), join(box.failed, name));
      assert.equal(
        freeNameIn(box.failed, name),
        join(box.failed, `${name.slice(0, -'.handoff'.length)}.1.handoff`),
      );
    });
  });

  describe('moveOriginal', () => {
    it('moves the file to the target, creating its folder 0700', () => {
      const from = join(box.outbox, name);
      fs.writeFileSync(from, 'original');
      const target = join(dir, 'new-folder', 'sent', name);
      moveOriginal(from, target);
      assert.equal(fs.existsSync(from), false);
      assert.equal(fs.readFileSync(target, 'utf8'), 'original');
      assert.equal(fs.statSync(join(dir, 'new-folder', 'sent')).mode & 0o777, 0o700);
    });

    it('with freeNameIn, keeps both files on a clash', () => {
      fs.writeFileSync(join(box.sent, name), 'earlier');
      fs.writeFileSync(join(box.outbox, name), 'later');
      moveOriginal(join(box.outbox, name), freeNameIn(box.sent, name));
      assert.equal(fs.readFileSync(join(box.sent, name), 'utf8'), 'earlier');
      assert.equal(
        fs.readFileSync(join(box.sent, name.replace(/\.handoff$/, '.1.handoff')), 'utf8'),
        'later',
      );
    });
  });
});
