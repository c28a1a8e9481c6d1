// Git worktrees of the swarm: ROOT/.worktrees/<name>, one branch per worktree name.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fail } from '../handoff/errors.js';
import { worktreePathOf } from '../handoff/layout.js';

function git(cwd: string, args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

/** Creates ROOT/.worktrees/<name> on branch <name> (from HEAD if new); an existing worktree is kept. Returns its path. */
export function ensureWorktree(root: string, name: string): string {
  const path = worktreePathOf(root, name);
  if (existsSync(join(path, '.git'))) return path;
  let branchExists = true;
  try {
    git(root, ['rev-parse', '--verify', '--quiet', `refs/heads/${name}`]);
  } catch {
    branchExists = false;
  }
  git(root, ['worktree', 'add', '-q', ...(branchExists ? [path, name] : ['-b', name, path])]);
  return path;
}

/** The main checkout of the repository containing `dir` (the parent of git's common dir). */
export function mainCheckoutOf(dir: string): string {
  try {
    const common = git(dir, ['rev-parse', '--path-format=absolute', '--git-common-dir']);
    return git(join(common, '..'), ['rev-parse', '--show-toplevel']);
  } catch {
    fail('environment', `baton: not inside a git repository: '${dir}'`);
  }
}
