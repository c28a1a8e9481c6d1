import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { CommandFailure } from '../../../lib/fsx/commandFailure.js';
import { runRootOf } from '../../../lib/run/record/runRoot.js';
import { commitIn, git, tempDir } from '../../support/project.js';

/** True for a usage failure (exit 1) of one line matching `pattern`. */
function usageFailure(pattern: RegExp): (err: unknown) => boolean {
  return (err) =>
    err instanceof CommandFailure &&
    err.kind === 'usage' &&
    err.lines.length === 1 &&
    pattern.test(err.lines[0]!);
}

describe('lib/run/record/runRoot', () => {
  let dir: string;
  beforeEach(() => {
    dir = tempDir();
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('is the main checkout from the main checkout, a subfolder of it, and every worktree, wherever it lives', () => {
    const main = join(dir, 'main');
    fs.mkdirSync(join(main, 'src', 'deep'), { recursive: true });
    git(main, 'init', '-q', '-b', 'main');
    commitIn(main, 'init');
    git(main, 'worktree', 'add', '-q', '-b', 'inside', join(main, '.wt', 'inside'));
    git(main, 'worktree', 'add', '-q', '-b', 'outside', join(dir, 'elsewhere', 'outside'));
    fs.mkdirSync(join(dir, 'elsewhere', 'outside', 'sub'));
    for (const cwd of [
      main,
      join(main, 'src', 'deep'),
      join(main, '.wt', 'inside'),
      join(dir, 'elsewhere', 'outside'),
      join(dir, 'elsewhere', 'outside', 'sub'),
    ]) {
      assert.equal(runRootOf(cwd, {}), main, cwd);
    }
  });

  it('needs no swarm: a plain repository without swarmforge/ or .swarmforge/ has a ROOT', () => {
    git(dir, 'init', '-q', '-b', 'main');
    assert.equal(fs.existsSync(join(dir, '.swarmforge')), false);
    assert.equal(runRootOf(dir, {}), dir);
  });

  it('is absolute and real when reached through a symlink', () => {
    const real = join(dir, 'real');
    fs.mkdirSync(real);
    git(real, 'init', '-q', '-b', 'main');
    commitIn(real);
    fs.symlinkSync(real, join(dir, 'link'));
    assert.equal(runRootOf(join(dir, 'link'), {}), real);
  });

  it('$SWARMFORGE_ROOT wins over the repository, and a relative value resolves against the current directory', () => {
    const repo = join(dir, 'repo');
    const other = join(dir, 'other');
    fs.mkdirSync(repo);
    fs.mkdirSync(other);
    git(repo, 'init', '-q', '-b', 'main');
    assert.equal(runRootOf(repo, { SWARMFORGE_ROOT: other }), other);
    assert.equal(runRootOf(repo, { SWARMFORGE_ROOT: '../other' }), other);
  });

  it('$SWARMFORGE_ROOT that is missing or not a directory is a usage error naming it, with no fallback to git', () => {
    git(dir, 'init', '-q', '-b', 'main');
    fs.writeFileSync(join(dir, 'file'), 'x');
    assert.throws(
      () => runRootOf(dir, { SWARMFORGE_ROOT: 'nowhere' }),
      usageFailure(
        /^SWARMFORGE_ROOT='nowhere' is not an existing directory \('.*\/nowhere'\): set it .* or unset it$/,
      ),
    );
    assert.throws(
      () => runRootOf(dir, { SWARMFORGE_ROOT: join(dir, 'file') }),
      usageFailure(/^SWARMFORGE_ROOT='.*\/file' is not an existing directory/),
    );
  });

  it('outside any git repository and without $SWARMFORGE_ROOT, one usage line says what to do', () => {
    assert.throws(
      () => runRootOf(dir, {}),
      usageFailure(
        /^no run ROOT for '.*' \(fatal: not a git repository.*\): run this inside your project's git repository \(its main checkout or a worktree\), or set SWARMFORGE_ROOT$/,
      ),
    );
    assert.throws(
      () => runRootOf(dir, { SWARMFORGE_ROOT: '' }),
      usageFailure(/^no run ROOT/),
      'an empty SWARMFORGE_ROOT counts as unset',
    );
  });
});
