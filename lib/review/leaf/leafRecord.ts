// A leaf's files on disk (docs/review.md §8): `<leaves>/<bead>/brief.json`, `output.json`
// (the audit) and `leaf.json`, its pid record.
//
// The pid record says which process runs the leaf and which runs its worker, each as an
// identity line (pid, start time, boot id, host: lib/fsx/processIdentity.ts),
// so a reused pid is never taken for the leaf; and which worktree, branch and base commit
// are the leaf's, so whoever finds it orphaned can remove exactly what it made. It is
// written before the worktree is created and marked `removed_at` after the worktree is
// gone: a leaf killed at any point in between leaves a record that `baton leaf clean` acts on.
//
// Crash contract: every file is whole-file state written with replaceFile (temp
// file, fsync, rename) and then an fsync of the folder, so a reader sees the old or the
// new content, never a torn one. A symlink in their place is refused, and reads never
// follow one.
import { readNoFollow, replaceJson } from '../../fsx/records.js';

/** The pid record of a leaf (`leaf.json`). */
export interface LeafRecord {
  bead: string;
  role: string;
  /** The worktree's name (`study-<role>-<rand8>`), also its branch's. */
  worktree: string;
  /** The worktree's absolute path. */
  path: string;
  branch: string;
  /** The commit the branch started at: a branch still there holds nothing new. */
  base: string;
  /** The identity line of the leaf process. */
  leaf: string;
  /** The identity line of the worker, the leader of its process group ('' until it runs). */
  worker: string;
  /** When the worktree was removed ('' while it may exist). */
  removed_at: string;
}

const RECORD_FIELDS: (keyof LeafRecord)[] = [
  'bead',
  'role',
  'worktree',
  'path',
  'branch',
  'base',
  'leaf',
  'worker',
  'removed_at',
];

/**
 * Writes `value` as JSON to `path` atomically (mode 0600, folder created 0700), then fsyncs the
 * folder.
 */
export function writeLeafJson(path: string, value: unknown): void {
  replaceJson(path, value);
}

/** The text of a file without following a symlink; undefined when it does not exist. */
export function readLeafFile(path: string): string | undefined {
  return readNoFollow(path)?.toString('utf8');
}

/** Parses a pid record; throws an Error saying what is wrong with it. */
export function parseLeafRecord(text: string): LeafRecord {
  const data = JSON.parse(text) as Record<string, unknown>;
  if (typeof data !== 'object' || data === null || Array.isArray(data))
    throw new Error('not a JSON object');
  const missing = RECORD_FIELDS.filter((field) => typeof data[field] !== 'string');
  if (missing.length > 0) throw new Error(`missing or not a string: ${missing.join(', ')}`);
  return Object.fromEntries(
    RECORD_FIELDS.map((field) => [field, data[field]]),
  ) as unknown as LeafRecord;
}
