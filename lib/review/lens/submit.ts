// `baton review submit` (docs/review.md §5–6): writes the bookbag (WRITTEN), then the ready
// signal, then queues one review_request to the CTO role and one to the COO role, from the
// submitter's mailbox.
//
// Concurrency contract: the new bead's lock is held throughout. Crash contract: each step
// is durable before the next; a kill between them leaves a bookbag whose signal or
// requests are missing, which `baton review resume` completes (it re-queues a request it
// cannot find anywhere), so a bead ends with one request per lens. The three steps' files
// (the bookbag's, the signal's, the requests' and their counter's) are written and fsync'd
// together first (durable.ts writeThenPublish); the steps are then published in that order,
// each one's folder fsync'd before the next one's rename, so the order above still holds.
import { lstatSync } from 'node:fs';
import { fail } from '../../fsx/commandFailure.js';
import { readReviewers } from '../../handoff/reviewers.js';
import { readRoles } from '../../handoff/roles.js';
import { crashPoint } from '../../fsx/crash.js';
import { printable } from '../../fsx/printable.js';
import { newBead } from '../bookbag/beads.js';
import { LENSES, type Bookbag } from '../bookbag/bookbag.js';
import { ReviewRefusal } from '../bookbag/reviewErrors.js';
import { queueReviewRequests } from './reviewHandoffs.js';
import { stageSignal } from './signals.js';
import { bookbagPathOf, stageBookbag, withBeadLock, type UpdateOptions } from '../bookbag/store.js';
import { newBookbag, type Submission } from '../bookbag/transitions.js';

/**
 * A submission whose reviewer roles may come from reviewers.tsv, and whose bead its caller may have
 * drawn (a leaf's worktree carries the bead's rand8).
 */
export type SubmitRequest = Omit<Submission, 'ctoRole' | 'cooRole'> & {
  ctoRole?: string;
  cooRole?: string;
  bead?: string;
};

/**
 * The reviewer roles of a submission: given, else from reviewers.tsv; each must be a known role (as
 * the submitter).
 */
export function reviewerRoles(
  root: string,
  request: Pick<SubmitRequest, 'ctoRole' | 'cooRole' | 'submittedBy'>,
): { ctoRole: string; cooRole: string } {
  const configured = readReviewers(root);
  const roles = readRoles(root).roles;
  const chosen = { cto: request.ctoRole ?? configured.cto, coo: request.cooRole ?? configured.coo };
  for (const lens of LENSES) {
    const role = chosen[lens];
    if (!role)
      fail(
        'environment',
        `baton review: no ${lens} reviewer: add 'review ${lens} ` +
          `<role>' to swarmforge/swarmforge.conf and run baton init, or ` +
          `pass --${lens} ROLE`,
      );
    if (!roles.has(role))
      fail(
        'invalid',
        `baton review: the ${lens} reviewer '${printable(role)}' is not a role of roles.tsv`,
      );
  }
  if (!roles.has(request.submittedBy))
    fail(
      'invalid',
      `baton review: the submitter '${printable(request.submittedBy)}' is not a role of roles.tsv`,
    );
  return { ctoRole: chosen.cto!, cooRole: chosen.coo! };
}

/** Submits work for review; returns the new bookbag. */
export async function submitReview(
  root: string,
  request: SubmitRequest,
  options: UpdateOptions = {},
  now = new Date(),
): Promise<Bookbag> {
  const submission: Submission = { ...request, ...reviewerRoles(root, request) };
  const bead = request.bead ?? newBead(submission.student, submission.domain);
  return withBeadLock(root, bead, options, async (paths) => {
    const bag = newBookbag(bead, submission, now);
    if (
      request.bead !== undefined &&
      lstatSync(bookbagPathOf(paths, bead), { throwIfNoEntry: false })
    )
      throw new ReviewRefusal(`bead ${bead} already has a bookbag`);
    await queueReviewRequests(root, bag, LENSES, now, [
      stageBookbag(bookbagPathOf(paths, bead), bag),
      stageSignal(paths, bead, now),
    ]);
    crashPoint('review:requested');
    return bag;
  });
}
