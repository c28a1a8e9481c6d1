import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { CommandFailure } from '../../lib/fsx/commandFailure.js';
import {
  ensureWorktree,
  mainCheckoutOf,
  removeWorktree,
  requireFirstCommit,
} from '../../lib/swarm/worktrees.js';
import { commitIn, git, tempDir } from '../support/project.js';

describe('lib/swarm/worktrees', function () {
  this.timeout(20_000);
  let root: string;
  beforeEach(() => {
    root = tempDir();
    git(root, 'init', '-q', '-b', 'main');
    commitIn(root, 'init');
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  const worktrees = () =>
    git(root, 'worktree', 'list', '--porcelain')
      .split('\n')
      .filter((l) => l.startsWith('worktree '))
      .map((l) => l.slice(9));

  it('creates ROOT/.worktrees/<name> on a new branch <name> from HEAD', () => {
    const head = git(root, 'rev-parse', 'HEAD');
    const made = ensureWorktree(root, 'review');
    const path = made.path;
    assert.deepEqual(made, {
      name: 'review',
      path: join(root, '.worktrees', 'review'),
      created: true,
      branchBase: head,
    });
    assert.ok(fs.existsSync(join(path, '.git')));
    assert.equal(git(path, 'rev-parse', '--abbrev-ref', 'HEAD'), 'review');
    assert.equal(git(root, 'rev-parse', 'refs/heads/review'), head);
    assert.deepEqual(worktrees(), [root, path]);
  });

  it('is idempotent: an existing worktree is kept as it is', () => {
    const { path } = ensureWorktree(root, 'review');
    const moved = commitIn(path, 'work in the worktree');
    assert.deepEqual(ensureWorktree(root, 'review'), { name: 'review', path, created: false });
    assert.deepEqual(worktrees(), [root, path]);
    assert.equal(git(path, 'rev-parse', 'HEAD'), moved);
  });

  it('reuses an existing branch of that name instead of branching from HEAD', () => {
    const older = git(root, 'rev-parse', 'HEAD');
    git(root, 'branch', 'qa');
    commitIn(root, 'main moves on');
    const made = ensureWorktree(root, 'qa');
    const path = made.path;
    assert.equal(made.branchBase, undefined, 'the branch existed');
    assert.equal(git(path, 'rev-parse', '--abbrev-ref', 'HEAD'), 'qa');
    assert.equal(git(path, 'rev-parse', 'HEAD'), older);
  });

  it('mainCheckoutOf finds the main checkout from the root, a subfolder, or inside a worktree', () => {
    const { path } = ensureWorktree(root, 'review');
    fs.mkdirSync(join(path, 'deep', 'er'), { recursive: true });
    fs.mkdirSync(join(root, 'sub'));
    assert.equal(mainCheckoutOf(root), root);
    assert.equal(mainCheckoutOf(join(root, 'sub')), root);
    assert.equal(mainCheckoutOf(path), root);
    assert.equal(mainCheckoutOf(join(path, 'deep', 'er')), root);
  });

  it('removeWorktree takes back what ensureWorktree created: the worktree, and a branch it created that nothing was committed on', () => {
    git(root, 'branch', 'kept');
    const fresh = ensureWorktree(root, 'fresh');
    const existing = ensureWorktree(root, 'kept');
    const worked = ensureWorktree(root, 'worked');
    commitIn(worked.path, 'work on the new branch');
    for (const made of [fresh, existing, worked]) removeWorktree(root, made);
    assert.deepEqual(worktrees(), [root]);
    const branches = git(root, 'branch', '--format=%(refname:short)').split('\n').sort();
    assert.deepEqual(
      branches,
      ['kept', 'main', 'worked'],
      'an existing branch and one with new commits stay',
    );
    removeWorktree(root, { name: 'kept', path: join(root, '.worktrees', 'kept'), created: false });
    assert.ok(branches.includes('kept'));
  });

  it("surfaces git's own complaint when worktree add fails", () => {
    fs.mkdirSync(join(root, '.worktrees', 'busy'), { recursive: true });
    fs.writeFileSync(join(root, '.worktrees', 'busy', 'file'), 'x');
    assert.throws(
      () => ensureWorktree(root, 'busy'),
      (err: unknown) =>
        err instanceof CommandFailure &&
        err.kind === 'environment' &&
        /^baton: git worktree add for 'busy' failed: fatal: .*already exists/.test(err.lines[0]!),
    );
  });

  it('requireFirstCommit refuses a repository without a commit, with the command that makes one', () => {
    requireFirstCommit(root);
    const bare = join(root, 'nocommit');
    fs.mkdirSync(bare);
    git(bare, 'init', '-q', '-b', 'main');
    assert.throws(
      () => requireFirstCommit(bare),
      (err: unknown) =>
        err instanceof CommandFailure &&
        err.kind === 'environment' &&
        err.lines[0] ===
          `baton: the repository '${bare}' has no commit yet, and worktrees start from one: make a first commit (git commit --allow-empty -m 'first commit') and run baton up again`,
    );
  });
});
