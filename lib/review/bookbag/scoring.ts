// The verdict, the score and acceptance, derived from findings (docs/review.md §3): a
// reviewer reports findings and Baton decides. A lens FAILs exactly when it has a blocking
// (CRITICAL or HIGH) finding; its score is 100 minus the weights of its findings, never
// below the difficulty's floor; a bead is accepted when both lenses PASS with a score of
// at least 50 and neither reported a CRITICAL finding.
import { type Bookbag, type Difficulty, type Finding, type Severity } from './bookbag.js';
import { isBlocking } from './findings.js';

const WEIGHTS: Record<Difficulty, Record<Severity, number> & { floor: number }> = {
  easy: { CRITICAL: 25, HIGH: 8, MEDIUM: 4, LOW: 2, floor: 50 },
  medium: { CRITICAL: 25, HIGH: 12, MEDIUM: 6, LOW: 3, floor: 40 },
  hard: { CRITICAL: 25, HIGH: 15, MEDIUM: 8, LOW: 3, floor: 30 },
  blocker: { CRITICAL: 25, HIGH: 15, MEDIUM: 8, LOW: 3, floor: 30 },
};

/** The lowest score acceptance allows. */
export const ACCEPTANCE_SCORE = 50;

/** PASS, or FAIL when a finding blocks. */
export function verdictOf(findings: Finding[]): 'PASS' | 'FAIL' {
  return findings.some(isBlocking) ? 'FAIL' : 'PASS';
}

/** max(floor, 100 − Σ weights) for the difficulty. */
export function scoreOf(findings: Finding[], difficulty: Difficulty): number {
  const weights = WEIGHTS[difficulty];
  return Math.max(weights.floor, 100 - findings.reduce((sum, f) => sum + weights[f.severity], 0));
}

/** Both PASS, both scores ≥ 50, no CRITICAL finding in either lens. */
export function acceptedOf(bag: Bookbag): boolean {
  return (
    bag.cto_verdict === 'PASS' &&
    bag.coo_verdict === 'PASS' &&
    (bag.cto_score ?? 0) >= ACCEPTANCE_SCORE &&
    (bag.coo_score ?? 0) >= ACCEPTANCE_SCORE &&
    ![...bag.cto_findings, ...bag.coo_findings].some((f) => f.severity === 'CRITICAL')
  );
}
