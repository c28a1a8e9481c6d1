// `baton review score` and `baton review dispose` (docs/review.md §3): the principal's two
// steps after both verdicts. Score: REVIEWED → SCORED with `accepted` recomputed. Dispose:
// SCORED (or REVIEWED with force) → DISPOSED, then the bookbag moves into the archive, and
// the bead's leaf worktree, when a killed leaf left one, is removed (branch kept when it
// holds commits), as `baton leaf clean` would.
//
// Crash contract: dispose writes DISPOSED in place first, then moves the file with one
// rename (both folders fsync'd). A kill between leaves a DISPOSED bookbag in the bookbag
// folder; running dispose again finishes the move. The leaf removal is idempotent and runs
// after the move, so a kill before it leaves an orphan that the next dispose of an
// archived bead cannot reach: `baton leaf clean` (and doctor) still find it.
import { join } from 'node:path';
import { crashPoint } from '../../fsx/crash.js';
import { mkdirSynced, renameSynced } from '../../fsx/durable.js';
import { type Bookbag } from './bookbag.js';
import { cleanLeafOf, type CleanedLeaf } from '../leaf/leafClean.js';
import {
  bookbagPathOf,
  readBookbag,
  withBeadLock,
  writeBookbag,
  type BeadChange,
} from './store.js';
import { withDisposal } from './transitions.js';

/**
 * What dispose did: the archived bookbag, where it is, and the leaf worktree it removed (if any).
 */
export interface Disposal {
  bag: Bookbag;
  path: string;
  leaf?: CleanedLeaf;
}

/** Disposes of a bead, archives its bookbag and removes its orphaned leaf worktree. */
export async function disposeReview(
  ...[root, bead, force, actor, options = {}, now = new Date()]: BeadChange<
    [force: boolean, actor: string]
  >
): Promise<Disposal> {
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
    const leaf = cleanLeafOf(root, bead, options.env ?? process.env, now);
    return leaf === undefined ? { bag, path: archived } : { bag, path: archived, leaf };
  });
}
