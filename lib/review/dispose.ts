// `baton review score` and `baton review dispose` (docs/review.md §3): the principal's two
// steps after both verdicts. Score: REVIEWED → SCORED with `accepted` recomputed. Dispose:
// SCORED (or REVIEWED with force) → DISPOSED, then the bookbag moves into the archive.
//
// Crash contract: dispose writes DISPOSED in place first, then moves the file with one
// rename (both folders fsync'd). A kill between leaves a DISPOSED bookbag in the bookbag
// folder; running dispose again finishes the move.
import { join } from 'node:path';
import { crashPoint } from '../queue/crash.js';
import { mkdirSynced, renameSynced } from '../queue/durable.js';
import { type Bookbag } from './bookbag.js';
import { bookbagPathOf, readBookbag, updateBookbag, withBeadLock, writeBookbag, type UpdateOptions } from './store.js';
import { withDisposal, withScore } from './transitions.js';

/** Scores a REVIEWED bead; returns the bookbag as written. */
export async function scoreReview(root: string, bead: string, actor: string, options: UpdateOptions = {}, now = new Date()): Promise<Bookbag> {
  return updateBookbag(root, bead, options, (bag) => withScore(bag, actor, now));
}

/** Disposes of a bead and archives its bookbag; returns the archived bookbag and where it is. */
export async function disposeReview(root: string, bead: string, force: boolean, actor: string, options: UpdateOptions = {}, now = new Date()): Promise<{ bag: Bookbag; path: string }> {
  return withBeadLock(root, bead, options, (paths) => {
    const path = bookbagPathOf(paths, bead);
    let bag = readBookbag(path);
    if (bag.state !== 'DISPOSED') {
      bag = withDisposal(bag, force, actor, now);
      writeBookbag(path, bag);
      crashPoint('review:disposed-written');
    }
    mkdirSynced(paths.archive);
    const archived = join(paths.archive, `${bead}.json`);
    renameSynced(path, archived);
    return { bag, path: archived };
  });
}
