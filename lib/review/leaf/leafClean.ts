// Orphan leaves and `baton leaf clean` (docs/review.md §8). A leaf is an orphan when its
// pid record (`<leaves>/<bead>/leaf.json`) is not marked removed and the process it names
// is gone: a live pid whose start time or boot differs is another process (pid reuse), so
// it counts as gone too; a leaf on another host is never taken for gone. Cleaning one kills
// what is left of its worker's process group (when the recorded leader is still that
// process), removes the worktree, settles the branch (kept when it holds commits) and marks
// the record removed: the same disposal as the leaf's own `finally`, so a cleaner that
// races another, or the leaf's last steps, finds the work done and succeeds.
import { signalProcess } from '../../proc/ending.js';
import * as fs from 'node:fs';
import { leafFilesOf, reviewPathsOf } from '../../project/layout.js';
import { ignoreEnoent } from '../../fsx/absent.js';
import { identityAlive, processRunning } from '../../fsx/processIdentity.js';
import { isSafeBeadName } from '../bookbag/beads.js';
import { parseLeafRecord, readLeafFile, type LeafRecord } from './leafRecord.js';
import { disposeLeaf } from './leafWorktree.js';

/** A leaf's pid record as found on disk: the record, or why it cannot be read. */
export type FoundLeaf =
  { recordPath: string; record: LeafRecord } | { recordPath: string; problem: string };

/**
 * The names of the leaf folders (safe bead names only), sorted; none when there is no leaves
 * folder.
 */
function leafBeadsIn(dir: string): string[] {
  const entries = ignoreEnoent<fs.Dirent[]>(() => fs.readdirSync(dir, { withFileTypes: true }), []);
  return entries
    .filter((e) => e.isDirectory() && isSafeBeadName(e.name))
    .map((e) => e.name)
    .sort();
}

/** Every leaf's pid record (a folder without one made nothing yet and is skipped). */
export function leafRecordsOf(root: string, env: NodeJS.ProcessEnv = process.env): FoundLeaf[] {
  const paths = reviewPathsOf(root, env);
  const found: FoundLeaf[] = [];
  for (const bead of leafBeadsIn(paths.leaves)) {
    const recordPath = leafFilesOf(paths, bead).record;
    try {
      const text = readLeafFile(recordPath);
      if (text !== undefined) found.push({ recordPath, record: parseLeafRecord(text) });
    } catch (err) {
      found.push({ recordPath, problem: (err as Error).message });
    }
  }
  return found;
}

/** An orphan: a leaf whose process is gone and whose worktree was not removed. */
export interface OrphanLeaf {
  recordPath: string;
  record: LeafRecord;
}

/** The orphan leaves of the project. */
export function orphanLeaves(root: string, env: NodeJS.ProcessEnv = process.env): OrphanLeaf[] {
  return leafRecordsOf(root, env).flatMap((found) =>
    'record' in found && found.record.removed_at === '' && !identityAlive(found.record.leaf)
      ? [found]
      : [],
  );
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));

/**
 * Kills the orphan's worker group when its recorded leader is still that process, and waits (at
 * most 5 s) for it to go; true if it was running.
 */
function stopOrphanWorker(identity: string): boolean {
  if (identity === '' || !identityAlive(identity)) return false;
  const pid = Number(identity.split(' ')[0]);
  if (!signalProcess(pid, 'SIGKILL', true)) return false;
  for (const deadline = Date.now() + 5000; processRunning(pid) && Date.now() < deadline;)
    Atomics.wait(sleeper, 0, 0, 10);
  return true;
}

/** What cleaning one orphan did. */
export interface CleanedLeaf {
  bead: string;
  worktree: string;
  path: string;
  /**
   * The branch kept with the worker's commits, and its tip ('' when it was deleted or never made).
   */
  branch: string;
  commit: string;
  worker_killed: boolean;
}

/** Kills what is left of an orphan's worker, removes its worktree and settles its branch. */
function cleanOrphan({ recordPath, record }: OrphanLeaf, root: string, now: Date): CleanedLeaf {
  const workerKilled = stopOrphanWorker(record.worker);
  const kept = disposeLeaf(root, recordPath, record, now);
  return {
    bead: record.bead,
    worktree: record.worktree,
    path: record.path,
    ...kept,
    worker_killed: workerKilled,
  };
}

/** Removes every orphan leaf (`baton leaf clean`); returns what it removed. */
export function cleanLeaves(
  root: string,
  env: NodeJS.ProcessEnv = process.env,
  now = new Date(),
): CleanedLeaf[] {
  return orphanLeaves(root, env).map((orphan) => cleanOrphan(orphan, root, now));
}

/**
 * Removes the leaf worktree of one bead when it is an orphan (`baton review dispose`);
 * undefined when the bead has no leaf, its leaf already removed it, or the leaf still runs
 * (its own `finally` removes it). A record that cannot be read is left for doctor.
 */
export function cleanLeafOf(
  root: string,
  bead: string,
  env: NodeJS.ProcessEnv = process.env,
  now = new Date(),
): CleanedLeaf | undefined {
  const orphan = orphanLeaves(root, env).find((o) => o.record.bead === bead);
  return orphan === undefined ? undefined : cleanOrphan(orphan, root, now);
}
