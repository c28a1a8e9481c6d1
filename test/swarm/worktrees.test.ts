import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { ensureWorktree, mainCheckoutOf } from '../../lib/swarm/worktrees.js';
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

  const worktrees = () => git(root, 'worktree', 'list', '--porcelain').split('\n').filter((l) => l.startsWith('worktree ')).map((l) => l.slice(9));

  it('creates ROOT/.worktrees/<name> on a new branch <name> from HEAD', () => {
    const head = git(root, 'rev-parse', 'HEAD');
    const path = ensureWorktree(root, 'review');
    assert.equal(path, join(root, '.worktrees', 'review'));
    assert.ok(fs.existsSync(join(path, '.git')));
    assert.equal(git(path, 'rev-parse', '--abbrev-ref', 'HEAD'), 'review');
    assert.equal(git(root, 'rev-parse', 'refs/heads/review'), head);
    assert.deepEqual(worktrees(), [root, path]);
  });

  it('is idempotent: an existing worktree is kept as it is', () => {
    const path = ensureWorktree(root, 'review');
    const moved = commitIn(path, 'work in the worktree');
    assert.equal(ensureWorktree(root, 'review'), path);
    assert.deepEqual(worktrees(), [root, path]);
    assert.equal(git(path, 'rev-parse', 'HEAD'), moved);
  });

  it('reuses an existing branch of that name instead of branching from HEAD', () => {
    const older = git(root, 'rev-parse', 'HEAD');
    git(root, 'branch', 'qa');
    commitIn(root, 'main moves on');
    const path = ensureWorktree(root, 'qa');
    assert.equal(git(path, 'rev-parse', '--abbrev-ref', 'HEAD'), 'qa');
    assert.equal(git(path, 'rev-parse', 'HEAD'), older);
  });

  it('mainCheckoutOf finds the main checkout from the root, a subfolder, or inside a worktree', () => {
    const path = ensureWorktree(root, 'review');
    fs.mkdirSync(join(path, 'deep', 'er'), { recursive: true });
    fs.mkdirSync(join(root, 'sub'));
    assert.equal(mainCheckoutOf(root), root);
    assert.equal(mainCheckoutOf(join(root, 'sub')), root);
    assert.equal(mainCheckoutOf(path), root);
    assert.equal(mainCheckoutOf(join(path, 'deep', 'er')), root);
  });
});
