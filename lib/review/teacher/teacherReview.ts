// One review_request, as a teacher handles it once it holds the request in process
// (docs/review.md §7): check that it is a request of this teacher's lens for a bead whose
// lens verdict is still empty (else skip it: the caller completes it), then run the reviewer
// at most `maxAttempts` times in all (counting every run recorded in the bookbag, so a
// restarted teacher does not start the count again), each run's prompt built from the
// bookbag as it is then; record each run with recordAttempt and the verdict with
// recordVerdict (after the last failed run: FAIL with one HIGH finding).
//
// A first run may start before its request is claimed (startEarlyRun): the teacher then
// claims while the reviewer starts up, and reviewRequest takes that run over when the claim
// handed out the same request at the same attempt; otherwise the early run is ended unused.
//
// Crash contract: the request stays in process until the caller completes it, after the
// verdict is durable. A teacher killed during a run, or between the verdict and the
// completion, is restarted onto the same request: the bookbag then says whether the lens
// is decided (skip) or how many runs are left, so the bead gets exactly one verdict per
// lens. A run stopped by TERM or INT is `abandoned`: not counted, nothing recorded; so is
// an early run of a teacher killed before its claim (the request is still waiting in new/).
import { fail } from '../../fsx/commandFailure.js';
import { reviewPathsOf } from '../../project/layout.js';
import { crashPoint } from '../../fsx/crash.js';
import { type Item } from '../../queue/index.js';
import { printable } from '../../fsx/printable.js';
import { isSafeBeadName } from '../bookbag/beads.js';
import { type Bookbag, type Finding, type Lens } from '../bookbag/bookbag.js';
import { type FindingsDocument } from '../bookbag/findings.js';
import { BookbagProblem, ReviewRefusal } from '../bookbag/reviewErrors.js';
import { REVIEW_REQUEST } from '../lens/reviewHandoffs.js';
import {
  attemptDetail,
  couldNotCompleteFinding,
  judgeOutcome,
  lastFailureOf,
} from '../lens/reviewAttempts.js';
import { removeReviewerRecord, writeReviewerRecord } from './reviewerRecord.js';
import { runReviewer } from './reviewerRun.js';
import { reviewPromptOf } from './reviewPrompt.js';
import { bookbagPathOf, readBookbag } from '../bookbag/store.js';
import { type TeacherFolder } from './teacherFolder.js';
import { type Episode } from './teacherSession.js';
import { recordAttempt, recordVerdict } from '../bookbag/verdict.js';
import { isoOf } from '../../fsx/timestamps.js';

/** What a teacher reports while it works (printed by the command as lines or JSON). */
export type TeacherEvent =
  | {
      event: 'wake';
      lens: Lens;
      role: string;
      sid: string;
      previous: string | null;
      worktree: string;
      persona: string;
    }
  | { event: 'review'; bead: string; lens: Lens; attempt: number; max_attempts: number }
  | {
      event: 'attempt_failed';
      bead: string;
      lens: Lens;
      attempt: number;
      max_attempts: number;
      reason: string;
    }
  | {
      event: 'verdict';
      bead: string;
      lens: Lens;
      verdict: 'PASS' | 'FAIL';
      score: number;
      findings: number;
      attempts: number;
      state: string;
    }
  | { event: 'skipped'; bead: string; lens: Lens; request: string; reason: string }
  | { event: 'abandoned'; bead: string; lens: Lens; request: string }
  | { event: 'sleep'; lens: Lens; sid: string; session: string; reviewed: number };

/** Everything a teacher works with. */
export interface Teacher {
  root: string;
  role: string;
  lens: Lens;
  worktree: string;
  argv: string[];
  timeoutMs: number;
  maxAttempts: number;
  env: NodeJS.ProcessEnv;
  folder: TeacherFolder;
  /** Aborted by TERM or INT: the run in progress is abandoned. */
  signal: AbortSignal;
  /** The persona's text (read for each run, so an edited SOUL.md takes effect). */
  persona: () => Promise<string>;
  /** The persona file the teacher woke with (its TEACHER: line), or `built-in` for the default. */
  personaFile: string;
  /** The consolidation summary's recurring sections, as the reviewer prompt shows them. */
  summary: () => Promise<string | undefined>;
  report: (event: TeacherEvent) => void;
}

/**
 * How the review of one request ended: an episode for the session, or abandoned (the request stays
 * in process).
 */
export type ReviewEnded = Episode | 'abandoned';

function episodeOf(
  item: Item,
  bead: string,
  end: Episode['end'],
  bag: Bookbag | undefined,
  lens: Lens,
  detail: string,
): Episode {
  const findings: Finding[] = bag ? bag[`${lens}_findings`] : [];
  return {
    bead,
    request: item.id,
    end,
    verdict: end === 'skipped' || !bag ? '' : bag[`${lens}_verdict`],
    score: end === 'skipped' || !bag ? null : bag[`${lens}_score`],
    attempts: bag && end !== 'skipped' ? bag.attempts[lens] : 0,
    sections: end === 'skipped' ? [] : findings.map((f) => f.section),
    detail,
    at: isoOf(new Date()),
  };
}

