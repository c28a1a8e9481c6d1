import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import {
  gitCommonDirIfAny,
  gitCommonDirOf,
  gitComplaint,
  headCommitByFiles,
  runGit,
  worktreeTopOf,
} from '../../lib/proc/git.js';
import { commitIn, git, tempDir } from '../support/project.js';

describe('lib/proc/git', () => {
  it('runs git with an argument vector in a folder and returns its trimmed stdout', () => {
    const dir = tempDir();
    try {
      runGit(dir, ['init', '-q', '-b', 'trunk']);
      assert.equal(runGit(dir, ['symbolic-ref', '--short', 'HEAD']), 'trunk');
      assert.equal(runGit(dir, ['rev-parse', '--show-toplevel']), dir);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a failure quotes git's own complaint (the first line of its stderr), else the error's message", () => {
    const dir = tempDir();
    try {
      assert.throws(
        () => runGit(dir, ['rev-parse', 'HEAD']),
        (err: unknown) => /^fatal: not a git repository/.test(gitComplaint(err)),
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    assert.equal(gitComplaint(new Error('spawn git ENOENT\nmore')), 'spawn git ENOENT');
  });

  it("worktreeTopOf: the work tree's top as git says it, from a subfolder of a main checkout and of a linked worktree, without git unless GIT_DIR says otherwise", () => {
    const root = tempDir();
    try {
      git(root, 'init', '-q', '-b', 'main');
      commitIn(root, 'init');
      fs.mkdirSync(join(root, 'a', 'b'), { recursive: true });
      const linked = join(root, 'linked');
      git(root, 'worktree', 'add', '-q', linked);
      fs.mkdirSync(join(linked, 'sub'));
      for (const dir of [root, join(root, 'a', 'b'), linked, join(linked, 'sub')])
        assert.equal(
          worktreeTopOf(dir, {}),
          fs.realpathSync(runGit(dir, ['rev-parse', '--show-toplevel'])),
          dir,
        );
      // GIT_DIR and GIT_WORK_TREE set (as git will see them): git decides, not the walk.
      const saved = { ...process.env };
      Object.assign(process.env, { GIT_DIR: join(root, '.git'), GIT_WORK_TREE: root });
      try {
        assert.equal(worktreeTopOf(join(linked, 'sub')), fs.realpathSync(root));
      } finally {
        for (const k of ['GIT_DIR', 'GIT_WORK_TREE']) if (!(k in saved)) delete process.env[k];
      }
      const outside = tempDir();
      try {
        assert.throws(() => worktreeTopOf(outside, {}), /not a git repository/);
      } finally {
        fs.rmSync(outside, { recursive: true, force: true });
      }
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  it("headCommitByFiles: HEAD's commit as git says it, from a loose branch, a packed one, a detached HEAD and a linked worktree's own HEAD, without git; undefined where git is to decide", () => {
    const root = tempDir();
    const gitSays = (dir: string) => runGit(dir, ['rev-parse', '--verify', 'HEAD^{commit}']);
    try {
      git(root, 'init', '-q', '-b', 'main');
      // Unborn: no commit yet, git decides (and refuses).
      assert.equal(headCommitByFiles(root, {}), undefined);
      commitIn(root, 'one');
      const linked = join(root, '.worktrees', 'linked');
      git(root, 'worktree', 'add', '-q', '-b', 'side', linked);
      commitIn(linked, 'two on side');
      fs.mkdirSync(join(linked, 'sub'));
      const detached = join(root, '.worktrees', 'detached');
      git(root, 'worktree', 'add', '-q', '--detach', detached, 'main');
      const dirs = [root, linked, join(linked, 'sub'), detached];
      const withoutGit = () => {
        const path = process.env.PATH;
        process.env.PATH = '';
        try {
          return dirs.map((dir) => headCommitByFiles(dir, {}));
        } finally {
          process.env.PATH = path;
        }
      };
      const loose = dirs.map(gitSays);
      assert.notEqual(loose[0], loose[1], 'the worktree has its own HEAD');
      assert.deepEqual(withoutGit(), loose);
      // Packed: the loose files are gone, packed-refs has the branches.
      git(root, 'pack-refs', '--all');
      assert.equal(fs.existsSync(join(root, '.git', 'refs', 'heads', 'main')), false);
      commitIn(root, 'three');
      git(root, 'pack-refs', '--all');
      const packed = dirs.map(gitSays);
      assert.notEqual(packed[0], loose[0]);
      assert.deepEqual(withoutGit(), packed);
      // A HEAD that names another kind of ref, and GIT_DIR set: git decides.
      git(root, 'update-ref', 'refs/notes/x', packed[0]!);
      git(root, 'symbolic-ref', 'HEAD', 'refs/notes/x');
      assert.equal(headCommitByFiles(root, {}), undefined);
      assert.equal(headCommitByFiles(linked, { GIT_DIR: join(root, '.git') }), undefined);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  it('gitCommonDirOf: the common git folder as git says it, from a main checkout, a linked worktree and a submodule, without git unless the environment or the layout says otherwise', () => {
    const root = tempDir();
    const other = tempDir();
    const gitSays = (dir: string) =>
      fs.realpathSync(runGit(dir, ['rev-parse', '--path-format=absolute', '--git-common-dir']));
    try {
      git(root, 'init', '-q', '-b', 'main');
      commitIn(root, 'init');
      fs.mkdirSync(join(root, 'a', 'b'), { recursive: true });
      const linked = join(root, '.worktrees', 'linked');
      git(root, 'worktree', 'add', '-q', linked);
      fs.mkdirSync(join(linked, 'sub'));
      git(other, 'init', '-q', '-b', 'main');
      commitIn(other, 'init');
      git(root, '-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', other, 'mod');
      const dirs = [root, join(root, 'a', 'b'), linked, join(linked, 'sub'), join(root, 'mod')];
      const answers = dirs.map(gitSays);
      // Without git on the PATH: the answers come from the files alone.
      const path = process.env.PATH;
      process.env.PATH = '';
      try {
        assert.deepEqual(
          dirs.map((dir) => gitCommonDirOf(dir, {})),
          answers,
        );
      } finally {
        process.env.PATH = path;
      }
      assert.equal(gitCommonDirOf(linked, {}), fs.realpathSync(join(root, '.git')));
      // A `.git` file that names no git folder, or an empty `.git` folder: git decides.
      const odd = join(root, 'odd');
      fs.mkdirSync(odd);
      fs.writeFileSync(join(odd, '.git'), 'not a gitdir line\n');
      assert.throws(() => gitCommonDirOf(odd, {}), /invalid gitfile format/);
      fs.rmSync(join(odd, '.git'));
      fs.mkdirSync(join(odd, '.git'));
      assert.equal(gitCommonDirOf(odd, {}), gitSays(odd));
      // Inside the git folder itself: git decides (no work tree there).
      assert.equal(
        gitCommonDirOf(join(root, '.git', 'refs'), {}),
        gitSays(join(root, '.git', 'refs')),
      );
      assert.throws(() => worktreeTopOf(join(root, '.git'), {}), /must be run in a work tree/);
      // GIT_DIR set: git decides, not the walk (here: the other repository).
      assert.equal(gitCommonDirOf(linked, { GIT_DIR: join(other, '.git') }), gitSays(other));
      const outside = tempDir();
      try {
        assert.throws(() => gitCommonDirOf(outside, {}), /not a git repository/);
        assert.equal(gitCommonDirIfAny(outside), undefined);
      } finally {
        fs.rmSync(outside, { recursive: true, force: true });
      }
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
      fs.rmSync(other, { recursive: true, force: true });
    }
  });
});
