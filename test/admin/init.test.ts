import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { type WindowConfig } from '../../lib/handoff/config.js';
import { CommandFailure } from '../../lib/fsx/commandFailure.js';
import {
  gitTopLevel,
  initProject,
  initRolesAndMailboxes,
  readWindows,
  rolesOf,
} from '../../lib/admin/init.js';
import { excludeSwarmDir } from '../../lib/project/gitExclude.js';
import { readRoles } from '../../lib/handoff/roles.js';
import { mailboxAt, MAILBOX_FOLDERS } from '../../lib/queue/mailbox.js';
import { fixturePath } from '../support/fixtures.js';
import { commitIn, git, itemsIn, tempDir } from '../support/project.js';
import { placeLegacyItem, referenceFolderOf } from '../support/referenceMail.js';

function failsWith(lines: string[]) {
  return (err: unknown) => {
    assert.ok(err instanceof CommandFailure, String(err));
    assert.deepEqual([err.kind, err.lines], ['environment', lines]);
    return true;
  };
}

describe('lib/admin/init', () => {
  let dir: string;
  let root: string;
  beforeEach(() => {
    dir = tempDir();
    root = join(dir, 'my project.v2');
    fs.mkdirSync(root);
    git(root, 'init', '-q', '-b', 'main');
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));
  const writeConf = (text: string) => {
    fs.mkdirSync(join(root, 'swarmforge'), { recursive: true });
    fs.writeFileSync(join(root, 'swarmforge', 'swarmforge.conf'), text);
  };
  const exclude = () => fs.readFileSync(join(root, '.git', 'info', 'exclude'), 'utf8');
  const excludeLines = () =>
    exclude()
      .split('\n')
      .filter((l) => l.trim() === '.swarmforge/' || l.trim() === '/.swarmforge/');

  it('rolesOf: master/none → ROOT, a name → ROOT/.worktrees/<name>; session, display name, agent and mode', () => {
    const windows: WindowConfig[] = [
      { line: 1, role: 'coder', agent: 'claude', worktree: 'master', mode: 'task', extraArgs: '' },
      { line: 2, role: 'QA', agent: 'codex', worktree: 'qa', mode: 'batch', extraArgs: '--x' },
      { line: 3, role: 'ops', agent: 'grok', worktree: 'none', mode: 'task', extraArgs: '' },
    ];
    assert.deepEqual(rolesOf('/p/proj', windows), [
      {
        role: 'coder',
        worktreeName: 'master',
        worktreePath: '/p/proj',
        session: 'baton-proj',
        displayName: 'coder',
        agent: 'claude',
        mode: 'task',
      },
      {
        role: 'QA',
        worktreeName: 'qa',
        worktreePath: '/p/proj/.worktrees/qa',
        session: 'baton-proj',
        displayName: 'QA',
        agent: 'codex',
        mode: 'batch',
      },
      {
        role: 'ops',
        worktreeName: 'none',
        worktreePath: '/p/proj',
        session: 'baton-proj',
        displayName: 'ops',
        agent: 'grok',
        mode: 'task',
      },
    ]);
  });

  it('gitTopLevel: the top level from a subdirectory; outside git it fails naming the directory', () => {
    fs.mkdirSync(join(root, 'a', 'b'), { recursive: true });
    assert.equal(gitTopLevel(join(root, 'a', 'b')), root);
    const plain = join(dir, 'plain');
    fs.mkdirSync(plain);
    assert.throws(
      () => gitTopLevel(plain),
      failsWith([`baton: not inside a git repository: '${plain}'`]),
    );
  });

  it('initProject from a subdirectory: roles.tsv, every mailbox folder 0700, the exclude line; returns ROOT and roles', async () => {
    writeConf('# swarm\nwindow coder claude master\nwindow QA codex qa batch --flag\n');
    fs.mkdirSync(join(root, 'src'));
    const { root: found, roles } = await initProject(join(root, 'src'));
    assert.equal(found, root);
    assert.deepEqual(
      roles.map((r) => [r.role, r.worktreePath, r.mode]),
      [
        ['coder', root, 'task'],
        ['QA', join(root, '.worktrees', 'qa'), 'batch'],
      ],
    );
    const session = 'baton-my-project-v2';
    assert.equal(
      fs.readFileSync(join(root, '.swarmforge', 'roles.tsv'), 'utf8'),
      `coder\tmaster\t${root}\t${session}\tcoder\tclaude\ttask\nQA\tqa\t${root}/.worktrees/qa\t${session}\tQA\tcodex\tbatch\n`,
    );
    assert.deepEqual([...readRoles(root).roles.values()], roles);
    assert.equal(fs.statSync(join(root, '.swarmforge')).mode & 0o777, 0o700);
    for (const role of ['coder', 'QA']) {
      const box = mailboxAt(join(root, '.swarmforge', 'handoffs', role));
      for (const key of MAILBOX_FOLDERS)
        assert.equal(fs.statSync(box[key]).mode & 0o777, 0o700, `${role} ${key}`);
    }
    assert.deepEqual(excludeLines(), ['.swarmforge/']);
    assert.deepEqual(
      fs.readdirSync(join(root, '.swarmforge')).filter((n) => n.endsWith('.tmp')),
      [],
    );
  });

  it('initProject on the four-role SwarmForge pack fixture: its roles, worktrees and modes, a prompt for each role', async () => {
    fs.cpSync(fixturePath('packs', 'four-roles', 'swarmforge'), join(root, 'swarmforge'), {
      recursive: true,
    });
    const { roles } = await initProject(root);
    assert.deepEqual(
      roles.map((r) => [r.role, r.worktreePath, r.agent, r.mode]),
      [
        ['architect', root, 'claude', 'task'],
        ['coder', join(root, '.worktrees', 'coder'), 'claude', 'task'],
        ['reviewer', join(root, '.worktrees', 'review'), 'codex', 'task'],
        ['QA', join(root, '.worktrees', 'qa'), 'claude', 'batch'],
      ],
    );
    for (const { role } of roles) {
      assert.ok(
        fs.statSync(join(root, '.swarmforge', 'handoffs', role, 'inbox', 'new')).isDirectory(),
        `${role}'s mailbox`,
      );
      assert.ok(
        fs
          .readFileSync(join(root, 'swarmforge', 'roles', `${role}.prompt`), 'utf8')
          .startsWith(`Role: ${role}.\n`),
        `${role}'s prompt`,
      );
    }
    assert.ok(fs.statSync(join(root, 'swarmforge', 'constitution.prompt')).size > 0);
  });

  it('initProject is idempotent and picks up a changed conf (roles.tsv replaced, mailboxes kept)', async () => {
    writeConf('window coder claude master\n');
    await initProject(root);
    const marker = join(root, '.swarmforge', 'handoffs', 'coder', 'inbox', 'new', '50_x.handoff');
    fs.writeFileSync(marker, 'x', { mode: 0o600 });
    writeConf('window coder claude master\nwindow reviewer codex review\n');
    const again = await initProject(root);
    assert.deepEqual(
      again.roles.map((r) => r.role),
      ['coder', 'reviewer'],
    );
    assert.deepEqual([...readRoles(root).roles.keys()], ['coder', 'reviewer']);
    assert.ok(fs.existsSync(marker));
    assert.deepEqual(excludeLines(), ['.swarmforge/']);
  });

  it("initProject imports the reference-layout mail of the roles' worktrees and reports it; initRolesAndMailboxes does not", async () => {
    writeConf('window coder claude master\n');
    const waiting = placeLegacyItem(referenceFolderOf(root, 'inbox/new'), '50_a.handoff', {
      id: 'a',
      from: 'x',
      to: 'coder',
      recipient: 'coder',
    });
    initRolesAndMailboxes(root);
    assert.deepEqual(itemsIn(join(root, '.swarmforge', 'handoffs', 'coder', 'inbox', 'new')), []);
    const { imports } = await initProject(root);
    const copy = join(root, '.swarmforge', 'handoffs', 'coder', 'inbox', 'new', '50_a.handoff');
    assert.deepEqual(imports, {
      imported: [{ from: waiting, to: copy, id: 'a', role: 'coder' }],
      left: [],
    });
    assert.ok(fs.existsSync(`${waiting}.imported`));
  });

  it("readWindows: the windows of ROOT's swarmforge.conf; every error at once when it is invalid; a missing conf named", () => {
    assert.throws(
      () => readWindows(root),
      failsWith([`baton: no swarmforge/swarmforge.conf in '${root}'`]),
    );
    writeConf('window coder claude master\nwindow QA codex qa batch --x\n');
    assert.deepEqual(
      readWindows(root).map((w) => [w.role, w.agent, w.worktree, w.mode, w.extraArgs]),
      [
        ['coder', 'claude', 'master', 'task', ''],
        ['QA', 'codex', 'qa', 'batch', '--x'],
      ],
    );
    writeConf('window 1bad claude master\nwindow x y\n');
    const conf = join(root, 'swarmforge', 'swarmforge.conf');
    assert.throws(
      () => readWindows(root),
      failsWith([
        `${conf}:1: role '1bad' must match ^[A-Za-z][A-Za-z0-9-]*$ and be at most 32 characters`,
        `${conf}:2: a window line needs <role> <agent> <worktree>`,
      ]),
    );
  });

  it('initProject without a conf, or with config errors, fails and writes nothing', async () => {
    await assert.rejects(
      initProject(root),
      failsWith([`baton: no swarmforge/swarmforge.conf in '${root}'`]),
    );
    writeConf('window coder claude master\nwindow coder claude other\nbogus\n');
    const conf = join(root, 'swarmforge', 'swarmforge.conf');
    await assert.rejects(
      initProject(root),
      failsWith([
        `${conf}:2: role 'coder' is already defined on line 1`,
        `${conf}:3: unknown directive 'bogus'; expected 'window <role> <agent> <worktree> [task|batch] [args...]' or 'review cto|coo <role>'`,
      ]),
    );
    assert.equal(fs.existsSync(join(root, '.swarmforge')), false);
    assert.equal(excludeLines().length, 0);
  });

  describe('excludeSwarmDir', () => {
    it('appends .swarmforge/ once, however often it runs', () => {
      const before = exclude();
      excludeSwarmDir(root);
      excludeSwarmDir(root);
      assert.equal(
        exclude(),
        `${before}${before === '' || before.endsWith('\n') ? '' : '\n'}.swarmforge/\n`,
      );
    });

    it('starts a new line when the file does not end with one, and creates info/ when missing', () => {
      fs.writeFileSync(join(root, '.git', 'info', 'exclude'), '*.log');
      excludeSwarmDir(root);
      assert.equal(exclude(), '*.log\n.swarmforge/\n');
      fs.rmSync(join(root, '.git', 'info'), { recursive: true });
      excludeSwarmDir(root);
      assert.equal(exclude(), '.swarmforge/\n');
    });

    it('an existing /.swarmforge/ or indented entry counts', () => {
      fs.writeFileSync(join(root, '.git', 'info', 'exclude'), '/.swarmforge/\n');
      excludeSwarmDir(root);
      assert.equal(exclude(), '/.swarmforge/\n');
      fs.writeFileSync(join(root, '.git', 'info', 'exclude'), '  .swarmforge/  \n');
      excludeSwarmDir(root);
      assert.equal(exclude(), '  .swarmforge/  \n');
    });

    it("run in a linked worktree, writes the main repository's info/exclude, and git then ignores .swarmforge/", () => {
      commitIn(root, 'init');
      const worktree = join(dir, 'wt');
      git(root, 'worktree', 'add', '-q', '-b', 'side', worktree);
      excludeSwarmDir(worktree);
      assert.deepEqual(excludeLines(), ['.swarmforge/']);
      fs.mkdirSync(join(root, '.swarmforge'));
      fs.writeFileSync(join(root, '.swarmforge', 'roles.tsv'), '');
      assert.equal(git(root, 'status', '--porcelain', '--untracked-files=all'), '');
    });
  });
});
