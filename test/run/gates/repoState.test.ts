import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { CommandFailure } from '../../../lib/fsx/commandFailure.js';
import {
  commitExists,
  headOf,
  isAncestor,
  modifiedTrackedFiles,
  repoChanges,
  repoSnapshotBeside,
  repoSnapshotOf,
  resolveCommit,
  resolveWorkTree,
} from '../../../lib/run/gates/repoState.js';
import { commitIn, git, tempDir } from '../../support/project.js';

/** True for a refusal (exit 2) of one line matching `pattern`. */
function refusal(pattern: RegExp): (err: unknown) => boolean {
  return (err) =>
    err instanceof CommandFailure &&
    err.kind === 'refused' &&
    err.lines.length === 1 &&
    pattern.test(err.lines[0]!);
}

/** A new repository at `dir` (branch main, one commit) and its first commit's hash. */
function repoAt(dir: string): string {
  fs.mkdirSync(dir, { recursive: true });
  git(dir, 'init', '-q', '-b', 'main');
  return commitIn(dir, 'init');
}

describe('lib/run/gates/repoState', () => {
  let dir: string;
  let main: string;
  let first: string;
  beforeEach(() => {
    dir = tempDir();
    main = join(dir, 'main');
    first = repoAt(main);
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  describe('resolveWorkTree', () => {
    it('is the real top level of the main checkout, of a folder inside it, and of a worktree (also through a symlink)', () => {
      const wt = join(dir, 'wt');
      git(main, 'worktree', 'add', '-q', '-b', 'side', wt);
      fs.mkdirSync(join(main, 'src', 'deep'), { recursive: true });
      fs.symlinkSync(wt, join(dir, 'wt-link'));
      assert.equal(resolveWorkTree(main, main), main);
      assert.equal(resolveWorkTree(main, join(main, 'src', 'deep')), main);
      assert.equal(resolveWorkTree(main, wt), wt);
      assert.equal(
        resolveWorkTree(wt, main),
        main,
        'ROOT given as a worktree names the same repository',
      );
      assert.equal(resolveWorkTree(main, join(dir, 'wt-link')), wt);
    });

    it('refuses a work tree of another repository, even a clone of this one, naming both git dirs', () => {
      const other = join(dir, 'other');
      repoAt(other);
      const clone = join(dir, 'clone');
      git(dir, 'clone', '-q', main, clone);
      assert.throws(
        () => resolveWorkTree(main, other),
        refusal(
          new RegExp(
            `^'${other}' is a work tree of another repository \\(git dir '${other}/\\.git', ROOT's is '${main}/\\.git'\\)$`,
          ),
        ),
      );
      assert.throws(
        () => resolveWorkTree(main, clone),
        refusal(/^'.*\/clone' is a work tree of another repository/),
      );
    });

    it('refuses a folder outside git, the git dir itself, a folder that does not exist and a file, each with its own message', () => {
      const plain = join(dir, 'plain');
      fs.mkdirSync(plain);
      assert.throws(
        () => resolveWorkTree(main, plain),
        refusal(/^'.*\/plain' is not a git work tree: fatal: not a git repository/),
      );
      assert.throws(
        () => resolveWorkTree(main, join(main, '.git')),
        refusal(
          /^'.*\/main\/\.git' is not a git work tree: fatal: this operation must be run in a work tree/,
        ),
      );
      assert.throws(
        () => resolveWorkTree(main, join(dir, 'missing')),
        refusal(/^repository folder '.*\/missing' does not exist$/),
      );
      fs.writeFileSync(join(main, 'file.txt'), 'f\n');
      assert.throws(
        () => resolveWorkTree(main, join(main, 'file.txt')),
        refusal(/^'.*\/main\/file\.txt' is not a folder$/),
      );
    });

    it('refuses any folder when ROOT is not in a git repository', () => {
      const plainRoot = join(dir, 'plain-root');
      fs.mkdirSync(plainRoot);
      assert.throws(
        () => resolveWorkTree(plainRoot, main),
        refusal(
          /^ROOT '.*\/plain-root' is not in a git repository, so '.*\/main' cannot be a work tree of it$/,
        ),
      );
    });
  });

  describe('resolveCommit', () => {
    it('resolves HEAD, a branch, a tag, an abbreviated hash and an expression to the full commit hash', () => {
      git(main, 'tag', 'v1');
      const second = commitIn(main, 'second');
      assert.equal(resolveCommit(main, 'HEAD'), second);
      assert.equal(resolveCommit(main, 'main'), second);
      assert.equal(resolveCommit(main, 'v1'), first);
      assert.equal(resolveCommit(main, first.slice(0, 10)), first);
      assert.equal(resolveCommit(main, 'HEAD~1'), first);
    });

    it('refuses a ref that does not resolve, one that is not a commit, and one that looks like an option', () => {
      fs.writeFileSync(join(main, 'a.txt'), 'a\n');
      git(main, 'add', 'a.txt');
      commitIn(main, 'a');
      for (const ref of ['nope', 'HEAD:a.txt', 'HEAD^{tree}', '--all', '-q']) {
        assert.throws(
          () => resolveCommit(main, ref),
          refusal(
            new RegExp(
              `^base ref '${ref.replace(/[\^{}$.*+?()[\]|\\-]/g, '\\$&')}' does not resolve$`,
            ),
          ),
          ref,
        );
      }
    });
  });

  describe('headOf, commitExists, isAncestor', () => {
    it('headOf is the full hash of HEAD, from the files without git where they tell, and refuses an unborn HEAD', () => {
      assert.equal(headOf(main), first);
      const second = commitIn(main, 'second');
      const path = process.env.PATH;
      process.env.PATH = '';
      try {
        assert.equal(headOf(main), second);
      } finally {
        process.env.PATH = path;
      }
      const empty = join(dir, 'empty');
      fs.mkdirSync(empty);
      git(empty, 'init', '-q', '-b', 'main');
      assert.throws(() => headOf(empty), refusal(/^HEAD of '.*\/empty' does not resolve: /));
    });

    it('commitExists is true for a commit of the repository only: not an unknown hash, a blob, or an option', () => {
      fs.writeFileSync(join(main, 'a.txt'), 'a\n');
      const blob = git(main, 'hash-object', '-w', 'a.txt');
      assert.equal(commitExists(main, first), true);
      assert.equal(commitExists(main, first.replace(/^./, first[0] === '0' ? '1' : '0')), false);
      assert.equal(commitExists(main, 'f'.repeat(40)), false);
      assert.equal(commitExists(main, blob), false);
      assert.equal(commitExists(main, '--all'), false);
      assert.equal(commitExists(join(dir, 'nowhere'), first), false);
    });

    it("isAncestor: a commit is its own ancestor and its parent's descendant, not the other way round", () => {
      const second = commitIn(main, 'second');
      git(main, 'checkout', '-q', '-b', 'fork', first);
      const forked = commitIn(main, 'forked');
      assert.equal(isAncestor(main, first, second), true);
      assert.equal(isAncestor(main, second, second), true);
      assert.equal(isAncestor(main, second, first), false);
      assert.equal(isAncestor(main, second, forked), false);
    });

    it('isAncestor refuses a commit git cannot find, rather than answering no', () => {
      assert.throws(
        () => isAncestor(main, 'f'.repeat(40), first),
        refusal(/^cannot tell whether f{40} is an ancestor of [0-9a-f]{40} in '.*': /),
      );
    });
  });

  describe('modifiedTrackedFiles', () => {
    beforeEach(() => {
      for (const name of ['a.txt', 'b c.txt', 'd.txt', 'e.txt'])
        fs.writeFileSync(join(main, name), `${name}\n`);
      fs.writeFileSync(join(main, '.gitignore'), 'ignored.log\n');
      git(main, 'add', '.');
      commitIn(main, 'files');
    });

    it('is empty in a clean work tree, whatever untracked and ignored files lie around', () => {
      fs.writeFileSync(join(main, 'untracked.txt'), 'u\n');
      fs.writeFileSync(join(main, 'ignored.log'), 'i\n');
      assert.deepEqual(modifiedTrackedFiles(main), []);
    });

    it("lists changed, staged, deleted and renamed tracked files by name; the first record's leading status space is kept", () => {
      fs.writeFileSync(join(main, 'a.txt'), 'changed\n');
      assert.deepEqual(
        modifiedTrackedFiles(main),
        ['a.txt'],
        'an unstaged change first: " M a.txt"',
      );
      fs.writeFileSync(join(main, 'b c.txt'), 'changed\n');
      git(main, 'add', 'b c.txt');
      fs.rmSync(join(main, 'd.txt'));
      git(main, 'mv', 'e.txt', 'f.txt');
      fs.writeFileSync(join(main, 'new.txt'), 'n\n');
      assert.deepEqual(modifiedTrackedFiles(main), ['a.txt', 'b c.txt', 'd.txt', 'f.txt', 'e.txt']);
    });

    it("reads a worktree's own state, not the main checkout's", () => {
      const wt = join(dir, 'wt');
      git(main, 'worktree', 'add', '-q', '-b', 'side', wt);
      fs.writeFileSync(join(wt, 'd.txt'), 'changed\n');
      assert.deepEqual(modifiedTrackedFiles(wt), ['d.txt']);
      assert.deepEqual(modifiedTrackedFiles(main), []);
    });

    it('refuses a folder outside git', () => {
      const plain = join(dir, 'plain');
      fs.mkdirSync(plain);
      assert.throws(
        () => modifiedTrackedFiles(plain),
        refusal(/^cannot read the state of '.*\/plain': fatal: not a git repository/),
      );
    });
  });

  describe('repoSnapshotOf and repoChanges', () => {
    it('no change; a tracked file edited, then restored; a commit (HEAD moved); untracked files do not count', () => {
      const dir = tempDir('baton-snap-');
      try {
        repoAt(dir);
        fs.writeFileSync(join(dir, 'a.txt'), 'a\n');
        git(dir, 'add', 'a.txt');
        commitIn(dir, 'a');
        const before = repoSnapshotOf(dir);
        fs.writeFileSync(join(dir, 'scratch.txt'), 'untracked\n');
        assert.equal(repoChanges(before, repoSnapshotOf(dir)), undefined);
        fs.writeFileSync(join(dir, 'a.txt'), 'edited\n');
        assert.equal(repoChanges(before, repoSnapshotOf(dir)), 'tracked files changed: a.txt');
        fs.writeFileSync(join(dir, 'a.txt'), 'a\n');
        assert.equal(repoChanges(before, repoSnapshotOf(dir)), undefined);
        commitIn(dir, 'moved on');
        assert.match(
          repoChanges(before, repoSnapshotOf(dir))!,
          /^HEAD moved from [0-9a-f]{12} to [0-9a-f]{12}$/,
        );
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });

    it('repoSnapshotBeside is the same snapshot with git running beside the caller (a path with spaces, a rename, a deletion), and the same refusal outside a repository', async () => {
      const dir = tempDir('baton-snap-');
      try {
        repoAt(dir);
        for (const f of ['a b.txt', 'c.txt', 'd.txt']) fs.writeFileSync(join(dir, f), `${f}\n`);
        git(dir, 'add', '.');
        commitIn(dir, 'files');
        fs.writeFileSync(join(dir, 'a b.txt'), 'edited\n');
        git(dir, 'mv', 'c.txt', 'e.txt');
        fs.rmSync(join(dir, 'd.txt'));
        const beside = await repoSnapshotBeside(dir);
        assert.deepEqual(beside, repoSnapshotOf(dir));
        assert.deepEqual(Object.keys(beside.modified).sort(), [
          'a b.txt',
          'c.txt',
          'd.txt',
          'e.txt',
        ]);
        assert.equal(beside.modified['d.txt'], 'deleted');
        const outside = tempDir('baton-snap-');
        try {
          await assert.rejects(
            repoSnapshotBeside(outside),
            refusal(/^cannot read the state of '.*': fatal: not a git repository/),
          );
        } finally {
          fs.rmSync(outside, { recursive: true, force: true });
        }
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });
  });
});
