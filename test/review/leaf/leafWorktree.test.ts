import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { CommandFailure } from '../../../lib/fsx/commandFailure.js';
import { parseLeafRecord, type LeafRecord } from '../../../lib/review/leaf/leafRecord.js';
import {
  addLeafWorktree,
  changedFilesOf,
  disposeLeaf,
  headCommitOf,
  newWorkOf,
} from '../../../lib/review/leaf/leafWorktree.js';
import { commitIn, git, tempDir } from '../../support/project.js';

describe('lib/review/leaf/leafWorktree', function () {
  this.timeout(20_000);
  let root: string;
  let record: LeafRecord;
  let recordPath: string;
  beforeEach(() => {
    root = tempDir();
    git(root, 'init', '-q', '-b', 'main');
    fs.writeFileSync(join(root, 'tracked.txt'), 'v1\n');
    git(root, 'add', 'tracked.txt');
    commitIn(root, 'init');
    const name = 'study-coder-0123abcd';
    record = {
      bead: 'coder-docs-0123abcd',
      role: 'coder',
      worktree: name,
      path: join(root, '.worktrees', name),
      branch: name,
      base: headCommitOf(root),
      leaf: '',
      worker: '',
      removed_at: '',
    };
    recordPath = join(root, 'leaf.json');
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  const branches = () => git(root, 'branch', '--format=%(refname:short)').split('\n').sort();
  const worktreeCount = () =>
    git(root, 'worktree', 'list', '--porcelain')
      .split('\n')
      .filter((l) => l.startsWith('worktree ')).length;

  it('headCommitOf refuses a repository without a commit, naming the command that makes one', () => {
    const empty = tempDir();
    try {
      git(empty, 'init', '-q');
      assert.throws(
        () => headCommitOf(empty),
        (err: unknown) =>
          err instanceof CommandFailure &&
          err.kind === 'environment' &&
          /git commit --allow-empty/.test(err.message),
      );
    } finally {
      fs.rmSync(empty, { recursive: true, force: true });
    }
  });

  it("creates the worktree on its own branch at the base; a second add fails with git's complaint", () => {
    addLeafWorktree(root, record);
    assert.equal(git(record.path, 'rev-parse', '--abbrev-ref', 'HEAD'), record.branch);
    assert.equal(git(record.path, 'rev-parse', 'HEAD'), record.base);
    assert.throws(
      () => addLeafWorktree(root, record),
      (err: unknown) =>
        err instanceof CommandFailure && /git worktree add .* failed: fatal: /.test(err.message),
    );
  });

  it('lists every file the worker changed: committed, modified since, and new untracked ones', () => {
    addLeafWorktree(root, record);
    fs.writeFileSync(join(record.path, 'committed.txt'), 'c\n');
    git(record.path, 'add', 'committed.txt');
    commitIn(record.path, 'work');
    fs.writeFileSync(join(record.path, 'tracked.txt'), 'v2\n');
    fs.mkdirSync(join(record.path, 'new dir'));
    fs.writeFileSync(join(record.path, 'new dir', 'untracked.txt'), 'u\n');
    assert.deepEqual(changedFilesOf(record), [
      'committed.txt',
      'new dir/untracked.txt',
      'tracked.txt',
    ]);
  });

  it('a branch with commits beyond its base is new work (its tip); one without, or a missing one, is not', () => {
    addLeafWorktree(root, record);
    assert.equal(newWorkOf(root, record), '');
    const tip = commitIn(record.path, 'work');
    assert.equal(newWorkOf(root, record), tip);
    assert.equal(newWorkOf(root, { ...record, branch: 'study-coder-ffffffff' }), '');
  });

  it('dispose removes the worktree and deletes a branch with nothing new, marks the record removed, and can run again', () => {
    addLeafWorktree(root, record);
    fs.writeFileSync(join(record.path, 'uncommitted.txt'), 'lost with the worktree\n');
    const now = new Date('2026-01-02T03:04:05.000Z');
    assert.deepEqual(disposeLeaf(root, recordPath, record, now), { branch: '', commit: '' });
    assert.deepEqual(
      [fs.existsSync(record.path), worktreeCount(), branches()],
      [false, 1, ['main']],
    );
    assert.equal(
      parseLeafRecord(fs.readFileSync(recordPath, 'utf8')).removed_at,
      now.toISOString(),
    );
    assert.deepEqual(
      disposeLeaf(root, recordPath, record, now),
      { branch: '', commit: '' },
      'idempotent',
    );
  });

  it('dispose keeps a branch that holds commits; a worktree folder git no longer knows is removed too', () => {
    addLeafWorktree(root, record);
    const tip = commitIn(record.path, 'work');
    assert.deepEqual(disposeLeaf(root, recordPath, record), { branch: record.branch, commit: tip });
    assert.deepEqual(branches(), ['main', record.branch]);
    fs.mkdirSync(record.path, { recursive: true });
    fs.writeFileSync(join(record.path, 'left.txt'), 'x');
    disposeLeaf(root, recordPath, record);
    assert.equal(fs.existsSync(record.path), false);
  });

  it("dispose refuses a record that names anything but a leaf's worktree, and removes nothing", () => {
    const elsewhere = join(root, 'precious');
    fs.mkdirSync(elsewhere);
    for (const bad of [
      { path: elsewhere },
      { branch: 'main' },
      { worktree: 'review', branch: 'review', path: join(root, '.worktrees', 'review') },
    ]) {
      assert.throws(
        () => disposeLeaf(root, recordPath, { ...record, ...bad }),
        /not a leaf's worktree: left alone/,
      );
    }
    assert.deepEqual(
      [fs.existsSync(elsewhere), branches(), fs.existsSync(recordPath)],
      [true, ['main'], false],
    );
  });
});
