// Git worktrees of the swarm: ROOT/.worktrees/<name>, one branch per worktree name.
// Git runs with an argument vector; when it fails, its own message (`fatal: ...`) is
// what the user sees, with a hint when the cause is known (a repository without a commit).
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fail } from '../fsx/commandFailure.js';
import { gitCommonDirOf, gitComplaint, runGit as git, worktreeTopOf } from '../proc/git.js';
import { worktreePathOf } from '../project/layout.js';

/**
 * A worktree `baton up` made ready, and what it had to create for it (so a failed up can take it
 * back).
 */
export interface EnsuredWorktree {
  name: string;
  path: string;
  created: boolean;
  /** The commit a branch created for it started at (undefined when the branch existed). */
  branchBase?: string;
}

/**
 * Creates ROOT/.worktrees/<name> on branch <name> (from HEAD if new); an existing worktree is kept.
 */
export function ensureWorktree(root: string, name: string): EnsuredWorktree {
  const path = worktreePathOf(root, name);
  if (existsSync(join(path, '.git'))) return { name, path, created: false };
  let branchExists = true;
  try {
    git(root, ['rev-parse', '--verify', '--quiet', `refs/heads/${name}`]);
  } catch {
    branchExists = false;
  }
  try {
    git(root, ['worktree', 'add', '-q', ...(branchExists ? [path, name] : ['-b', name, path])]);
  } catch (err) {
    fail('environment', `baton: git worktree add for '${name}' failed: ${gitComplaint(err)}`);
  }
  return {
    name,
    path,
    created: true,
    branchBase: branchExists ? undefined : git(root, ['rev-parse', `refs/heads/${name}`]),
  };
}

/**
 * Takes back what ensureWorktree created: the worktree, and its branch when created with it and
 * nothing was committed on it since.
 */
export function removeWorktree(root: string, made: EnsuredWorktree): void {
  if (!made.created) return;
  git(root, ['worktree', 'remove', '--force', made.path]);
  if (
    made.branchBase !== undefined &&
    git(root, ['rev-parse', `refs/heads/${made.name}`]) === made.branchBase
  ) {
    git(root, ['branch', '-D', '-q', made.name]);
  }
}

/** Fails (environment) with a hint when the repository has no commit yet: worktrees need one. */
export function requireFirstCommit(root: string): void {
  try {
    git(root, ['rev-parse', '--verify', '--quiet', 'HEAD^{commit}']);
  } catch {
    fail(
      'environment',
      `baton: the repository '${root}' has no commit yet, and ` +
        `worktrees start from one: make a first commit (git commit ` +
        `--allow-empty -m 'first commit') and run baton up again`,
    );
  }
}

/** The main checkout of the repository containing `dir` (the parent of git's common dir). */
export function mainCheckoutOf(dir: string): string {
  try {
    return worktreeTopOf(dirname(gitCommonDirOf(dir)));
  } catch {
    fail('environment', `baton: not inside a git repository: '${dir}'`);
  }
}
