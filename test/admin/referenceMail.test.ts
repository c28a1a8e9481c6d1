import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { rolesOf } from '../../lib/admin/init.js';
import {
  pendingReferenceMail,
  referenceWorktrees,
  remedyForPending,
  roleOfReferenceItem,
  type ReferenceFolder,
} from '../../lib/admin/referenceMail.js';
import { type Item } from '../../lib/queue/item.js';
import { parseConfig } from '../../lib/handoff/config.js';
import { fixtureText } from '../support/fixtures.js';
import { tempDir } from '../support/project.js';
import {
  fourRolesImports,
  placeProblemItem,
  referenceFolderOf,
  worktreeOf,
  writeFourRolesReferenceMail,
} from '../support/referenceMail.js';

/** An item with these headers (only the headers matter to the rules). */
function itemWith(headers: Record<string, string>): Item {
  return {
    headers: { id: 'i', ...headers },
    body: Buffer.alloc(0),
    legacy: true,
    path: '/x/50_i.handoff',
    name: '50_i.handoff',
    id: 'i',
  };
}

/** The roles of a conf text at ROOT `root`. */
function rolesFrom(root: string, conf: string) {
  const parsed = parseConfig(conf, 'swarmforge.conf');
  assert.ok(parsed.ok);
  return rolesOf(root, parsed.windows);
}

