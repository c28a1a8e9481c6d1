import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { ensureMailbox, mailboxAt, type Mailbox } from '../../lib/queue/mailbox.js';
import {
  isStaleTemp,
  isTempEntry,
  isTempName,
  removeStaleOutboxTemps,
  STALE_TEMP_MS,
} from '../../lib/queue/tempFiles.js';
import { tempDir } from '../support/project.js';

describe('lib/queue/tempFiles', () => {
  let dir: string;
  let box: Mailbox;
  beforeEach(() => {
    dir = tempDir();
    box = mailboxAt(join(dir, 'box'));
    ensureMailbox(box);
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('temp names: *.tmp, *.draft and lock drafts tmp.<pid>.*; items and other names are not', () => {
    for (const name of [
      '50_a.handoff.tmp',
      '.50_a.handoff.tmp',
      'x.handoff.draft',
      'tmp.4242.k3j',
      'sequence.tmp',
    ])
      assert.ok(isTempName(name), name);
    for (const name of ['50_a.handoff', 'a.handoff.error', 'tmp', 'tmp.x.y', 'lock.3', 'notes.txt'])
      assert.ok(!isTempName(name), name);
  });

  it('every entry of outbox/tmp/ is a temp entry; elsewhere only temp names', () => {
    assert.ok(isTempEntry(box, box.outboxTmp, '50_a.handoff'));
    assert.ok(isTempEntry(box, box.outboxTmp, 'anything'));
    assert.ok(!isTempEntry(box, box.inboxNew, '50_a.handoff'));
    assert.ok(isTempEntry(box, box.inboxNew, '.50_a.handoff.tmp'));
  });

  it('a temp file is stale once it is more than 36 h old', () => {
    assert.equal(STALE_TEMP_MS, 36 * 3600 * 1000);
    const now = Date.now();
    assert.ok(!isStaleTemp(now - STALE_TEMP_MS, now));
    assert.ok(isStaleTemp(now - STALE_TEMP_MS - 1, now));
  });

  it('removeStaleOutboxTemps removes only the stale entries of outbox/tmp/ and returns them', () => {
    const old = (name: string, dirPath = box.outboxTmp) => {
      const path = join(dirPath, name);
      fs.writeFileSync(path, 'x');
      const t = new Date(Date.now() - STALE_TEMP_MS - 3600_000);
      fs.utimesSync(path, t, t);
      return path;
    };
    const stale = [old('50_a.handoff.tmp'), old('50_a.handoff.draft'), old('odd-name')];
    const fresh = join(box.outboxTmp, '50_b.handoff.tmp');
    fs.writeFileSync(fresh, 'x');
    const elsewhere = old('.50_c.handoff.tmp', box.inboxNew);
    assert.deepEqual(removeStaleOutboxTemps(box, Date.now()).sort(), stale.sort());
    assert.deepEqual(fs.readdirSync(box.outboxTmp), ['50_b.handoff.tmp']);
    assert.ok(fs.existsSync(elsewhere), "other folders are doctor --fix's business");
    assert.deepEqual(
      removeStaleOutboxTemps(mailboxAt(join(dir, 'none')), Date.now()),
      [],
      'a missing outbox/tmp is nothing to do',
    );
  });
});
