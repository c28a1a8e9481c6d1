// A leaf's disposable git worktree (docs/review.md §8): `.worktrees/study-<role>-<rand8>`
// on a branch of the same name from ROOT's HEAD; what the worker changed there; and its
// removal, after which the branch is kept when it holds commits the base does not (the
// reviewed work is never thrown away) and deleted when it holds nothing new.
//
// Crash contract: removal is idempotent. Every step checks what is there first and a step
// that finds its work already done (by the leaf's own `finally`, a concurrent `baton leaf
// clean`, or a person) succeeds, so a leaf killed at any point is cleaned by running the
// removal again; `removed_at` is written into the pid record only after the worktree is
// gone and the branch settled. Git runs with argument vectors; its own complaint is quoted.
import * as fs from 'node:fs';
import { fail } from '../../fsx/commandFailure.js';
import { gitComplaint, runGit } from '../../proc/git.js';
import { worktreePathOf } from '../../project/layout.js';
import { writeLeafJson, type LeafRecord } from './leafRecord.js';
import { isoOf } from '../../fsx/timestamps.js';

/** ROOT's HEAD commit (full hash); fails (environment) when the repository has none. */
export function headCommitOf(root: string): string {
  try {
    return runGit(root, ['rev-parse', '--verify', '--quiet', 'HEAD^{commit}']);
  } catch {
    fail(
      'environment',
      `baton leaf: the repository '${root}' has no commit yet, and ` +
        `a leaf's worktree starts from one: make a first commit (git ` +
        `commit --allow-empty -m 'first commit')`,
    );
  }
}

/** Creates the leaf's worktree on a new branch at its base commit. */
export function addLeafWorktree(root: string, record: LeafRecord): void {
  try {
    runGit(root, ['worktree', 'add', '-q', '-b', record.branch, record.path, record.base]);
  } catch (err) {
    fail(
      'environment',
      `baton leaf: git worktree add '${record.path}' failed: ${gitComplaint(err)}`,
    );
  }
}

/**
 * Every file the worker changed: committed since the base, changed since its last commit, and new
 * untracked files (sorted).
 */
export function changedFilesOf(record: LeafRecord): string[] {
  const names = (args: string[]) => runGit(record.path, args).split('\0').filter(Boolean);
  return [
    ...new Set([
      ...names(['diff', '--name-only', '-z', record.base, 'HEAD']),
      ...names(['diff', '--name-only', '-z', 'HEAD']),
      ...names(['ls-files', '--others', '--exclude-standard', '-z']),
    ]),
  ].sort();
}

/**
 * The tip of the leaf's branch when it holds commits its base does not; '' when it holds nothing
 * new or is gone.
 */
export function newWorkOf(root: string, record: LeafRecord): string {
  let tip: string;
  try {
    tip = runGit(root, [
      'rev-parse',
      '--verify',
      '--quiet',
      `refs/heads/${record.branch}^{commit}`,
    ]);
  } catch {
    return '';
  }
  return Number(runGit(root, ['rev-list', '--count', `${record.base}..${tip}`])) > 0 ? tip : '';
}

/**
 * Removes the worktree (nothing when it is gone): git first, and the folder itself when git does
 * not know it.
 */
function removeWorktreeFolder(root: string, path: string): void {
  if (fs.lstatSync(path, { throwIfNoEntry: false }) !== undefined) {
    try {
      runGit(root, ['worktree', 'remove', '--force', '--force', path]);
    } catch {
      fs.rmSync(path, { recursive: true, force: true });
    }
  }
  runGit(root, ['worktree', 'prune']);
}

/** What the removal left: the branch and its tip when kept ('' when deleted or never made). */
export interface LeafDisposal {
  branch: string;
  commit: string;
}

/**
 * Refuses a record whose worktree is not a leaf's (`.worktrees/study-<role>-<rand8>` on the branch
 * of that name): nothing else is ever removed.
 */
function requireLeafWorktree(root: string, record: LeafRecord): void {
  const named = /^study-[A-Za-z][A-Za-z0-9-]*-[0-9a-f]{8}$/.test(record.worktree);
  if (
    !named ||
    record.branch !== record.worktree ||
    record.path !== worktreePathOf(root, record.worktree)
  ) {
    throw new Error(
      `leaf record of ${record.bead} names '${record.path}' on ` +
        `branch '${record.branch}', which is not a leaf's worktree: ` +
        `left alone`,
    );
  }
}

/**
 * Removes the leaf's worktree, keeps its branch only when it holds new commits, and marks the pid
 * record removed; idempotent.
 */
export function disposeLeaf(
  root: string,
  recordPath: string,
  record: LeafRecord,
  now = new Date(),
): LeafDisposal {
  requireLeafWorktree(root, record);
  removeWorktreeFolder(root, record.path);
  const commit = newWorkOf(root, record);
  if (commit === '') {
    try {
      runGit(root, ['branch', '-D', '-q', record.branch]);
    } catch (err) {
      if (runGit(root, ['branch', '--list', record.branch]) !== '')
        throw new Error(`git branch -D '${record.branch}' failed: ${gitComplaint(err)}`);
    }
  }
  writeLeafJson(recordPath, { ...record, removed_at: isoOf(now) });
  return { branch: commit === '' ? '' : record.branch, commit };
}
