// What a reviewer run counts as (docs/review.md §7): a findings document whose declared
// verdict (if any) agrees with its findings is a review; a timeout, a crash (a non-zero exit
// or a signal), a program that cannot be started, output that is not a findings document,
// and a document that contradicts itself are failed attempts, each with a one-line reason.
// After the last allowed attempt the lens gets the verdict FAIL through one HIGH finding,
// `review could not be completed: <reason>`: never a retry forever, never a silent drop.
// The attempts themselves are counted in the bookbag (`attempts`, with a history line per
// run), so the bound holds across teacher restarts.
import { type Bookbag, type Finding, type Lens } from '../bookbag/bookbag.js';
import { parseFindingsDocument, type FindingsDocument } from '../bookbag/findings.js';
import { FindingsError } from '../bookbag/reviewErrors.js';
import { type ReviewerOutcome } from '../teacher/reviewerRun.js';
import { verdictOf } from '../bookbag/scoring.js';

/** A run judged: a usable findings document, or why it is not one. */
export type Judgement = { document: FindingsDocument } | { failure: string };

/** The last non-empty line of a stream, shortened (for a reason line). */
function lastLine(text: string): string {
  const line = text.trim().split('\n').at(-1)?.trim() ?? '';
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}

/** Why a run that did not exit 0 failed, in one line. */
function failureOf(
  outcome: Exclude<ReviewerOutcome, { kind: 'exited' } | { kind: 'abandoned' }>,
): string {
  if (outcome.kind === 'unstartable') return outcome.message;
  const tail = lastLine(outcome.stderr);
  const said = tail ? `: ${tail}` : '';
  if (outcome.kind === 'timeout')
    return `reviewer timed out after ${outcome.timeoutMs / 1000} s${said}`;
  const ended = outcome.signal
    ? `was killed by ${outcome.signal}`
    : `exited with code ${outcome.code}`;
  return `reviewer ${ended}${said}`;
}

/**
 * The problem of a parsed document whose declared verdict contradicts its findings, or undefined.
 */
export function contradictionOf(document: FindingsDocument): string | undefined {
  if (!document.verdict) return undefined;
  const derived = verdictOf(document.findings);
  if (document.verdict === derived) return undefined;
  const blocking = document.findings.find(
    (f) => f.severity === 'CRITICAL' || f.severity === 'HIGH',
  );
  return blocking
    ? `contradictory output: declared ${document.verdict} but the ` +
        `${blocking.severity} finding '${blocking.section}: ` +
        `${blocking.description}' blocks`
    : `contradictory output: declared ${document.verdict} but no finding is CRITICAL or HIGH`;
}

/** Judges one finished run (not an abandoned one). */
export async function judgeOutcome(
  outcome: Exclude<ReviewerOutcome, { kind: 'abandoned' }>,
): Promise<Judgement> {
  if (outcome.kind !== 'exited') return { failure: failureOf(outcome) };
  if (outcome.stdout.trim() === '')
    return { failure: 'no output (a findings document was expected on stdout)' };
  let document: FindingsDocument;
  try {
    document = await parseFindingsDocument(outcome.stdout);
  } catch (err) {
    if (!(err instanceof FindingsError)) throw err;
    return { failure: `unparsable output: ${err.message}` };
  }
  const contradiction = contradictionOf(document);
  return contradiction ? { failure: contradiction } : { document };
}

/**
 * The history detail of attempt `n` of `max`: `attempt 2 of 3: <reason>`, or `... : ok` for a
 * usable run.
 */
export function attemptDetail(n: number, max: number, failure?: string): string {
  return `attempt ${n} of ${max}: ${failure ?? 'ok'}`;
}

/** Why the lens's last counted run failed (from the bookbag's history), or undefined. */
export function lastFailureOf(bag: Bookbag, lens: Lens): string | undefined {
  const last = [...bag.history].reverse().find((h) => h.event === `${lens}_attempt`);
  const reason = last?.detail.replace(/^attempt \d+ of \d+: /, '');
  return reason && reason !== 'ok' ? reason : undefined;
}

/** The one finding a lens gets when its review could not be completed. */
export function couldNotCompleteFinding(reason: string): Finding {
  return {
    section: 'review',
    severity: 'HIGH',
    description: `review could not be completed: ${reason}`,
  };
}
