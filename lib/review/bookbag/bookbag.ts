// The bookbag: the review record of one bead (docs/review.md §2), as types and the names
// of its closed vocabularies. The JSON Schema (schemas/bookbag.schema.json) says the same
// for the file; these types are what the code works with once a file passed it.

/**
 * The two review lenses: CTO (correctness, security, edge cases) and COO (acceptance,
 * completeness).
 */
export const LENSES = ['cto', 'coo'] as const;
/** A review lens. */
export type Lens = (typeof LENSES)[number];

/** Severities as stored (school-core's vocabulary); CRITICAL and HIGH block. */
export const SEVERITIES = ['CRITICAL', 'HIGH', 'MEDIUM', 'LOW'] as const;
/** A stored severity. */
export type Severity = (typeof SEVERITIES)[number];

/** How hard the work was: decides the score's weights and floor. */
export const DIFFICULTIES = ['easy', 'medium', 'hard', 'blocker'] as const;
/** A difficulty. */
export type Difficulty = (typeof DIFFICULTIES)[number];

/** The lifecycle of a bookbag. */
export const STATES = [
  'WRITTEN',
  'CTO_REVIEWED',
  'COO_REVIEWED',
  'REVIEWED',
  'SCORED',
  'DISPOSED',
] as const;
/** A bookbag state. */
export type ReviewState = (typeof STATES)[number];

/** A lens's verdict: empty until that lens has reviewed. */
export type Verdict = '' | 'PASS' | 'FAIL';

/** One finding of a reviewer. */
export interface Finding {
  section: string;
  severity: Severity;
  description: string;
  citation?: string;
  suggestion?: string;
  id?: string;
}

/** A finding in the union of both lenses. */
export interface LensFinding extends Finding {
  lens: Lens;
}

/** One line of the bookbag's history (appended by every write). */
export interface HistoryEntry {
  at: string;
  actor: string;
  event: string;
  detail: string;
}

/** The whole record (docs/review.md §2). */
export interface Bookbag {
  bead: string;
  task: string;
  student: string;
  domain: string;
  difficulty: Difficulty;
  output: string;
  verification: string;
  summary: string;
  ac_met: string[];
  files_changed: string[];
  blockers: string[];
  submitted_by: string;
  reply_to: string;
  branch: string;
  commit: string;
  cto_role: string;
  coo_role: string;
  cto_verdict: Verdict;
  coo_verdict: Verdict;
  cto_findings: Finding[];
  coo_findings: Finding[];
  cto_score: number | null;
  coo_score: number | null;
  cto_reviewed_at: string;
  coo_reviewed_at: string;
  cto_reviewer: string;
  coo_reviewer: string;
  cto_summary: string;
  coo_summary: string;
  findings: LensFinding[];
  accepted: boolean;
  state: ReviewState;
  attempts: { cto: number; coo: number };
  history: HistoryEntry[];
  timestamp: string;
}

/** True for one of the two lens names. */
export function isLens(value: string): value is Lens {
  return (LENSES as readonly string[]).includes(value);
}
