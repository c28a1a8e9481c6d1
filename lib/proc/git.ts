// Running git for Baton's own steps (the launcher's worktrees, the review stage's leaves,
// a run's repository facts): always an argument vector, never a shell; stdin closed,
// stdout returned (trimmed unless asked otherwise), git's stderr captured, never passed
// to ours: when git fails, its own complaint (`fatal: ...`) is what a message quotes.
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

/** Options of a git call. */
export interface GitOptions {
  /** Keep stdout as git wrote it (a porcelain record may start with a space). */
  untrimmed?: boolean;
  /** Environment added to ours (a commit's identity). */
  env?: NodeJS.ProcessEnv;
}

/** The largest output a git call may return (a long status of a big work tree fits). */
const MAX_OUTPUT = 64 * 1024 * 1024;

/** Runs `git args...` in `cwd` and returns its stdout; throws git's failure. */
export function runGit(cwd: string, args: string[], options: GitOptions = {}): string {
  const out = execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    maxBuffer: MAX_OUTPUT,
    ...(options.env ? { env: { ...process.env, ...options.env } } : {}),
  });
  return options.untrimmed ? out : out.trim();
}

/** runGit's trimmed stdout, or undefined when git fails (a question whose "no" is a failure). */
export function gitAnswer(cwd: string, args: string[]): string | undefined {
  try {
    return runGit(cwd, args);
  } catch {
    return undefined;
  }
}

const execFileAsync = promisify(execFile);

/** runGit without blocking the caller (an agent command that waits on other work meanwhile). */
export async function runGitAsync(cwd: string, args: string[]): Promise<string> {
  const { stdout } = await execFileAsync('git', args, {
    cwd,
    encoding: 'utf8',
    maxBuffer: MAX_OUTPUT,
  });
  return stdout.trim();
}

/** Git's own complaint from a failed call (its stderr's first line), or the error's message. */
export function gitComplaint(err: unknown): string {
  const stderr = String((err as { stderr?: unknown }).stderr ?? '').trim();
  return stderr.split('\n')[0] || (err as Error).message.split('\n')[0]!;
}

/**
 * The top folder of the work tree holding `cwd` (real path), as `git rev-parse --show-toplevel`
 * says, found without starting git where it can be: the nearest folder with a `.git` entry (a
 * folder in a main checkout, a file in a linked worktree or submodule). With GIT_DIR or
 * GIT_WORK_TREE set, or no `.git` found, git decides. Saves a git process on each
 * `baton run reply`, an agent's command on the controller's path.
 */
export function worktreeTopOf(cwd: string, env: NodeJS.ProcessEnv = process.env): string {
  if (env.GIT_DIR === undefined && env.GIT_WORK_TREE === undefined) {
    for (let dir = realpathSync(cwd); ; dir = dirname(dir)) {
      if (existsSync(join(dir, '.git'))) return dir;
      if (dirname(dir) === dir) break;
    }
  }
  return realpathSync(runGit(cwd, ['rev-parse', '--show-toplevel']));
}
