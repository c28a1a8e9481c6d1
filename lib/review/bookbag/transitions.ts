// The only ways a bookbag changes (docs/review.md §2–3), as pure functions from one
// bookbag to the next: written by submit, a lens's verdict (which derives that lens's
// verdict, score and the union of findings, and on the second verdict `accepted` and
// REVIEWED), a reviewer attempt counted by a teacher, score (REVIEWED → SCORED) and
// dispose (SCORED, or REVIEWED when forced → DISPOSED). Each appends to the history and
// sets the timestamp; a refused change throws a ReviewRefusal and changes nothing.
import {
  type Bookbag,
  type Difficulty,
  type Finding,
  type HistoryEntry,
  type Lens,
  type Verdict,
} from './bookbag.js';
import { ReviewRefusal } from './reviewErrors.js';
import { acceptedOf, scoreOf, verdictOf } from './scoring.js';
import { isoOf } from '../../fsx/timestamps.js';

/** What `baton review submit` records. */
export interface Submission {
  task: string;
  output: string;
  student: string;
  domain: string;
  difficulty: Difficulty;
  verification: string;
  summary: string;
  acMet: string[];
  filesChanged: string[];
  blockers: string[];
  submittedBy: string;
  replyTo: string;
  branch: string;
  commit: string;
  ctoRole: string;
  cooRole: string;
}

function logged(bag: Bookbag, now: Date, entry: Omit<HistoryEntry, 'at'>): Bookbag {
  const at = isoOf(now);
  return { ...bag, history: [...bag.history, { at, ...entry }], timestamp: at };
}

/** A new bookbag in state WRITTEN. */
export function newBookbag(bead: string, s: Submission, now: Date): Bookbag {
  const bag: Bookbag = {
    bead,
    task: s.task,
    student: s.student,
    domain: s.domain,
    difficulty: s.difficulty,
    output: s.output,
    verification: s.verification,
    summary: s.summary,
    ac_met: s.acMet,
    files_changed: s.filesChanged,
    blockers: s.blockers,
    submitted_by: s.submittedBy,
    reply_to: s.replyTo,
    branch: s.branch,
    commit: s.commit,
    cto_role: s.ctoRole,
    coo_role: s.cooRole,
    cto_verdict: '',
    coo_verdict: '',
    cto_findings: [],
    coo_findings: [],
    cto_score: null,
    coo_score: null,
    cto_reviewed_at: '',
    coo_reviewed_at: '',
    cto_reviewer: '',
    coo_reviewer: '',
    cto_summary: '',
    coo_summary: '',
    findings: [],
    accepted: false,
    state: 'WRITTEN',
    attempts: { cto: 0, coo: 0 },
    history: [],
    timestamp: '',
  };
  return logged(bag, now, {
    actor: s.submittedBy,
    event: 'submitted',
    detail: `cto ${s.ctoRole}, coo ${s.cooRole}`,
  });
}

/**
 * One lens's review: its findings, optionally a declared verdict (checked against them), a summary
 * and who reviewed.
 */
export interface LensReview {
  lens: Lens;
  findings: Finding[];
  declared?: Verdict;
  summary: string;
  reviewer: string;
}

/**
 * Records a lens's verdict; refuses a lens already decided, a bookbag past review, or a declared
 * verdict its findings contradict.
 */
export function withVerdict(bag: Bookbag, review: LensReview, now: Date): Bookbag {
  const { lens } = review;
  if (bag[`${lens}_verdict`])
    throw new ReviewRefusal(`${lens} verdict already recorded for ${bag.bead}`);
  if (bag.state === 'SCORED' || bag.state === 'DISPOSED')
    throw new ReviewRefusal(`${bag.bead} is ${bag.state}: no verdict can be recorded`);
  const verdict = verdictOf(review.findings);
  if (review.declared && review.declared !== verdict) {
    const blocking = review.findings.find(
      (f) => f.severity === 'CRITICAL' || f.severity === 'HIGH',
    );
    throw new ReviewRefusal(
      review.declared === 'PASS'
        ? `declared PASS contradicts the ${blocking!.severity} finding ` +
            `'${blocking!.section}: ${blocking!.description}'`
        : 'declared FAIL but no finding is CRITICAL or HIGH',
    );
  }
  const at = isoOf(now);
  const next: Bookbag = {
    ...bag,
    [`${lens}_verdict`]: verdict,
    [`${lens}_findings`]: review.findings,
    [`${lens}_score`]: scoreOf(review.findings, bag.difficulty),
    [`${lens}_reviewed_at`]: at,
    [`${lens}_reviewer`]: review.reviewer,
    [`${lens}_summary`]: review.summary,
  };
  next.findings = [
    ...next.cto_findings.map((f) => ({ lens: 'cto' as const, ...f })),
    ...next.coo_findings.map((f) => ({ lens: 'coo' as const, ...f })),
  ];
  const both = Boolean(next.cto_verdict && next.coo_verdict);
  next.state = both ? 'REVIEWED' : lens === 'cto' ? 'CTO_REVIEWED' : 'COO_REVIEWED';
  next.accepted = both && acceptedOf(next);
  return logged(next, now, {
    actor: review.reviewer,
    event: `${lens}_verdict`,
    detail: `${verdict}, score ${next[`${lens}_score`]}, ${review.findings.length} finding(s)`,
  });
}

/** Counts one reviewer run of a lens (teachers). */
export function withAttempt(
  bag: Bookbag,
  lens: Lens,
  actor: string,
  detail: string,
  now: Date,
): Bookbag {
  return logged({ ...bag, attempts: { ...bag.attempts, [lens]: bag.attempts[lens] + 1 } }, now, {
    actor,
    event: `${lens}_attempt`,
    detail,
  });
}

/** REVIEWED → SCORED, `accepted` recomputed and recorded. */
export function withScore(bag: Bookbag, actor: string, now: Date): Bookbag {
  if (bag.state !== 'REVIEWED')
    throw new ReviewRefusal(`${bag.bead} is ${bag.state}, not REVIEWED: nothing to score`);
  const accepted = acceptedOf(bag);
  return logged({ ...bag, state: 'SCORED', accepted }, now, {
    actor,
    event: 'scored',
    detail: accepted ? 'accepted' : 'not accepted',
  });
}

/** SCORED (or REVIEWED with force) → DISPOSED. */
export function withDisposal(bag: Bookbag, force: boolean, actor: string, now: Date): Bookbag {
  if (bag.state !== 'SCORED' && !(force && bag.state === 'REVIEWED')) {
    throw new ReviewRefusal(
      `${bag.bead} is ${bag.state}: dispose needs ` +
        `SCORED${bag.state === 'REVIEWED' ? ' (or --force)' : ''}`,
    );
  }
  return logged({ ...bag, state: 'DISPOSED' }, now, {
    actor,
    event: 'disposed',
    detail: force ? 'forced' : '',
  });
}
