// lib/review/scoring: the verdict (FAIL exactly when a finding is CRITICAL or HIGH), the
// score by review.md §3's weight table and floor for each difficulty, and the acceptance
// rule (both PASS, both scores at least 50, no CRITICAL finding).
import assert from 'node:assert/strict';
import {
  type Bookbag,
  type Difficulty,
  type Finding,
  type Severity,
} from '../../../lib/review/bookbag/bookbag.js';
import {
  ACCEPTANCE_SCORE,
  acceptedOf,
  scoreOf,
  verdictOf,
} from '../../../lib/review/bookbag/scoring.js';
import { bookbagIn, finding, submission } from '../../support/bookbags.js';

/** review.md §3, as written there: weights of CRITICAL, HIGH, MEDIUM, LOW, then the floor. */
const TABLE: Record<Difficulty, [number, number, number, number, number]> = {
  easy: [25, 8, 4, 2, 50],
  medium: [25, 12, 6, 3, 40],
  hard: [25, 15, 8, 3, 30],
  blocker: [25, 15, 8, 3, 30],
};
const ORDER: Severity[] = ['CRITICAL', 'HIGH', 'MEDIUM', 'LOW'];

const times = (n: number, severity: Severity): Finding[] =>
  Array.from({ length: n }, () => finding(severity));

describe('lib/review/bookbag/scoring', () => {
  it('verdictOf: FAIL exactly when a finding is CRITICAL or HIGH', () => {
    assert.equal(verdictOf([]), 'PASS');
    assert.equal(verdictOf([finding('LOW'), finding('MEDIUM')]), 'PASS');
    assert.equal(verdictOf([finding('LOW'), finding('HIGH')]), 'FAIL');
    assert.equal(verdictOf([finding('CRITICAL')]), 'FAIL');
  });

  for (const [difficulty, row] of Object.entries(TABLE) as [Difficulty, number[]][]) {
    describe(`scoreOf, ${difficulty}`, () => {
      it('is 100 without findings', () => assert.equal(scoreOf([], difficulty), 100));

      it("takes each severity's weight off 100", () => {
        assert.deepEqual(
          ORDER.map((s) => scoreOf([finding(s)], difficulty)),
          ORDER.map((_, i) => 100 - row[i]!),
        );
      });

      it('adds the weights of several findings', () => {
        const findings = [finding('HIGH'), finding('MEDIUM'), finding('LOW'), finding('LOW')];
        assert.equal(scoreOf(findings, difficulty), 100 - row[1]! - row[2]! - 2 * row[3]!);
      });

      it(`never goes below the floor of ${row[4]}`, () => {
        assert.equal(scoreOf(times(4, 'CRITICAL'), difficulty), row[4]);
        assert.equal(scoreOf(times(40, 'LOW'), difficulty), row[4]);
      });
    });
  }

  describe('acceptedOf', () => {
    const reviewed = (cto: Finding[], coo: Finding[], difficulty: Difficulty = 'medium'): Bookbag =>
      bookbagIn('REVIEWED', { cto, coo }, undefined, submission({ difficulty }));

    it('accepts two PASS verdicts with scores of at least 50', () => {
      assert.equal(ACCEPTANCE_SCORE, 50);
      assert.equal(acceptedOf(reviewed([], [finding('MEDIUM')])), true);
      const atTheLine = reviewed(times(25, 'LOW'), [], 'easy');
      assert.equal(atTheLine.cto_score, 50);
      assert.equal(acceptedOf(atTheLine), true);
    });

    it('refuses a FAIL of either lens', () => {
      assert.equal(acceptedOf(reviewed([finding('HIGH')], [])), false);
      assert.equal(acceptedOf(reviewed([], [finding('HIGH')])), false);
    });

    it('refuses a PASS whose score is below 50', () => {
      const low = reviewed([], times(9, 'MEDIUM'));
      assert.deepEqual([low.coo_verdict, low.coo_score], ['PASS', 46]);
      assert.equal(acceptedOf(low), false);
    });

    it('refuses while a verdict is missing', () => {
      assert.equal(acceptedOf(bookbagIn('CTO_REVIEWED')), false);
      assert.equal(acceptedOf(bookbagIn('WRITTEN')), false);
    });

    it('refuses a CRITICAL finding even beside two PASS verdicts with high scores', () => {
      const bag = reviewed([], []);
      assert.equal(acceptedOf({ ...bag, coo_findings: [finding('CRITICAL')] }), false);
    });
  });
});
