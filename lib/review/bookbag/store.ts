// Reading and writing bookbags (docs/review.md §2, §4).
//
// Concurrency contract: every change is a locked read-modify-write (updateBookbag): take
// the bead's lock (lib/fsx/lock.ts: pid, start time, boot id, host and token; a dead
// holder on this host is taken over by exactly one waiter, a live or remote one never),
// read and check, apply, write, release in `finally`. The wait is bounded (10 s by default),
// then LockBusy (exit 75) with nothing written. Two lenses' verdicts landing in the same
// millisecond are serialized by the lock, so both are kept.
//
// Crash contract: a write is replaceFile's (temp file, fsync, rename) and then an fsync
// of the folder, so a reader sees the old or the new bookbag, never a torn one, and a
// success reported after it survives power loss. Symlinks are refused, never followed.
//
// Every read validates against the JSON Schema (ajv's standalone validator) and checks the
// invariants; every write validates first, so no invalid or inconsistent bookbag is written.
import { join } from 'node:path';
import { type StagedWrite } from '../../fsx/durable.js';
import { reviewPathsOf, type ReviewPaths } from '../../project/layout.js';
import {
  readRecord,
  RECORD_LOCK_WAIT_MS,
  withLockHeld,
  stageRecord,
  writeRecord,
  type RecordKind,
} from '../../fsx/records.js';
import { requireBeadName } from './beads.js';
import { type Bookbag } from './bookbag.js';
import { validateBookbagSchema } from './bookbagValidator.generated.js';
import { problemsOf } from './invariants.js';
import { BookbagProblem } from './reviewErrors.js';

/** Bookbags as typed records: the schema, the invariants, a BookbagProblem for a bad file. */
export const BOOKBAG: RecordKind<Bookbag> = {
  what: 'bookbag',
  validate: validateBookbagSchema,
  invariants: problemsOf,
  invalid: (path, problems) => new BookbagProblem('invalid', path, problems),
  crashSteps: { written: 'review:bookbag-written', synced: 'review:bookbag-synced' },
};

/** `<bookbags>/<bead>.json`. */
export function bookbagPathOf(paths: ReviewPaths, bead: string): string {
  return join(paths.bookbags, `${requireBeadName(bead)}.json`);
}

/**
 * Reads a bookbag and checks it: the record and its invariant problems (a schema-invalid or missing
 * file throws).
 */
export function loadBookbag(path: string): { bag: Bookbag; problems: string[] } {
  const bag = readRecord<Bookbag>(path, { ...BOOKBAG, invariants: undefined });
  if (bag === undefined) throw new BookbagProblem('missing', path, ['no such bookbag']);
  return { bag, problems: problemsOf(bag) };
}

/** Reads a bookbag that must be valid and consistent. */
export function readBookbag(path: string): Bookbag {
  const { bag, problems } = loadBookbag(path);
  if (problems.length > 0) throw new BookbagProblem('inconsistent', path, problems);
  return bag;
}

/** Writes a valid, consistent bookbag atomically (mode 0600), then fsyncs its folder. */
export function writeBookbag(path: string, bag: Bookbag): void {
  writeRecord(path, BOOKBAG, bag);
}

/** writeBookbag in two halves (durable.ts StagedWrite), to be written with other files. */
export function stageBookbag(path: string, bag: Bookbag): StagedWrite {
  return stageRecord(path, BOOKBAG, bag);
}

/** Options of a locked change. */
export interface UpdateOptions {
  lockTimeoutMs?: number;
  env?: NodeJS.ProcessEnv;
}

/** The arguments of a change to one bead: ROOT, the bead, `What` the change takes, options, now. */
export type BeadChange<What extends unknown[]> = [
  root: string,
  bead: string,
  ...what: What,
  options?: UpdateOptions,
  now?: Date,
];

/** Runs `fn` holding the bead's lock (bounded wait, then LockBusy). */
export async function withBeadLock<T>(
  root: string,
  bead: string,
  options: UpdateOptions,
  fn: (paths: ReviewPaths) => Promise<T> | T,
): Promise<T> {
  const paths = reviewPathsOf(root, options.env);
  const lockDir = join(paths.locks, `${requireBeadName(bead)}.lock`);
  return withLockHeld(lockDir, options.lockTimeoutMs ?? RECORD_LOCK_WAIT_MS, () => fn(paths));
}

/** The locked read-modify-write of one bookbag; returns what was written. */
export async function updateBookbag(
  root: string,
  bead: string,
  options: UpdateOptions,
  change: (bag: Bookbag) => Bookbag | Promise<Bookbag>,
): Promise<Bookbag> {
  return withBeadLock(root, bead, options, async (paths) => {
    const path = bookbagPathOf(paths, bead);
    const next = await change(readBookbag(path));
    writeBookbag(path, next);
    return next;
  });
}

/**
 * Runs the bookbag validator once on an empty object, ahead of a code cache (a bundle's
 * `warmCodeCache`, lib/cli/codeCache.ts); the answer is not used.
 */
export function warmBookbagValidator(): void {
  validateBookbagSchema({});
}
