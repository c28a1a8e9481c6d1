import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import {
  ensureFolder,
  ensureMailbox,
  mailboxAt,
  MAILBOX_FOLDERS,
  UnsafeMailbox,
} from '../../lib/queue/mailbox.js';
import { tempDir } from '../support/project.js';

describe('lib/queue/mailbox', () => {
  it('lays out the Maildir folders of a mailbox', () => {
    const box = mailboxAt('/r/box');
    assert.deepEqual(
      [box.outbox, box.outboxTmp, box.sent, box.failed, box.inboxNew, box.inProcess, box.completed],
      [
        '/r/box/outbox',
        '/r/box/outbox/tmp',
        '/r/box/sent',
        '/r/box/failed',
        '/r/box/inbox/new',
        '/r/box/inbox/in_process',
        '/r/box/inbox/completed',
      ],
    );
    assert.equal(box.bad, '/r/box/inbox/bad');
  });

  it('inbox/bad/ is created on first use only (ensureFolder), not with the mailbox', () => {
    const dir = tempDir();
    try {
      const box = mailboxAt(join(dir, 'box'));
      ensureMailbox(box);
      assert.equal(fs.existsSync(box.bad), false);
      ensureFolder(box.bad);
      ensureFolder(box.bad);
      assert.equal(fs.statSync(box.bad).mode & 0o777, 0o700);
      fs.rmdirSync(box.bad);
      fs.symlinkSync(dir, box.bad);
      assert.throws(
        () => ensureFolder(box.bad),
        (e: unknown) => e instanceof UnsafeMailbox && /is a symlink/.test(e.message),
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('creates every folder 0700 and refuses a folder that is a symlink or a file', () => {
    const dir = tempDir();
    try {
      const box = mailboxAt(join(dir, 'box'));
      ensureMailbox(box);
      for (const key of MAILBOX_FOLDERS) assert.equal(fs.statSync(box[key]).mode & 0o777, 0o700);
      fs.rmSync(box.inboxNew, { recursive: true });
      fs.symlinkSync(dir, box.inboxNew);
      assert.throws(
        () => ensureMailbox(box),
        (e: unknown) => e instanceof UnsafeMailbox && /is a symlink/.test(e.message),
      );
      fs.rmSync(box.inboxNew);
      fs.writeFileSync(box.inboxNew, '');
      assert.throws(() => ensureMailbox(box), /is not a directory/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
