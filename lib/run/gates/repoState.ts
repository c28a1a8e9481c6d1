// Git facts about a run's repository (docs/runtime.md §4 start, §7 resume and retry), one
// small function each, all through git's argument vector (never a shell).
//
// "A work tree of this repository" means: git's top level of the folder shares its common
// dir with ROOT, so the main checkout and every linked worktree qualify, and a clone or a
// submodule elsewhere does not. Paths come back absolute and real, the form a record keeps.
// Refs from the command line go after `--end-of-options`, so a ref that looks like an
// option is a ref that does not resolve, never an option.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fail } from '../../fsx/commandFailure.js';
import { sha256Hex } from '../../fsx/digests.js';
import {
  gitCommonDirIfAny,
  gitComplaint,
  headCommitByFiles,
  runGit,
  runGitAsync,
  worktreeTopOf,
} from '../../proc/git.js';
import { printable } from '../../fsx/printable.js';

/**
 * The absolute, real top level of `dir` when it is a work tree of ROOT's repository; else a refusal
 * (exit 2).
 */
export function resolveWorkTree(root: string, dir: string): string {
  const where = printable(dir);
  const stat = statSync(resolve(dir), { throwIfNoEntry: false });
  if (stat === undefined) fail('refused', `repository folder '${where}' does not exist`);
  if (!stat.isDirectory()) fail('refused', `'${where}' is not a folder`);
  let top: string;
  try {
    top = worktreeTopOf(resolve(dir));
  } catch (err) {
    fail('refused', `'${where}' is not a git work tree: ${printable(gitComplaint(err))}`);
  }
  const rootCommon = gitCommonDirIfAny(root);
  if (rootCommon === undefined)
    fail(
      'refused',
      `ROOT '${printable(root)}' is not in a git repository, so ` +
        `'${where}' cannot be a work tree of it`,
    );
  const dirCommon = gitCommonDirIfAny(top);
  if (dirCommon !== rootCommon)
    fail(
      'refused',
      `'${where}' is a work tree of another repository (git dir ` +
        `'${printable(dirCommon ?? '?')}', ROOT's is ` +
        `'${printable(rootCommon)}')`,
    );
  return top;
}

/**
 * The full hash of the commit `ref` names in `dir`; a ref that does not resolve is a refusal (exit
 * 2).
 */
export function resolveCommit(dir: string, ref: string): string {
  try {
    return runGit(dir, ['rev-parse', '--verify', '--quiet', '--end-of-options', `${ref}^{commit}`]);
  } catch {
    fail('refused', `base ref '${printable(ref)}' does not resolve`);
  }
}

/**
 * The full hash of `dir`'s HEAD, from the files where they tell (headCommitByFiles), else as
 * git says; an unborn or missing HEAD is a refusal (exit 2).
 */
export function headOf(dir: string): string {
  try {
    return (
      headCommitByFiles(dir) ??
      runGit(dir, ['rev-parse', '--verify', '--end-of-options', 'HEAD^{commit}'])
    );
  } catch (err) {
    fail(
      'refused',
      `HEAD of '${printable(dir)}' does not resolve: ${printable(gitComplaint(err))}`,
    );
  }
}

/** True when `hash` (hexadecimal) names a commit in `dir`'s repository. */
export function commitExists(dir: string, hash: string): boolean {
  if (!/^[0-9a-f]{4,64}$/.test(hash)) return false;
  try {
    runGit(dir, ['cat-file', '-e', '--end-of-options', `${hash}^{commit}`]);
    return true;
  } catch {
    return false;
  }
}

/**
 * True when `ancestor` is `descendant` or one of its ancestors; a commit git cannot find is a
 * refusal (exit 2).
 */
export function isAncestor(dir: string, ancestor: string, descendant: string): boolean {
  try {
    runGit(dir, ['merge-base', '--is-ancestor', '--end-of-options', ancestor, descendant]);
    return true;
  } catch (err) {
    if ((err as { status?: unknown }).status === 1) return false;
    fail(
      'refused',
      `cannot tell whether ${printable(ancestor)} is an ancestor of ` +
        `${printable(descendant)} in '${printable(dir)}': ` +
        `${printable(gitComplaint(err))}`,
    );
  }
}

/**
 * `git args...` in `dir`, its stdout untrimmed (runGit trims: a porcelain record may start with a
 * space).
 */
function gitUntrimmed(dir: string, args: string[]): string {
  try {
    return runGit(dir, args, { untrimmed: true });
  } catch (err) {
    stateUnreadable(dir, err);
  }
}

