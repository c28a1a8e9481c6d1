// lib/review/invariants: a bookbag built by the transitions breaks no invariant in any
// state, and each invariant of review.md §2 broken on its own gives exactly one problem line.
import assert from 'node:assert/strict';
import { STATES, type Bookbag } from '../../../lib/review/bookbag/bookbag.js';
import { problemsOf } from '../../../lib/review/bookbag/invariants.js';
import { bookbagIn, finding } from '../../support/bookbags.js';

/** The one problem line of `bag` (fails when there is none or more than one). */
function oneProblem(bag: Bookbag): string {
  const problems = problemsOf(bag);
  assert.equal(problems.length, 1, `expected one problem, got ${JSON.stringify(problems)}`);
  return problems[0]!;
}

describe('lib/review/bookbag/invariants', () => {
  it('finds nothing wrong with a consistent bookbag in any state', () => {
    for (const state of STATES) {
      assert.deepEqual(problemsOf(bookbagIn(state)), [], state);
      assert.deepEqual(
        problemsOf(
          bookbagIn(state, { cto: [finding('HIGH'), finding('LOW')], coo: [finding('MEDIUM')] }),
        ),
        [],
        `${state} with findings`,
      );
    }
  });

  describe('accepted ⇒ both verdicts PASS, and acceptance as derived', () => {
    it('accepted beside a FAIL', () => {
      const bag = bookbagIn('REVIEWED', { cto: [finding('HIGH')] });
      assert.match(
        oneProblem({ ...bag, accepted: true }),
        /^accepted is true but both verdicts are not PASS$/,
      );
    });

    it('accepted with one verdict only', () => {
      assert.match(
        oneProblem({ ...bookbagIn('CTO_REVIEWED'), accepted: true }),
        /^accepted is true but both verdicts are not PASS$/,
      );
    });

    it('accepted with two PASS verdicts whose score is below 50', () => {
      const bag = bookbagIn('SCORED', { coo: Array.from({ length: 9 }, () => finding('MEDIUM')) });
      assert.equal(bag.accepted, false);
      assert.match(
        oneProblem({ ...bag, accepted: true }),
        /^accepted is true but the verdicts, scores and findings do not accept$/,
      );
    });
  });

  describe('a verdict is FAIL exactly when its lens has a blocking finding', () => {
    it('FAIL without a blocking finding', () => {
      assert.equal(
        oneProblem({
          ...bookbagIn('CTO_REVIEWED', { cto: [finding('LOW')] }),
          cto_verdict: 'FAIL',
        }),
        'cto_verdict is FAIL but its findings give PASS (FAIL exactly when a finding is CRITICAL or HIGH)',
      );
    });

    it('PASS beside a HIGH finding', () => {
      assert.match(
        oneProblem({ ...bookbagIn('REVIEWED', { coo: [finding('HIGH')] }), coo_verdict: 'PASS' }),
        /^coo_verdict is PASS but its findings give FAIL/,
      );
    });
  });

  describe('state agrees with the verdicts', () => {
    const cases: [string, Bookbag, string][] = [
      [
        'WRITTEN after a verdict',
        { ...bookbagIn('CTO_REVIEWED'), state: 'WRITTEN' },
        'state is WRITTEN but the verdicts say CTO_REVIEWED',
      ],
      [
        'CTO_REVIEWED after the COO verdict',
        { ...bookbagIn('COO_REVIEWED'), state: 'CTO_REVIEWED' },
        'state is CTO_REVIEWED but the verdicts say COO_REVIEWED',
      ],
      [
        'COO_REVIEWED with both verdicts',
        { ...bookbagIn('REVIEWED'), state: 'COO_REVIEWED' },
        'state is COO_REVIEWED but the verdicts say REVIEWED',
      ],
      [
        'REVIEWED with one verdict',
        { ...bookbagIn('CTO_REVIEWED'), state: 'REVIEWED' },
        'state is REVIEWED but the verdicts say CTO_REVIEWED',
      ],
      [
        'SCORED with no verdict',
        { ...bookbagIn('WRITTEN'), state: 'SCORED' },
        'state is SCORED but the verdicts say WRITTEN',
      ],
      [
        'DISPOSED with one verdict',
        { ...bookbagIn('COO_REVIEWED'), state: 'DISPOSED' },
        'state is DISPOSED but the verdicts say COO_REVIEWED',
      ],
    ];
    for (const [what, bag, line] of cases) it(what, () => assert.equal(oneProblem(bag), line));
  });

  describe("a lens's fields change only through its verdict", () => {
    for (const [field, value] of [
      ['cto_findings', [finding('LOW')]],
      ['cto_score', 100],
      ['cto_reviewed_at', '2026-06-15T14:00:01.000Z'],
      ['cto_reviewer', 'rev-cto'],
      ['cto_summary', 'fine'],
    ] as const) {
      it(`${field} set without a cto verdict`, () => {
        const bag = bookbagIn('COO_REVIEWED');
        const broken = {
          ...bag,
          [field]: value,
          ...(field === 'cto_findings'
            ? { findings: [{ lens: 'cto' as const, ...finding('LOW') }] }
            : {}),
        };
        assert.equal(oneProblem(broken), 'cto has review fields but no verdict');
      });
    }

    it('a score that is not what the findings give', () => {
      assert.equal(
        oneProblem({ ...bookbagIn('REVIEWED', { coo: [finding('LOW')] }), coo_score: 100 }),
        'coo_score is 100 but its findings give 97',
      );
    });

    it("a union of findings that is not the two lenses' findings", () => {
      const bag = bookbagIn('REVIEWED', { cto: [finding('LOW')], coo: [finding('MEDIUM')] });
      assert.equal(
        oneProblem({ ...bag, findings: [...bag.findings].reverse() }),
        'findings is not the union of cto_findings and coo_findings',
      );
      assert.equal(
        oneProblem({ ...bag, findings: bag.findings.slice(1) }),
        'findings is not the union of cto_findings and coo_findings',
      );
    });
  });

  it('lists every broken invariant, each once', () => {
    const bag = bookbagIn('REVIEWED', { cto: [finding('HIGH')] });
    const problems = problemsOf({
      ...bag,
      cto_verdict: 'PASS',
      coo_score: 1,
      state: 'SCORED',
      findings: [],
    });
    assert.deepEqual(problems, [
      'cto_verdict is PASS but its findings give FAIL (FAIL exactly when a finding is CRITICAL or HIGH)',
      'coo_score is 1 but its findings give 100',
      'findings is not the union of cto_findings and coo_findings',
    ]);
  });
});
