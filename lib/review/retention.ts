// The review stage's part of `baton gc` (runtime.md §12.6): a disposed bookbag in the archive
// by the time it was disposed; a leaf's folder once its worktree was removed (`removed_at` in
// leaf.json), and only while its bead has no live bookbag; the library-log entries of a
// teacher by their own `at`. A bookbag that is not DISPOSED is never removed, nor a leaf that
// may still run. A library log is rewritten whole (temp file and rename) under its teacher's
// lock, and left alone while its teacher runs (it appends to the log).
import * as fs from 'node:fs';
import { join } from 'node:path';
import yaml from 'js-yaml';
import { removeWhole, type Removable } from '../admin/retention.js';
import { crashPoint } from '../fsx/crash.js';
import { publishWhole } from '../fsx/durable.js';
import { acquireLock, LockBusy } from '../fsx/lock.js';
import { leafFilesOf, reviewPathsOf, type ReviewPaths } from '../project/layout.js';
import { type Bookbag, type Lens } from './bookbag/bookbag.js';
import { bookbagPathOf, loadBookbag } from './bookbag/store.js';
import { parseLeafRecord, readLeafFile } from './leaf/leafRecord.js';
import { teacherFolderOf } from './teacher/teacherFolder.js';

const namesIn = (dir: string): string[] => (fs.existsSync(dir) ? fs.readdirSync(dir).sort() : []);
const before = (at: string | undefined, bound: number): at is string =>
  at !== undefined && Date.parse(at) < bound;

/** The bookbag at `path` when it is a valid, consistent DISPOSED one (else never judged). */
function disposedBag(path: string): Bookbag | undefined {
  try {
    const { bag, problems } = loadBookbag(path);
    return problems.length === 0 && bag.state === 'DISPOSED' ? bag : undefined;
  } catch {
    return undefined;
  }
}

function archivedBefore(root: string, paths: ReviewPaths, bound: number): Removable[] {
  return namesIn(paths.archive).flatMap((name) => {
    const path = join(paths.archive, name);
    if (!name.endsWith('.json')) return [];
    const bag = disposedBag(path);
    const at = bag?.history.at(-1)?.at;
    if (bag === undefined || !before(at, bound)) return [];
    return [{ kind: 'archive' as const, path, at, remove: () => void removeWhole(root, path) }];
  });
}

function leavesBefore(root: string, paths: ReviewPaths, bound: number): Removable[] {
  return namesIn(paths.leaves).flatMap((bead) => {
    const files = leafFilesOf(paths, bead);
    const text = readLeafFile(files.record);
    let at: string | undefined;
    try {
      at = text === undefined ? undefined : parseLeafRecord(text).removed_at || undefined;
    } catch {
      return [];
    }
    if (!before(at, bound) || fs.existsSync(bookbagPathOf(paths, bead))) return [];
    return [
      {
        kind: 'leaf' as const,
        path: files.dir,
        at,
        remove: () => void removeWhole(root, files.dir),
      },
    ];
  });
}

/** The entries of a library log, or undefined when it is not a YAML list of entries with `at`. */
function entriesOf(path: string): { at: string }[] | undefined {
  try {
    const data = yaml.load(fs.readFileSync(path, 'utf8'));
    if (!Array.isArray(data)) return undefined;
    const ok = data.every((e) => typeof e === 'object' && e !== null && typeof e.at === 'string');
    return ok ? (data as { at: string }[]) : undefined;
  } catch {
    return undefined;
  }
}

/** Rewrites the log without the entries before `bound`, under the teacher's lock; false if busy. */
function pruneLog(path: string, lock: string, bound: number): boolean {
  let release: () => void;
  try {
    release = acquireLock(lock, 0);
  } catch (err) {
    if (err instanceof LockBusy) return false;
    throw err;
  }
  try {
    const entries = entriesOf(path);
    if (entries === undefined) return true;
    const kept = entries.filter((e) => !before(e.at, bound));
    if (kept.length === entries.length) return true;
    publishWhole(
      path,
      kept.length === 0 ? '[]\n' : yaml.dump(kept, { lineWidth: -1, noRefs: true }),
    );
    crashPoint('gc:log-rewritten');
    return true;
  } finally {
    release();
  }
}

function libraryEntriesBefore(paths: ReviewPaths, bound: number): Removable[] {
  return namesIn(paths.teachers).flatMap((lens) => {
    const folder = teacherFolderOf(paths, lens as Lens);
    const old = (entriesOf(folder.libraryLog) ?? []).filter((e) => before(e.at, bound));
    let pruned: boolean | undefined;
    const remove = () => {
      pruned ??= pruneLog(folder.libraryLog, folder.lock, bound);
      if (!pruned)
        throw new Error(`the ${lens} teacher is running; its library log is kept this time`);
    };
    return old.map((e) => ({
      kind: 'library-log' as const,
      path: folder.libraryLog,
      at: e.at,
      remove,
    }));
  });
}

/** The review stage's removable items: archived bookbags, ended leaves, library-log entries. */
export function reviewsToRemove(root: string, bound: Date): Removable[] {
  const paths = reviewPathsOf(root);
  const ms = bound.getTime();
  return [
    ...archivedBefore(root, paths, ms),
    ...leavesBefore(root, paths, ms),
    ...libraryEntriesBefore(paths, ms),
  ];
}
