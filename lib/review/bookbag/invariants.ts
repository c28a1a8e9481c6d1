// The invariants of a bookbag (docs/review.md §2), checked on every read. A bookbag that
// breaks one is inconsistent: it is reported with every problem, never silently fixed,
// and no command writes to it. Each verdict, score and the union of findings is derived,
// so each must be what its lens's findings give.
import { LENSES, type Bookbag, type Lens, type ReviewState } from './bookbag.js';
import { acceptedOf, scoreOf, verdictOf } from './scoring.js';

/** The state the two verdicts imply (for states up to REVIEWED). */
function stateForVerdicts(bag: Bookbag): ReviewState {
  if (bag.cto_verdict && bag.coo_verdict) return 'REVIEWED';
  if (bag.cto_verdict) return 'CTO_REVIEWED';
  if (bag.coo_verdict) return 'COO_REVIEWED';
  return 'WRITTEN';
}

function lensProblems(bag: Bookbag, lens: Lens): string[] {
  const verdict = bag[`${lens}_verdict`];
  const findings = bag[`${lens}_findings`];
  const score = bag[`${lens}_score`];
  const problems: string[] = [];
  if (verdict === '') {
    if (
      findings.length > 0 ||
      score !== null ||
      bag[`${lens}_reviewed_at`] ||
      bag[`${lens}_reviewer`] ||
      bag[`${lens}_summary`]
    ) {
      problems.push(`${lens} has review fields but no verdict`);
    }
    return problems;
  }
  if (verdict !== verdictOf(findings))
    problems.push(
      `${lens}_verdict is ${verdict} but its findings give ` +
        `${verdictOf(findings)} (FAIL exactly when a finding is ` +
        `CRITICAL or HIGH)`,
    );
  if (score !== scoreOf(findings, bag.difficulty))
    problems.push(
      `${lens}_score is ${score} but its findings give ${scoreOf(findings, bag.difficulty)}`,
    );
  return problems;
}

/** Every invariant the bookbag breaks, one line each (empty when consistent). */
export function problemsOf(bag: Bookbag): string[] {
  const problems = LENSES.flatMap((lens) => lensProblems(bag, lens));
  // One line per broken rule: `accepted` beside a verdict that is not PASS is that rule alone
  // (acceptedOf fails too), and accepted before REVIEWED with both PASS is a wrong state.
  if (bag.accepted && (bag.cto_verdict !== 'PASS' || bag.coo_verdict !== 'PASS'))
    problems.push('accepted is true but both verdicts are not PASS');
  else if (bag.accepted && !acceptedOf(bag))
    problems.push('accepted is true but the verdicts, scores and findings do not accept');
  const reviewed = bag.state === 'REVIEWED' || bag.state === 'SCORED' || bag.state === 'DISPOSED';
  const implied = stateForVerdicts(bag);
  if (reviewed ? implied !== 'REVIEWED' : bag.state !== implied)
    problems.push(`state is ${bag.state} but the verdicts say ${implied}`);
  const union = LENSES.flatMap((lens) => bag[`${lens}_findings`].map((f) => ({ lens, ...f })));
  if (JSON.stringify(union) !== JSON.stringify(bag.findings))
    problems.push('findings is not the union of cto_findings and coo_findings');
  return [...new Set(problems)];
}