function skipped(t: Teacher, item: Item, bead: string, reason: string): Episode {
  t.report({ event: 'skipped', bead, lens: t.lens, request: item.id, reason });
  return episodeOf(item, bead, 'skipped', undefined, t.lens, reason);
}

/**
 * Why a claimed item is not a request this teacher reviews (undefined when it is one); a request of
 * the other lens is refused outright.
 */
function requestProblem(t: Teacher, item: Item): string | undefined {
  const h = item.headers;
  if (h.type !== REVIEW_REQUEST)
    return `not a ${REVIEW_REQUEST} (type ${h.type || 'unknown'}): completed without review`;
  if (h.lens !== t.lens) {
    fail(
      'refused',
      `baton review teacher: ${printable(item.path)} is a ` +
        `${printable(h.lens ?? '?')} request but this teacher reviews ` +
        `${t.lens}; it stays in process`,
      `run one teacher per lens: give each lens its own role ` +
        `(review ${t.lens} <role> and review ${h.lens ?? '?'} <other ` +
        `role> in swarmforge.conf)`,
    );
  }
  if (!h.bead || !isSafeBeadName(h.bead))
    return `bead '${printable(h.bead ?? '')}' is not a bead name: completed without review`;
  return undefined;
}

/**
 * The bookbag to review, or why the request is skipped (bead gone, bookbag unusable, lens decided).
 */
function bookbagToReview(t: Teacher, bead: string): Bookbag | string {
  const path = bookbagPathOf(reviewPathsOf(t.root, t.env), bead);
  try {
    const bag = readBookbag(path);
    return bag[`${t.lens}_verdict`]
      ? `${t.lens} verdict already recorded (${bag[`${t.lens}_verdict`]})`
      : bag;
  } catch (err) {
    if (err instanceof BookbagProblem)
      return (
        `${err.kind} bookbag '${path}': ${err.problems[0] ?? err.kind} ` +
        `(see baton review validate ${bead})`
      );
    throw err;
  }
}

/** Records the lens's verdict; a verdict recorded meanwhile by someone else makes it a skip. */
async function recordReview(
  t: Teacher,
  item: Item,
  bead: string,
  document: FindingsDocument,
  end: 'verdict' | 'could-not-complete',
  detail: string,
): Promise<Episode> {
  let bag: Bookbag;
  try {
    bag = await recordVerdict(
      t.root,
      bead,
      {
        lens: t.lens,
        findings: document.findings,
        declared: document.verdict,
        summary: document.summary ?? '',
        reviewer: t.role,
      },
      { env: t.env },
    );
  } catch (err) {
    if (err instanceof ReviewRefusal) return skipped(t, item, bead, err.message);
    throw err;
  }
  crashPoint('teacher:verdict-recorded');
  const lens = t.lens;
  t.report({
    event: 'verdict',
    bead,
    lens,
    verdict: bag[`${lens}_verdict`] as 'PASS' | 'FAIL',
    score: bag[`${lens}_score`]!,
    findings: bag[`${lens}_findings`].length,
    attempts: bag.attempts[lens],
    state: bag.state,
  });
  return episodeOf(item, bead, end, bag, lens, detail);
}

/** The FAIL a lens gets when no run could be used. */
function couldNotComplete(
  t: Teacher,
  item: Item,
  bead: string,
  reason: string,
  runs: number,
): Promise<Episode> {
  return recordReview(
    t,
    item,
    bead,
    {
      verdict: 'FAIL',
      findings: [couldNotCompleteFinding(reason)],
      summary: `review could not be completed after ${runs} attempt(s)`,
    },
    'could-not-complete',
    reason,
  );
}

/** What one reviewer run came to: its judgement, or 'abandoned'. */
type Judged = { failure: string } | { document: FindingsDocument } | 'abandoned';

/**
 * One reviewer run on the bookbag as it is now; its judgement, or 'abandoned'. `stop` ends it
 * besides the teacher's own signal; `onSpawned` is called once the reviewer runs.
 */
async function runOnce(
  t: Teacher,
  bag: Bookbag,
  attempt: number,
  { stop, onSpawned }: { stop?: AbortSignal; onSpawned?: () => void } = {},
): Promise<Judged> {
  const prompt = reviewPromptOf(await t.persona(), t.lens, bag, {
    attempt,
    maxAttempts: t.maxAttempts,
    previousFailure: lastFailureOf(bag, t.lens),
    summary: await t.summary(),
  });
  const env = {
    ...t.env,
    BATON_REVIEW_BEAD: bag.bead,
    BATON_REVIEW_LENS: t.lens,
    BATON_REVIEW_ATTEMPT: String(attempt),
    BATON_REVIEW_MAX_ATTEMPTS: String(t.maxAttempts),
  };
  t.report({ event: 'review', bead: bag.bead, lens: t.lens, attempt, max_attempts: t.maxAttempts });
  try {
    const outcome = await runReviewer({
      argv: t.argv,
      cwd: t.worktree,
      prompt,
      timeoutMs: t.timeoutMs,
      env,
      signal: stop ? AbortSignal.any([t.signal, stop]) : t.signal,
      onStart: (pid) => {
        writeReviewerRecord(t.folder.reviewerRecord, pid, bag.bead, attempt);
        onSpawned?.();
      },
    });
    return outcome.kind === 'abandoned' ? 'abandoned' : await judgeOutcome(outcome);
  } finally {
    removeReviewerRecord(t.folder.reviewerRecord);
  }
}

