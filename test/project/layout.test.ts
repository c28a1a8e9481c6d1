// The on-disk layout (protocol §1–2, §8): every path a Baton project uses, from one module.
import assert from 'node:assert/strict';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  bodyTemplatePathOf,
  commandDirOf,
  configPathOf,
  daemonPathsOf,
  handoffsDirOf,
  leafFilesOf,
  leafWorktreeNameOf,
  mailboxOf,
  panesFileOf,
  personaPathOf,
  referenceMailboxOf,
  reviewPathsOf,
  rolesPathOf,
  sessionNameOf,
  socketFileOf,
  SWARM_DIR_NAME,
  swarmDirOf,
  tmuxSocketPathFor,
  worktreePathOf,
  WORKTREES_DIR_NAME,
} from '../../lib/project/layout.js';

describe('lib/project/layout', () => {
  const root = '/p';

  it("keeps runtime state under ROOT/.swarmforge and people's files under ROOT/swarmforge", () => {
    assert.deepEqual([SWARM_DIR_NAME, WORKTREES_DIR_NAME], ['.swarmforge', '.worktrees']);
    assert.equal(swarmDirOf(root), '/p/.swarmforge');
    assert.equal(rolesPathOf(root), '/p/.swarmforge/roles.tsv');
    assert.equal(configPathOf(root), '/p/swarmforge/swarmforge.conf');
    assert.equal(bodyTemplatePathOf(root, 'note'), '/p/swarmforge/body-note.txt');
    assert.equal(worktreePathOf(root, 'qa'), '/p/.worktrees/qa');
    assert.equal(socketFileOf(root), '/p/.swarmforge/tmux-socket');
    assert.equal(panesFileOf(root), '/p/.swarmforge/panes.tsv');
    assert.equal(commandDirOf(root), '/p/.swarmforge/bin');
    assert.equal(personaPathOf(root, 'teacher-cto'), '/p/swarmforge/profiles/teacher-cto/SOUL.md');
  });

  it('mailboxOf: one mailbox per role under ROOT/.swarmforge/handoffs/<role>/, its locks and sequence inside', () => {
    const dirOf = join(root, '.swarmforge', 'handoffs', 'QA');
    assert.deepEqual(mailboxOf(root, 'QA'), {
      dir: dirOf,
      outbox: join(dirOf, 'outbox'),
      outboxTmp: join(dirOf, 'outbox', 'tmp'),
      sent: join(dirOf, 'sent'),
      failed: join(dirOf, 'failed'),
      inbox: join(dirOf, 'inbox'),
      inboxNew: join(dirOf, 'inbox', 'new'),
      inProcess: join(dirOf, 'inbox', 'in_process'),
      completed: join(dirOf, 'inbox', 'completed'),
      bad: join(dirOf, 'inbox', 'bad'),
      locks: join(dirOf, 'locks'),
      inboxLock: join(dirOf, 'locks', 'inbox'),
      outboxLock: join(dirOf, 'locks', 'outbox'),
      seqFile: join(dirOf, 'sequence'),
    });
  });

  it("referenceMailboxOf: the reference scripts' mailbox of a worktree, folders directly under <worktree>/.swarmforge/handoffs/; ROOT's beside the role mailboxes", () => {
    assert.equal(handoffsDirOf(root), '/p/.swarmforge/handoffs');
    const box = referenceMailboxOf('/p/.worktrees/qa');
    assert.deepEqual(
      [box.outbox, box.inboxNew, box.inProcess, box.completed, box.sent, box.failed],
      [
        '/p/.worktrees/qa/.swarmforge/handoffs/outbox',
        '/p/.worktrees/qa/.swarmforge/handoffs/inbox/new',
        '/p/.worktrees/qa/.swarmforge/handoffs/inbox/in_process',
        '/p/.worktrees/qa/.swarmforge/handoffs/inbox/completed',
        '/p/.worktrees/qa/.swarmforge/handoffs/sent',
        '/p/.worktrees/qa/.swarmforge/handoffs/failed',
      ],
    );
    const atRoot = referenceMailboxOf(root);
    assert.equal(atRoot.dir, handoffsDirOf(root));
    const itemFolders = (b: typeof atRoot) => [
      b.outbox,
      b.inboxNew,
      b.inProcess,
      b.completed,
      b.sent,
      b.failed,
    ];
    const roleFolders = ['outbox', 'inbox', 'sent', 'failed'].flatMap((role) =>
      itemFolders(mailboxOf(root, role)),
    );
    assert.ok(
      itemFolders(atRoot).every((f) => !roleFolders.includes(f)),
      "no item folder of the reference mailbox is one of a role's, even a role named like a reference folder",
    );
  });

  it('puts every daemon file under ROOT/.swarmforge/daemon/', () => {
    assert.deepEqual(daemonPathsOf(root), {
      dir: '/p/.swarmforge/daemon',
      pid: '/p/.swarmforge/daemon/handoffd.pid',
      log: '/p/.swarmforge/daemon/handoffd.log',
      out: '/p/.swarmforge/daemon/handoffd.out',
      stop: '/p/.swarmforge/daemon/stop',
      tmp: '/p/.swarmforge/daemon/tmp',
      lock: '/p/.swarmforge/daemon/lock',
      health: '/p/.swarmforge/daemon/health.json',
    });
  });

  it('a leaf: its files under <leaves>/<bead>/ and its worktree study-<role>-<rand8> under ROOT/.worktrees', () => {
    assert.deepEqual(leafFilesOf(reviewPathsOf(root, {}), 'coder-docs-0123abcd'), {
      dir: '/p/.swarmforge/reviews/leaves/coder-docs-0123abcd',
      brief: '/p/.swarmforge/reviews/leaves/coder-docs-0123abcd/brief.json',
      output: '/p/.swarmforge/reviews/leaves/coder-docs-0123abcd/output.json',
      record: '/p/.swarmforge/reviews/leaves/coder-docs-0123abcd/leaf.json',
      verification: '/p/.swarmforge/reviews/leaves/coder-docs-0123abcd/verification.txt',
    });
    assert.equal(
      worktreePathOf(root, leafWorktreeNameOf('coder', '0123abcd')),
      '/p/.worktrees/study-coder-0123abcd',
    );
  });

  it('sessionNameOf: baton-<basename of ROOT>, anything but letters, digits and - replaced by -', () => {
    assert.equal(sessionNameOf('/x/my project.v2'), 'baton-my-project-v2');
    assert.equal(sessionNameOf('/x/Swarm-1'), 'baton-Swarm-1');
    assert.equal(sessionNameOf('/x/a_b/'), 'baton-a-b');
  });

  describe('tmuxSocketPathFor', () => {
    const suffix = '/.swarmforge/tmux.sock';

    it('is ROOT/.swarmforge/tmux.sock when that is shorter than 100 bytes', () => {
      assert.equal(tmuxSocketPathFor('/home/me/project'), '/home/me/project/.swarmforge/tmux.sock');
      const short = `/${'r'.repeat(99 - suffix.length - 1)}`;
      assert.equal(Buffer.byteLength(short + suffix), 99);
      assert.equal(tmuxSocketPathFor(short), short + suffix);
    });

    it('falls back to a short, stable, per-root path in the temp folder for long roots (counted in bytes)', () => {
      const long = `/${'r'.repeat(100 - suffix.length - 1)}`;
      const fallback = tmuxSocketPathFor(long);
      assert.ok(fallback.startsWith(`${tmpdir()}/`), fallback);
      assert.match(fallback, /\/baton-[0-9a-f]{16}\.sock$/);
      assert.ok(Buffer.byteLength(fallback) < 100);
      assert.equal(tmuxSocketPathFor(long), fallback, 'the same root always gets the same socket');
      assert.notEqual(tmuxSocketPathFor(`${long}x`), fallback, 'another root gets another socket');
      const deep = join('/', ...Array.from({ length: 40 }, (_, i) => `folder-${i}`));
      assert.ok(Buffer.byteLength(tmuxSocketPathFor(deep)) < 100);
      const multibyte = `/${'é'.repeat(40)}`;
      assert.ok((multibyte + suffix).length < 100 && Buffer.byteLength(multibyte + suffix) >= 100);
      assert.match(tmuxSocketPathFor(multibyte), /\/baton-[0-9a-f]{16}\.sock$/);
    });
  });
});
