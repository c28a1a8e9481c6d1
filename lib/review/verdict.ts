// `baton review verdict` and the teachers' verdicts (docs/review.md §3, §5): one lens's
// findings recorded by a locked read-modify-write; the verdict that completes the pair
// then queues the review_result to `reply_to` (from that lens's reviewer role) and removes
// the ready signal.
//
// Concurrency contract: the bead's lock serializes the two lenses, so verdicts written in
// the same millisecond are both kept, and only the write that makes the bookbag REVIEWED
// queues the result. Crash contract: a kill after the verdict is written but before the
// result is queued leaves a REVIEWED bookbag without a result; `baton review resume`
// queues it (it looks for one first), so the bead ends with exactly one result.
import { reviewPathsOf } from '../handoff/layout.js';
import { crashPoint } from '../queue/crash.js';
import { type Bookbag } from './bookbag.js';
import { queueReviewResult } from './reviewHandoffs.js';
import { removeSignal } from './signals.js';
import { updateBookbag, type UpdateOptions } from './store.js';
import { withAttempt, withVerdict, type LensReview } from './transitions.js';

/** Records one lens's verdict; returns the bookbag as written. */
export async function recordVerdict(root: string, bead: string, review: LensReview, options: UpdateOptions = {}, now = new Date()): Promise<Bookbag> {
  const bag = await updateBookbag(root, bead, options, (current) => withVerdict(current, review, now));
  if (bag.state !== 'REVIEWED') return bag;
  await queueReviewResult(root, bag, review.lens, now);
  crashPoint('review:result-queued');
  removeSignal(reviewPathsOf(root, options.env), bead);
  return bag;
}

/** Counts one reviewer run of a lens (a teacher's attempt); returns the bookbag as written. */
export async function recordAttempt(root: string, bead: string, lens: LensReview['lens'], actor: string, detail: string, options: UpdateOptions = {}, now = new Date()): Promise<Bookbag> {
  return updateBookbag(root, bead, options, (current) => withAttempt(current, lens, actor, detail, now));
}