describe('lib/admin/referenceMail', () => {
  describe('roleOfReferenceItem', () => {
    const cases: [string, ReferenceFolder, Record<string, string>, string[], string][] = [
      [
        'outbox: the from role',
        'outbox',
        { from: 'coder', to: 'QA' },
        ['architect', 'coder'],
        'coder',
      ],
      [
        'outbox: a from of another worktree',
        'outbox',
        { from: 'QA' },
        ['coder'],
        "from 'QA' is not a role of this worktree (roles here: coder)",
      ],
      [
        'outbox: no from, even with a single role here',
        'outbox',
        { to: 'QA' },
        ['coder'],
        'no from header names its sender (roles of this worktree: coder)',
      ],
      [
        'inbox: the recipient',
        'inbox/new',
        { recipient: 'coder', to: 'coder,architect' },
        ['architect', 'coder'],
        'coder',
      ],
      [
        'inbox: a recipient of another worktree, even with a single role here',
        'inbox/new',
        { recipient: 'tester' },
        ['QA'],
        "recipient 'tester' is not a role of this worktree (roles here: QA)",
      ],
      [
        'inbox: no recipient, the single role here',
        'inbox/in_process',
        { to: 'someone' },
        ['QA'],
        'QA',
      ],
      [
        'inbox: no recipient, the one role of to that works here',
        'inbox/new',
        { to: 'QA,coder' },
        ['architect', 'coder'],
        'coder',
      ],
      [
        'inbox: no recipient, to names both roles here',
        'inbox/new',
        { to: 'architect,coder' },
        ['architect', 'coder'],
        'roles architect, coder share this worktree and no recipient header says whose it is',
      ],
      [
        'no role works here',
        'inbox/new',
        { recipient: 'coder' },
        [],
        'no configured role works in this worktree',
      ],
    ];
    for (const [what, folder, headers, rolesHere, expected] of cases) {
      it(what, () => {
        const decided = roleOfReferenceItem(itemWith(headers), folder, rolesHere);
        assert.deepEqual(
          decided,
          rolesHere.includes(expected) ? { role: expected } : { problem: expected },
        );
      });
    }
  });

  describe('on disk (a fresh ROOT each)', () => {
    let root = '';
    beforeEach(() => {
      root = tempDir();
    });
    afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

    it('referenceWorktrees: ROOT first (even with no role there), then each configured worktree once', () => {
      assert.deepEqual(
        referenceWorktrees(root, rolesFrom(root, 'window a x one\nwindow b x two\n')),
        [
          { worktree: root, rolesHere: [] },
          { worktree: join(root, '.worktrees', 'one'), rolesHere: ['a'] },
          { worktree: join(root, '.worktrees', 'two'), rolesHere: ['b'] },
        ],
      );
      assert.deepEqual(
        referenceWorktrees(root, rolesFrom(root, 'window a x master\nwindow b x none\n')),
        [{ worktree: root, rolesHere: ['a', 'b'] }],
      );
    });

    it('lists the pending items of the four-role pack (outbox, new, in process and its batches; not completed or sent), each with its role and side', async () => {
      for (const name of ['master', 'coder', 'review', 'qa'])
        writeFourRolesReferenceMail(root, name);
      const roles = rolesFrom(
        root,
        fixtureText('packs', 'four-roles', 'swarmforge', 'swarmforge.conf'),
      );
      const pending = await pendingReferenceMail(root, roles);
      assert.deepEqual(
        pending.map((m) => [m.path, m.kind, m.kind === 'importable' ? m.role : '']),
        fourRolesImports(root).map((e) => [e.from, 'importable', e.role]),
      );
      assert.deepEqual(
        pending.map((m) => (m.kind === 'importable' ? m.side : '')),
        ['outbox', 'inbox', 'outbox', 'inbox', 'inbox', 'inbox', 'inbox'],
      );
      assert.equal(
        remedyForPending(root, pending[0]!),
        `run baton init (or baton up): it imports the item into ${join(root, '.swarmforge', 'handoffs', 'architect', 'outbox')}/`,
      );
    });

    it('marks ambiguous and unusable items (a symlink too) with their problem and a remedy, and ignores marked originals and temp files', async () => {
      const roles = rolesFrom(root, 'window architect x master\nwindow coder x master\n');
      const shared = placeProblemItem(root, 'inbox/new', 'no-recipient.handoff', '50_a.handoff');
      const noId = placeProblemItem(root, 'outbox', 'no-id.handoff', '50_b.handoff');
      const link = join(referenceFolderOf(root, 'inbox/new'), '50_c.handoff');
      fs.symlinkSync(shared, link);
      fs.writeFileSync(join(referenceFolderOf(root, 'inbox/new'), '50_d.handoff.imported'), 'done');
      fs.mkdirSync(join(referenceFolderOf(root, 'outbox'), 'tmp'));
      fs.writeFileSync(
        join(referenceFolderOf(root, 'outbox'), 'tmp', '50_e.handoff.tmp'),
        'partial',
      );
      const pending = await pendingReferenceMail(root, roles);
      assert.deepEqual(
        pending.map((m) => [m.path, m.kind, m.kind === 'importable' ? m.role : m.problem]),
        [
          [noId, 'unusable', 'unusable item: no id header'],
          [
            shared,
            'ambiguous',
            'roles architect, coder share this worktree and no recipient header says whose it is',
          ],
          [link, 'unusable', 'unusable item: is a symlink'],
        ],
      );
      assert.deepEqual(
        pending.map((m) => remedyForPending(root, m)),
        [
          'give it a readable header with an id line (or move it out of the folder), then run baton init',
          'set its recipient header to the role it belongs to (one of architect, coder), then run baton init',
          'give it a readable header with an id line (or move it out of the folder), then run baton init',
        ],
      );
    });

    it('mail in a worktree no role works in: ROOT when every role has its own worktree', async () => {
      const path = placeProblemItem(root, 'inbox/new', 'foreign-recipient.handoff', '50_a.handoff');
      const [mail] = await pendingReferenceMail(root, rolesFrom(root, 'window coder x coder\n'));
      assert.deepEqual(
        [mail!.path, mail!.kind, mail!.kind === 'importable' ? '' : mail!.problem],
        [path, 'ambiguous', 'no configured role works in this worktree'],
      );
      assert.match(
        remedyForPending(root, mail!),
        /^configure the role that owns it on this worktree in swarmforge\/swarmforge\.conf/,
      );
      assert.equal(worktreeOf(root, 'master'), root);
    });
  });
});
