// `baton review resume` (docs/review.md §6): every unfinished bead (WRITTEN, *_REVIEWED,
// REVIEWED) with what it waits for, and the repairs of what a crash can leave: a request
// that is nowhere (not in the submitter's outbox, sent/ or failed/, nor in the reviewer's
// inbox) is queued again, a REVIEWED bead without its result gets it, a missing ready
// signal is written again and a stale one removed.
//
// Concurrency contract: each bead is looked at and repaired under its lock, which a
// verdict also holds while it queues the result, so resume never queues a second result
// beside a verdict in progress, and two resumes never both re-queue one request.
import * as fs from 'node:fs';
import { reviewPathsOf } from '../../project/layout.js';
import { LENSES, type Bookbag, type ReviewState } from '../bookbag/bookbag.js';
import { listBookbags } from '../bookbag/listBookbags.js';
import {
  completingLensOf,
  missingRequests,
  queueReviewRequests,
  queueReviewResult,
  resultQueued,
} from './reviewHandoffs.js';
import { removeSignal, signalPathOf, writeSignal } from './signals.js';
import { bookbagPathOf, readBookbag, withBeadLock, type UpdateOptions } from '../bookbag/store.js';

/** One unfinished bead: its state, what it waits for, and what resume queued or fixed again. */
export interface ResumeEntry {
  bead: string;
  state: ReviewState;
  waits_for: string[];
  repaired: string[];
}

const UNFINISHED = new Set<ReviewState>(['WRITTEN', 'CTO_REVIEWED', 'COO_REVIEWED', 'REVIEWED']);

async function resumeOne(
  root: string,
  bag: Bookbag,
  now: Date,
  env: NodeJS.ProcessEnv,
): Promise<ResumeEntry> {
  const paths = reviewPathsOf(root, env);
  const repaired: string[] = [];
  const waits = LENSES.filter((lens) => !bag[`${lens}_verdict`]).map(
    (lens) => `${lens} verdict from ${bag[`${lens}_role`]}`,
  );
  const missing = await missingRequests(root, bag);
  await queueReviewRequests(root, bag, missing, now);
  for (const lens of missing) repaired.push(`${lens} request queued again`);
  const signalled = fs.existsSync(signalPathOf(paths, bag.bead));
  if (bag.state === 'REVIEWED') {
    waits.push('score');
    if (!(await resultQueued(root, bag))) {
      await queueReviewResult(root, bag, completingLensOf(bag), now);
      repaired.push(`result queued to ${bag.reply_to}`);
    }
    if (signalled) {
      removeSignal(paths, bag.bead);
      repaired.push('ready signal removed');
    }
  } else if (!signalled) {
    writeSignal(paths, bag.bead, now);
    repaired.push('ready signal written again');
  }
  return { bead: bag.bead, state: bag.state, waits_for: waits, repaired };
}

/** Every unfinished bead, repaired where a crash left it short. */
export async function resumeReviews(
  root: string,
  options: UpdateOptions = {},
  now = new Date(),
): Promise<ResumeEntry[]> {
  const entries: ResumeEntry[] = [];
  for (const listed of listBookbags(root, { env: options.env })) {
    if (!UNFINISHED.has(listed.state as ReviewState)) continue;
    entries.push(
      await withBeadLock(root, listed.bead, options, (paths) =>
        resumeOne(
          root,
          readBookbag(bookbagPathOf(paths, listed.bead)),
          now,
          options.env ?? process.env,
        ),
      ),
    );
  }
  return entries;
}
