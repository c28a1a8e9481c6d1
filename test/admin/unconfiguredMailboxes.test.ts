import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { mailboxOf } from '../../lib/project/layout.js';
import { unconfiguredMailboxes } from '../../lib/admin/unconfiguredMailboxes.js';
import { ensureMailbox } from '../../lib/queue/mailbox.js';
import { placeItem, tempDir } from '../support/project.js';
import { placeLegacyItem, referenceFolderOf } from '../support/referenceMail.js';

describe('lib/admin/unconfiguredMailboxes', () => {
  let root: string;
  beforeEach(() => {
    root = tempDir();
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  it('lists, in name order, the mailboxes of roles not configured that hold outbox, waiting or in-process items, with their counts', async () => {
    for (const role of ['coder', 'zed', 'old', 'quiet']) ensureMailbox(mailboxOf(root, role));
    await placeItem(mailboxOf(root, 'coder').inboxNew, {});
    await placeItem(mailboxOf(root, 'zed').inProcess, {});
    await placeItem(mailboxOf(root, 'old').outbox, {});
    await placeItem(join(mailboxOf(root, 'old').inProcess, 'batch_20260101T000000Z_000001'), {});
    await placeItem(join(mailboxOf(root, 'old').inProcess, 'batch_20260101T000000Z_000001'), {});
    await placeItem(mailboxOf(root, 'quiet').completed, {});
    await placeItem(mailboxOf(root, 'quiet').failed, {});
    assert.deepEqual(unconfiguredMailboxes(root, new Set(['coder'])), [
      { role: 'old', dir: mailboxOf(root, 'old').dir, outbox: 1, new: 0, in_process: 2 },
      { role: 'zed', dir: mailboxOf(root, 'zed').dir, outbox: 0, new: 0, in_process: 1 },
    ]);
  });

  it("never takes the reference scripts' folders beside the role mailboxes (outbox/, inbox/, sent/, failed/), nor other names, for a role", () => {
    const item = { id: 'i', from: 'coder', recipient: 'coder' };
    for (const folder of ['outbox', 'inbox/new', 'inbox/in_process', 'sent', 'failed'] as const)
      placeLegacyItem(referenceFolderOf(root, folder), '50_i.handoff', item);
    fs.mkdirSync(join(referenceFolderOf(root, 'outbox'), 'tmp'));
    fs.mkdirSync(join(root, '.swarmforge', 'handoffs', 'sequence.lock'));
    fs.mkdirSync(join(root, '.swarmforge', 'handoffs', 'bad_name', 'inbox', 'new'), {
      recursive: true,
    });
    fs.writeFileSync(
      join(root, '.swarmforge', 'handoffs', 'bad_name', 'inbox', 'new', '50_x.handoff'),
      'x',
    );
    assert.deepEqual(unconfiguredMailboxes(root, new Set()), []);
  });

  it('a project without handoffs/ has none', () => {
    assert.deepEqual(unconfiguredMailboxes(root, new Set()), []);
  });
});
