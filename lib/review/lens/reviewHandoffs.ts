// The review stage on the queue (docs/review.md §5): a `review_request` (headers `bead`,
// `lens`) queued from the submitter's mailbox to a lens's reviewer role, and a
// `review_result` (headers `bead`, `accepted`, `cto_verdict`, `coo_verdict`) queued from the
// mailbox of the lens whose verdict completed the pair to `reply_to`. They are written with
// lib/handoff/systemSend.ts and delivered by handoffd; the bookbag stays the authority.
// Finding one again (for `resume`) reads the headers of the places it can be: the
// sender's outbox/, sent/ and failed/, and the recipient's new/, in_process/ and
// completed/ with their batches.
import { join } from 'node:path';
import { mailboxOf } from '../../project/layout.js';
import {
  queueSystemHandoff,
  queueSystemHandoffs,
  type SystemHandoff,
} from '../../handoff/systemSend.js';
import { isCode } from '../../fsx/absent.js';
import { type StagedWrite } from '../../fsx/durable.js';
import {
  completedItemPaths,
  entriesOf,
  isBatchName,
  itemNamesIn,
  type Mailbox,
  readItem,
  UnusableItem,
} from '../../queue/index.js';
import { LENSES, type Bookbag, type Lens } from '../bookbag/bookbag.js';

/** The type of a review request handoff. */
export const REVIEW_REQUEST = 'review_request';
/** The type of a review result handoff. */
export const REVIEW_RESULT = 'review_result';

/** The body of a request: what to review and the commands an interactive reviewer runs. */
export function requestBody(bag: Bookbag, lens: Lens): string {
  return (
    `Review bead ${bag.bead} with the ${lens.toUpperCase()} lens.\n\nTask: ${bag.task}\n\n` +
    `Read it:   baton review show ${bag.bead}\n` +
    (`Record it: baton review verdict ${bag.bead} --lens ${lens} ` +
      `[--finding SEVERITY:SECTION:DESCRIPTION]... [--summary S]\n`)
  );
}

/** The body of a result: both verdicts, scores, acceptance and every finding. */
export function resultBody(bag: Bookbag): string {
  const findings = bag.findings.map(
    (f) => `- [${f.lens} ${f.severity}] ${f.section}: ${f.description}`,
  );
  return (
    `Review of bead ${bag.bead}: ` +
    `${bag.accepted ? 'ACCEPTED' : 'NOT ACCEPTED'}\n\nTask: ` +
    `${bag.task}\n` +
    (`CTO: ${bag.cto_verdict} (score ${bag.cto_score})\nCOO: ` +
      `${bag.coo_verdict} (score ${bag.coo_score})\n`) +
    (findings.length > 0 ? `\nFindings:\n${findings.join('\n')}\n` : '\nNo findings.\n')
  );
}

/** The priority of the review stage's handoffs. */
const REVIEW_PRIORITY = '50';

/** One review handoff at REVIEW_PRIORITY, from `from`'s mailbox to `to`; the outbox path. */
function queueReviewHandoff(
  root: string,
  [from, to]: [string, string],
  message: Pick<SystemHandoff, 'type' | 'headers' | 'body'>,
  now: Date,
): Promise<string> {
  return queueSystemHandoff(root, from, { to: [to], priority: REVIEW_PRIORITY, ...message }, now);
}

/**
 * Queues the requests of `lenses` to their reviewer roles, from the submitter's mailbox, together
 * (systemSend.ts); returns their outbox paths. `before`: writes published first, their files
 * fsync'd with the requests' (a submit's bookbag and signal).
 */
export function queueReviewRequests(
  root: string,
  bag: Bookbag,
  lenses: readonly Lens[],
  now = new Date(),
  before: readonly StagedWrite[] = [],
): Promise<string[]> {
  const requests = lenses.map((lens) => ({
    to: [bag[`${lens}_role`]],
    priority: REVIEW_PRIORITY,
    type: REVIEW_REQUEST,
    headers: { bead: bag.bead, lens },
    body: requestBody(bag, lens),
  }));
  return queueSystemHandoffs(root, bag.submitted_by, requests, now, before);
}

