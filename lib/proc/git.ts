// Running git for Baton's own steps (the launcher's worktrees, the review stage's leaves,
// a run's repository facts): always an argument vector, never a shell; stdin closed,
// stdout returned (trimmed unless asked otherwise), git's stderr captured, never passed
// to ours: when git fails, its own complaint (`fatal: ...`) is what a message quotes.
// node:child_process is loaded at the first call, not with the module: most agent commands
// never run git, and the builtin costs about 5 ms of their start (issue 22).
import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';
import { readTextIfPresent } from '../fsx/absent.js';

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
  const out = process.getBuiltinModule('node:child_process').execFileSync('git', args, {
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

/**
 * runGit without blocking the caller (an agent command that waits on other work meanwhile, the
 * controller recording a review while git reads the repository).
 */
export async function runGitAsync(
  cwd: string,
  args: string[],
  options: Pick<GitOptions, 'untrimmed'> = {},
): Promise<string> {
  const execFileAsync = process
    .getBuiltinModule('node:util')
    .promisify(process.getBuiltinModule('node:child_process').execFile);
  const { stdout } = await execFileAsync('git', args, {
    cwd,
    encoding: 'utf8',
    maxBuffer: MAX_OUTPUT,
  });
  return options.untrimmed ? stdout : stdout.trim();
}

/** Git's own complaint from a failed call (its stderr's first line), or the error's message. */
export function gitComplaint(err: unknown): string {
  const stderr = String((err as { stderr?: unknown }).stderr ?? '').trim();
  return stderr.split('\n')[0] || (err as Error).message.split('\n')[0]!;
}

/**
 * The top folder of the work tree holding `cwd` (real path), as `git rev-parse --show-toplevel`
 * says, found without starting git where the files tell (gitByFiles); else git decides (and
 * its failure is thrown). Saves a git process on each `baton run reply`, an agent's command
 * on the controller's path.
 */
export function worktreeTopOf(cwd: string, env: NodeJS.ProcessEnv = process.env): string {
  return (
    gitByFiles(cwd, env)?.top ??
    realpathSync(runGit(cwd, ['rev-parse', '--show-toplevel'], { env }))
  );
}

/**
 * The repository's common git folder for `cwd` (real path), as `git rev-parse
 * --path-format=absolute --git-common-dir` says, found without starting git where the files
 * tell (gitByFiles): the git folder's `commondir` file when it has one, else the git folder;
 * else git decides (and its failure is thrown). Every `baton run` command of the owner and
 * the controller finds ROOT through this.
 */
export function gitCommonDirOf(cwd: string, env: NodeJS.ProcessEnv = process.env): string {
  const gitDir = gitByFiles(cwd, env)?.gitDir;
  if (gitDir !== undefined) {
    const common = readTextIfPresent(join(gitDir, 'commondir'))?.trim();
    return realpathSync(common ? resolve(gitDir, common) : gitDir);
  }
  const args = ['rev-parse', '--path-format=absolute', '--git-common-dir'];
  return realpathSync(runGit(cwd, args, { env }));
}

/** gitCommonDirOf, or undefined when `cwd` is in no repository. */
export function gitCommonDirIfAny(cwd: string): string | undefined {
  try {
    return gitCommonDirOf(cwd);
  } catch {
    return undefined;
  }
}

/** A full object name, SHA-1 or SHA-256. */
const OBJECT_NAME = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

/**
 * The commit `cwd`'s HEAD names, read from the files as git would, or undefined where git is
 * to decide: HEAD in the work tree's git folder (gitByFiles) holds an object name, or
 * `ref: refs/heads/<branch>` whose loose file in the common folder, else whose line in
 * packed-refs, holds one. Anything else (an unborn branch, a symbolic ref to another kind of
 * ref, a reftable repository, whose HEAD names `refs/heads/.invalid`, a file that cannot be
 * read) is left to git. A branch names a commit (git's commands never point one elsewhere), so
 * no object is read. Saves a git process on each checkpoint the controller records.
 */
export function headCommitByFiles(
  cwd: string,
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  const gitDir = gitByFiles(cwd, env)?.gitDir;
  if (gitDir === undefined) return undefined;
  const textOf = (path: string) => {
    try {
      return readFileSync(path, 'utf8');
    } catch {
      return undefined;
    }
  };
  const head = textOf(join(gitDir, 'HEAD'))?.trim();
  if (head === undefined || OBJECT_NAME.test(head)) return head;
  const ref = /^ref: (refs\/heads\/\S+)$/.exec(head)?.[1];
  if (ref === undefined) return undefined;
  const commondir = textOf(join(gitDir, 'commondir'))?.trim();
  const common = commondir ? resolve(gitDir, commondir) : gitDir;
  const loose = textOf(join(common, ref))?.trim();
  if (loose !== undefined) return OBJECT_NAME.test(loose) ? loose : undefined;
  const packed = textOf(join(common, 'packed-refs'))
    ?.split('\n')
    .find((line) => line.endsWith(` ${ref}`))
    ?.split(' ')[0];
  return packed !== undefined && OBJECT_NAME.test(packed) ? packed : undefined;
}

/** Variables that move git's folders: with any of them set, git decides. */
const GIT_PLACE_VARIABLES = ['GIT_DIR', 'GIT_COMMON_DIR', 'GIT_WORK_TREE'];

/**
 * What the files say about the repository around `cwd`, as git would read them: the nearest
 * `.git` entry from `cwd` up, a folder (a main checkout) or a file whose `gitdir:` line
 * points to the git folder (a linked worktree or submodule); `top` is the folder holding it.
 * Undefined where git's own rules are to decide: a variable of GIT_PLACE_VARIABLES set,
 * `cwd` inside a git folder, an empty `.git` folder or a `.git` file without `gitdir:`, no
 * `.git` at all, or a walk that would cross into another file system (git stops there).
 */
function gitByFiles(
  cwd: string,
  env: NodeJS.ProcessEnv,
): { top: string; gitDir: string } | undefined {
  if (GIT_PLACE_VARIABLES.some((name) => env[name] !== undefined)) return undefined;
  const real = realpathSync(cwd);
  if (real.split(sep).includes('.git')) return undefined;
  const device = statSync(real).dev;
  for (let dir = real; ; dir = dirname(dir)) {
    const entry = join(dir, '.git');
    const stat = statSync(entry, { throwIfNoEntry: false });
    if (stat?.isDirectory())
      return existsSync(join(entry, 'HEAD')) ? { top: dir, gitDir: entry } : undefined;
    if (stat?.isFile()) {
      const line = /^gitdir: (.+)$/m.exec(readFileSync(entry, 'utf8'))?.[1];
      return line === undefined ? undefined : { top: dir, gitDir: resolve(dir, line.trim()) };
    }
    if (dirname(dir) === dir || statSync(dirname(dir)).dev !== device) return undefined;
  }
}
