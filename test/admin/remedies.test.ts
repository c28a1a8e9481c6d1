import assert from 'node:assert/strict';
import { mailboxOf } from '../../lib/project/layout.js';
import {
  DAEMON_DOWN_REMEDY,
  mailboxRemedy,
  receiveModeRemedy,
  rolesTableRemedy,
  unconfiguredMailboxRemedy,
} from '../../lib/admin/remedies.js';
import { type Finding, type MailboxProblem } from '../../lib/queue/inspect.js';

describe('lib/admin/remedies', () => {
  const box = mailboxOf('/p', 'QA');
  const finding = (kind: MailboxProblem, path = '/p/x'): Finding => ({ kind, path, problem: 'p' });

  it('names a step for a person for every kind of mailbox problem, with the role and paths it concerns', () => {
    const kinds: Record<MailboxProblem, string> = {
      'folder-mode': "chmod 700 '/p/x'",
      'file-mode': "chmod 600 '/p/x'",
      symlink:
        'remove the link (Baton never follows one); to queue the file it points to, move that file here instead',
      'not-regular': 'move it out of the mailbox folder: only regular *.handoff files are items',
      'unusable-item':
        'readers skip it: give it a readable header with an id line, or move it out of the mailbox',
      'duplicate-id':
        'one handoff sits in two places: keep the copy furthest along (completed/, in_process/, new/; sent/ or failed/, outbox/) and move the other out of the mailbox',
      'interrupted-claim':
        'run ready_for_next as QA (SWARMFORGE_ROLE=QA ready_for_next): it rolls the claim back',
      'stale-temp': 'baton doctor --fix deletes it (a crash left it; nothing reads it)',
      'several-in-process':
        'finish the item QA works on with done_with_current and move the others back into /p/.swarmforge/handoffs/QA/inbox/new/ (ready_for_next offers them again)',
    };
    for (const [kind, remedy] of Object.entries(kinds))
      assert.equal(mailboxRemedy(finding(kind as MailboxProblem), 'QA', box), remedy, kind);
  });

  it('a mode problem in a shared mailbox: the chmod keeps the group its access', () => {
    const shared = (kind: MailboxProblem, expectedMode: string) =>
      mailboxRemedy({ ...finding(kind), expectedMode }, 'QA', box);
    assert.equal(shared('folder-mode', '2770'), "chmod 2770 '/p/x'");
    assert.equal(shared('file-mode', '640'), "chmod 640 '/p/x'");
  });

  it('the role table, a receive mode and a removed role are fixed in swarmforge.conf, then baton init', () => {
    assert.equal(
      rolesTableRemedy('/p'),
      'fix /p/swarmforge/swarmforge.conf and run baton init: it rewrites roles.tsv',
    );
    assert.equal(
      receiveModeRemedy('/p', 'QA'),
      'set the mode of QA to task or batch in /p/swarmforge/swarmforge.conf and run baton init',
    );
    assert.equal(
      unconfiguredMailboxRemedy('/p', 'tester'),
      "add a window line for tester back to /p/swarmforge/swarmforge.conf and run baton init, or move its waiting items by hand into a configured role's inbox/new/",
    );
    assert.equal(DAEMON_DOWN_REMEDY, 'start handoffd: baton daemon start (or baton up)');
  });
});