/**
 * Queues the result to `reply_to`, from the mailbox of the lens whose verdict completed the pair.
 */
export function queueReviewResult(
  root: string,
  bag: Bookbag,
  completingLens: Lens,
  now = new Date(),
) {
  const headers = {
    bead: bag.bead,
    accepted: String(bag.accepted),
    cto_verdict: bag.cto_verdict,
    coo_verdict: bag.coo_verdict,
  };
  const message = { type: REVIEW_RESULT, headers, body: resultBody(bag) };
  return queueReviewHandoff(root, [bag[`${completingLens}_role`], bag.reply_to], message, now);
}

/** The lens whose verdict came second (the one that completes the pair). */
export function completingLensOf(bag: Bookbag): Lens {
  return bag.coo_reviewed_at > bag.cto_reviewed_at ? 'coo' : 'cto';
}

/**
 * Every item path of a mailbox's sender side (outbox, sent, failed) and inbox side (new, in process
 * with its batches,
 * completed with its batches), in the order items move; each folder is listed only when it is
 * reached, so an item that
 * moves on while it is read is met again in a later folder.
 */
function* itemPathsOf(sender: Mailbox, recipient: Mailbox): Generator<string> {
  for (const dir of [
    sender.outbox,
    sender.sent,
    sender.failed,
    recipient.inboxNew,
    recipient.inProcess,
  ]) {
    for (const name of itemNamesIn(dir)) yield join(dir, name);
  }
  for (const entry of entriesOf(recipient.inProcess)) {
    if (entry.isDirectory() && isBatchName(entry.name))
      for (const name of itemNamesIn(join(recipient.inProcess, entry.name)))
        yield join(recipient.inProcess, entry.name, name);
  }
  yield* completedItemPaths(recipient);
}

/**
 * The paths of handoffs of `type` for `bead` (and `lens`, when given) from `sender` to `recipient`,
 * wherever they are.
 * A listed item that is unusable, or opens nothing (moved on by handoffd or a claim since its
 * folder was listed, or a
 * name that is not valid UTF-8), is skipped.
 */
export async function findReviewHandoffs(
  root: string,
  sender: string,
  recipient: string,
  type: string,
  bead: string,
  lens?: Lens,
): Promise<string[]> {
  const found: string[] = [];
  const matches = (h: Record<string, string>) =>
    h.type === type && h.bead === bead && (lens === undefined || h.lens === lens);
  for (const path of itemPathsOf(mailboxOf(root, sender), mailboxOf(root, recipient))) {
    try {
      if (matches((await readItem(path)).headers)) found.push(path);
    } catch (err) {
      if (!(err instanceof UnusableItem) && !isCode(err, 'ENOENT')) throw err;
    }
  }
  return found;
}

/** The lenses whose request cannot be found anywhere (and that have no verdict yet). */
export async function missingRequests(root: string, bag: Bookbag): Promise<Lens[]> {
  const missing: Lens[] = [];
  for (const lens of LENSES) {
    if (bag[`${lens}_verdict`]) continue;
    if (
      (
        await findReviewHandoffs(
          root,
          bag.submitted_by,
          bag[`${lens}_role`],
          REVIEW_REQUEST,
          bag.bead,
          lens,
        )
      ).length === 0
    )
      missing.push(lens);
  }
  return missing;
}

/**
 * True when the result of a reviewed bead is queued or delivered (from either lens's role: two
 * verdicts in one millisecond leave no order).
 */
export async function resultQueued(root: string, bag: Bookbag): Promise<boolean> {
  for (const sender of new Set([bag.cto_role, bag.coo_role])) {
    if ((await findReviewHandoffs(root, sender, bag.reply_to, REVIEW_RESULT, bag.bead)).length > 0)
      return true;
  }
  return false;
}
