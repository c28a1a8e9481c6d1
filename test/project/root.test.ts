import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { CommandFailure } from '../../lib/fsx/commandFailure.js';
import { findRoot } from '../../lib/project/root.js';
import { commitIn, git, tempDir } from '../support/project.js';

const NOT_FOUND = 'Cannot find SwarmForge project root';

/** Makes `dir` a SwarmForge ROOT (a .swarmforge/roles.tsv) and returns it. */
function markRoot(dir: string): string {
  fs.mkdirSync(join(dir, '.swarmforge'), { recursive: true });
  fs.writeFileSync(
    join(dir, '.swarmforge', 'roles.tsv'),
    'coder\tmaster\t/x\ts\tcoder\tclaude\ttask\n',
  );
  return dir;
}

const INIT_HINT =
  "Run 'baton init' in your project's git repository (where swarmforge/swarmforge.conf is), then run this command inside it.";

function notFound(err: unknown, firstLine = NOT_FOUND, hint = INIT_HINT): boolean {
  return (
    err instanceof CommandFailure &&
    err.kind === 'environment' &&
    err.lines.length === 2 &&
    err.lines[0] === firstLine &&
    err.lines[1] === hint
  );
}

describe('lib/project/root', () => {
  let dir: string;
  beforeEach(() => {
    dir = tempDir();
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('finds ROOT in the current directory and from any subdirectory, the nearest one first', () => {
    const outer = markRoot(join(dir, 'outer'));
    const inner = markRoot(join(outer, 'nested', 'inner'));
    fs.mkdirSync(join(outer, 'src', 'deep'), { recursive: true });
    fs.mkdirSync(join(inner, 'a', 'b'), { recursive: true });
    assert.equal(findRoot(outer, {}), outer);
    assert.equal(findRoot(join(outer, 'src', 'deep'), {}), outer);
    assert.equal(findRoot(join(outer, 'nested'), {}), outer);
    assert.equal(findRoot(join(inner, 'a', 'b'), {}), inner);
  });

  it('a .swarmforge directory without roles.tsv is not a ROOT: the walk goes on to the parent', () => {
    const root = markRoot(join(dir, 'root'));
    fs.mkdirSync(join(root, 'sub', '.swarmforge'), { recursive: true });
    assert.equal(findRoot(join(root, 'sub'), {}), root);
  });

  it('$SWARMFORGE_ROOT with roles.tsv wins over the current directory; a relative value resolves against it', () => {
    const envRoot = markRoot(join(dir, 'env-root'));
    const cwdRoot = markRoot(join(dir, 'cwd-root'));
    assert.equal(findRoot(cwdRoot, { SWARMFORGE_ROOT: envRoot }), envRoot);
    assert.equal(findRoot(cwdRoot, { SWARMFORGE_ROOT: '../env-root' }), envRoot);
  });

  it('$SWARMFORGE_ROOT without roles.tsv is an error, with no fallback to the current directory', () => {
    const cwdRoot = markRoot(join(dir, 'cwd-root'));
    const empty = join(dir, 'empty');
    fs.mkdirSync(empty);
    assert.throws(
      () => findRoot(cwdRoot, { SWARMFORGE_ROOT: empty }),
      (err: unknown) =>
        notFound(
          err,
          `${NOT_FOUND}: SWARMFORGE_ROOT=${empty} has no .swarmforge/roles.tsv`,
          `Run 'baton init' in ${empty} (where swarmforge/swarmforge.conf is), or unset SWARMFORGE_ROOT.`,
        ),
    );
  });

  it('nothing found: exactly "Cannot find SwarmForge project root", then a line suggesting baton init (also inside a git repository without one)', () => {
    const plain = join(dir, 'plain', 'sub');
    fs.mkdirSync(plain, { recursive: true });
    assert.throws(
      () => findRoot(plain, {}),
      (err: unknown) => notFound(err),
    );
    const repo = join(dir, 'repo');
    fs.mkdirSync(repo);
    git(repo, 'init', '-q');
    assert.throws(
      () => findRoot(repo, {}),
      (err: unknown) => notFound(err),
    );
  });

  it('from a git worktree outside ROOT (and a subdirectory of it), finds the main checkout through git', () => {
    const root = join(dir, 'project');
    fs.mkdirSync(root);
    git(root, 'init', '-q', '-b', 'main');
    commitIn(root, 'init');
    markRoot(root);
    const worktree = join(dir, 'elsewhere', 'review');
    git(root, 'worktree', 'add', '-q', '-b', 'review', worktree);
    fs.mkdirSync(join(worktree, 'src'));
    assert.equal(findRoot(worktree, {}), root);
    assert.equal(findRoot(join(worktree, 'src'), {}), root);
  });
});