/** The refusal of a repository whose state git cannot read. */
function stateUnreadable(dir: string, err: unknown): never {
  fail('refused', `cannot read the state of '${printable(dir)}': ${printable(gitComplaint(err))}`);
}

/**
 * Tracked paths of `dir`'s work tree that differ from HEAD, staged or not, in git's order
 * (both paths of a rename); untracked files do not count.
 */
export function modifiedTrackedFiles(dir: string): string[] {
  const fields = gitUntrimmed(dir, [
    '--no-optional-locks',
    'status',
    '--porcelain=v1',
    '-z',
    '--untracked-files=no',
  ]).split('\0');
  const files: string[] = [];
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i]!;
    if (field.length < 4 || field.startsWith('??') || field.startsWith('!!')) continue;
    files.push(field.slice(3));
    const status = field.slice(0, 2);
    if (status.includes('R'))
      files.push(fields[++i]!); // the renamed path follows: it is gone from the work tree
    else if (status.includes('C')) i++; // the copied path follows: it is unchanged
  }
  return files;
}

/** HEAD and the digest of each tracked file differing from it (what a read-only agent leaves). */
export interface RepoSnapshot {
  head: string;
  modified: Record<string, string>;
}

/**
 * The one git call of a snapshot: HEAD and the tracked paths differing from it, from one `git
 * status --porcelain=v2 --branch` (one process where `rev-parse` and a v1 status took two: the
 * snapshot sits on the controller's path to the validator).
 */
export const SNAPSHOT_STATUS = [
  '--no-optional-locks',
  'status',
  '--porcelain=v2',
  '--branch',
  '-z',
  '--untracked-files=no',
];

/**
 * HEAD and the modified tracked paths in SNAPSHOT_STATUS's output. v2 lines: `# branch.oid
 * <sha>`, `1 XY <6 fields> <path>`, `2 XY <7 fields> <path>` then the original path, `u XY <8
 * fields> <path>`.
 */
function headAndModified(dir: string, status: string): { head: string; files: string[] } {
  const fields = status.split('\0');
  let head = '';
  const files: string[] = [];
  const pathAfter = (field: string, n: number) => field.split(' ').slice(n).join(' ');
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i]!;
    if (field.startsWith('# branch.oid ')) head = field.slice('# branch.oid '.length);
    else if (field.startsWith('1 ')) files.push(pathAfter(field, 8));
    else if (field.startsWith('2 ')) files.push(pathAfter(field, 9), fields[++i]!);
    else if (field.startsWith('u ')) files.push(pathAfter(field, 10));
  }
  // An unborn branch says `(initial)`: let headOf say why there is no HEAD.
  return { head: /^[0-9a-f]{40,64}$/.test(head) ? head : headOf(dir), files };
}

/** The snapshot SNAPSHOT_STATUS's output and the files it names make. */
function snapshotFrom(dir: string, status: string): RepoSnapshot {
  const modified: Record<string, string> = {};
  const { head, files } = headAndModified(dir, status);
  for (const file of files) {
    const path = join(dir, file);
    modified[file] = existsSync(path) ? sha256Hex(readFileSync(path)) : 'deleted';
  }
  return { head, modified };
}

/** The repository's HEAD and its modified tracked files' digests ('deleted' for a gone one). */
export function repoSnapshotOf(dir: string): RepoSnapshot {
  return snapshotFrom(dir, gitUntrimmed(dir, SNAPSHOT_STATUS));
}

/**
 * repoSnapshotOf with git running beside the caller's other work (the controller records a
 * review meanwhile); the same refusal when git cannot read the repository.
 */
export async function repoSnapshotBeside(dir: string): Promise<RepoSnapshot> {
  let status: string;
  try {
    status = await runGitAsync(dir, SNAPSHOT_STATUS, { untrimmed: true });
  } catch (err) {
    stateUnreadable(dir, err);
  }
  return snapshotFrom(dir, status);
}

/** What changed between two snapshots, in words; undefined when nothing did. */
export function repoChanges(before: RepoSnapshot, after: RepoSnapshot): string | undefined {
  const changes: string[] = [];
  if (before.head !== after.head)
    changes.push(`HEAD moved from ${before.head.slice(0, 12)} to ${after.head.slice(0, 12)}`);
  const files = [...new Set([...Object.keys(before.modified), ...Object.keys(after.modified)])];
  const changed = files.filter((f) => before.modified[f] !== after.modified[f]).sort();
  if (changed.length > 0) changes.push(`tracked files changed: ${changed.join(', ')}`);
  return changes.length === 0 ? undefined : changes.join('; ');
}
