// `baton review verdict` and the teachers' verdicts (docs/review.md §3, §5): one lens's
// findings recorded by a locked read-modify-write; the verdict that completes the pair
// then queues the review_result to `reply_to` (from that lens's reviewer role) and removes
// the ready signal, still under the lock.
//
// Concurrency contract: the bead's lock serializes the two lenses, so verdicts written in
// the same millisecond are both kept; only the write that makes the bookbag REVIEWED
// queues the result, and `resume` takes the same lock before it looks for a result, so it
// never queues a second one beside a verdict in progress. Crash contract: a kill after the
// verdict is written but before the result is queued leaves a REVIEWED bookbag without a
// result; `baton review resume` queues it (it looks for one first), so the bead ends with
// exactly one result.
import { crashPoint } from '../../fsx/crash.js';
import { type Bookbag } from './bookbag.js';
import { queueReviewResult } from '../lens/reviewHandoffs.js';
import { removeSignal } from '../lens/signals.js';
import {
  bookbagPathOf,
  readBookbag,
  updateBookbag,
  withBeadLock,
  writeBookbag,
  type BeadChange,
  type UpdateOptions,
} from './store.js';
import { withAttempt, withScore, withVerdict, type LensReview } from './transitions.js';

/** Records one lens's verdict; returns the bookbag as written. */
export async function recordVerdict(
  root: string,
  bead: string,
  review: LensReview,
  options: UpdateOptions = {},
  now = new Date(),
): Promise<Bookbag> {
  return withBeadLock(root, bead, options, async (paths) => {
    const path = bookbagPathOf(paths, bead);
    const bag = withVerdict(readBookbag(path), review, now);
    writeBookbag(path, bag);
    if (bag.state !== 'REVIEWED') return bag;
    await queueReviewResult(root, bag, review.lens, now);
    crashPoint('review:result-queued');
    removeSignal(paths, bead);
    return bag;
  });
}

/** Counts one reviewer run of a lens (a teacher's attempt); returns the bookbag as written. */
export async function recordAttempt(
  root: string,
  bead: string,
  lens: LensReview['lens'],
  actor: string,
  detail: string,
  options: UpdateOptions = {},
  now = new Date(),
): Promise<Bookbag> {
  return updateBookbag(root, bead, options, (current) =>
    withAttempt(current, lens, actor, detail, now),
  );
}

/** Scores a REVIEWED bead; returns the bookbag as written. */
export async function scoreReview(
  ...[root, bead, actor, options = {}, now = new Date()]: BeadChange<[actor: string]>
): Promise<Bookbag> {
  return updateBookbag(root, bead, options, (bag) => withScore(bag, actor, now));
}
