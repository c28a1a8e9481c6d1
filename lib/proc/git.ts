// Running git for Baton's own steps (the launcher's worktrees, the review stage's leaves):
// always an argument vector, never a shell; stdin closed, stdout returned trimmed, and
// when git fails, its own complaint (`fatal: ...`) is what a message quotes.
import { execFileSync } from 'node:child_process';

/** Runs `git args...` in `cwd` and returns its trimmed stdout; throws git's failure. */
export function runGit(cwd: string, args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

/** Git's own complaint from a failed call (its stderr's first line), or the error's message. */
export function gitComplaint(err: unknown): string {
  const stderr = String((err as { stderr?: unknown }).stderr ?? '').trim();
  return stderr.split('\n')[0] || (err as Error).message.split('\n')[0]!;
}