/** A reviewer run started before its request was claimed (startEarlyRun). */
export interface EarlyRun {
  /** The request's id, bead and the run's attempt number. */
  id: string;
  bead: string;
  attempt: number;
  judged: Promise<Judged>;
  /** Ends the run unused (its process group ended, nothing recorded) and waits for that. */
  discard: () => Promise<void>;
}

/**
 * Starts the first run for `next`, the request the queue is about to hand out, before the teacher
 * claims it, so that the claim's fsyncs overlap the reviewer's start-up; resolves once the reviewer
 * runs. Undefined (nothing started) for anything reviewRequest would not run at once: another
 * type or lens, a bookbag that is unusable, decided or out of attempts.
 */
export async function startEarlyRun(t: Teacher, next: Item): Promise<EarlyRun | undefined> {
  // Another lens's request is refused by requestProblem (it throws): that is the claim's to say.
  if (next.headers.lens !== t.lens || requestProblem(t, next) !== undefined) return undefined;
  const bead = next.headers.bead!;
  const bag = bookbagToReview(t, bead);
  if (typeof bag === 'string' || bag.attempts[t.lens] >= t.maxAttempts) return undefined;
  const stop = new AbortController();
  let spawned: () => void = () => undefined;
  const running = new Promise<void>((resolve) => (spawned = resolve));
  const attempt = bag.attempts[t.lens] + 1;
  const judged = runOnce(t, bag, attempt, { stop: stop.signal, onSpawned: spawned });
  // Awaited later (by reviewRequest or discard): a failure meanwhile is not an unhandled one.
  judged.catch(() => undefined);
  await Promise.race([running, judged]);
  return {
    id: next.id,
    bead,
    attempt,
    judged,
    discard: async () => {
      stop.abort();
      // Unused either way: a run that failed or ended meanwhile leaves nothing to report.
      if ((await judged.catch(() => undefined)) === 'abandoned')
        t.report({ event: 'abandoned', bead, lens: t.lens, request: next.id });
    },
  };
}

/**
 * Reviews the request in process (`item`) to its end: a verdict, a FAIL after the last attempt, a
 * skip, or abandoned. `early`: a run started before the claim, used for the first attempt when it
 * is this request's at that attempt, else ended unused.
 */
export async function reviewRequest(
  t: Teacher,
  item: Item,
  early?: EarlyRun,
): Promise<ReviewEnded> {
  let unused = early;
  // The early run's judgement when it is this request's `attempt`; else it is ended first.
  const earlyJudged = async (bag: Bookbag, attempt: number): Promise<Judged | undefined> => {
    const taken = unused;
    unused = undefined;
    if (taken?.id === item.id && taken.bead === bag.bead && taken.attempt === attempt)
      return taken.judged;
    await taken?.discard();
    return undefined;
  };
  try {
    return await reviewWith(t, item, earlyJudged);
  } finally {
    await unused?.discard();
  }
}

async function reviewWith(
  t: Teacher,
  item: Item,
  earlyJudged: (bag: Bookbag, attempt: number) => Promise<Judged | undefined>,
): Promise<ReviewEnded> {
  const problem = requestProblem(t, item);
  const bead = item.headers.bead ?? '';
  if (problem) return skipped(t, item, bead, problem);
  for (;;) {
    const bag = bookbagToReview(t, bead);
    if (typeof bag === 'string') return skipped(t, item, bead, bag);
    const runs = bag.attempts[t.lens];
    if (runs >= t.maxAttempts)
      return couldNotComplete(
        t,
        item,
        bead,
        lastFailureOf(bag, t.lens) ?? `no attempts left (${runs} of ${t.maxAttempts} used)`,
        runs,
      );
    const judged = (await earlyJudged(bag, runs + 1)) ?? (await runOnce(t, bag, runs + 1));
    if (judged === 'abandoned') {
      t.report({ event: 'abandoned', bead, lens: t.lens, request: item.id });
      return 'abandoned';
    }
    const failure = 'failure' in judged ? judged.failure : undefined;
    await recordAttempt(
      t.root,
      bead,
      t.lens,
      t.role,
      attemptDetail(runs + 1, t.maxAttempts, failure),
      { env: t.env },
    );
    crashPoint('teacher:attempt-recorded');
    if (!('failure' in judged))
      return recordReview(t, item, bead, judged.document, 'verdict', judged.document.summary ?? '');
    t.report({
      event: 'attempt_failed',
      bead,
      lens: t.lens,
      attempt: runs + 1,
      max_attempts: t.maxAttempts,
      reason: judged.failure,
    });
    if (runs + 1 >= t.maxAttempts) return couldNotComplete(t, item, bead, judged.failure, runs + 1);
  }
}
