// lib/review/reviewErrors: the review stage's failures carry what lib/cli prints: a
// BookbagProblem its kind, path, every problem and a message naming the first.
import assert from 'node:assert/strict';
import {
  BookbagProblem,
  FindingsError,
  ReviewRefusal,
} from '../../../lib/review/bookbag/reviewErrors.js';

describe('lib/review/bookbag/reviewErrors', () => {
  it('BookbagProblem keeps its kind, path and problems, and names the first in its message', () => {
    const problem = new BookbagProblem('inconsistent', '/r/b.json', [
      'state is WRITTEN but the verdicts say REVIEWED',
      'findings is not the union',
    ]);
    assert.deepEqual(
      [problem.kind, problem.path, problem.problems],
      [
        'inconsistent',
        '/r/b.json',
        ['state is WRITTEN but the verdicts say REVIEWED', 'findings is not the union'],
      ],
    );
    assert.equal(
      problem.message,
      "inconsistent bookbag '/r/b.json': state is WRITTEN but the verdicts say REVIEWED",
    );
    assert.equal(
      new BookbagProblem('missing', '/r/x.json', []).message,
      "missing bookbag '/r/x.json': missing",
    );
  });

  it('ReviewRefusal and FindingsError are Errors of their own, told apart by class', () => {
    const refusal = new ReviewRefusal('cto verdict already recorded for b');
    const findings = new FindingsError('unknown severity');
    assert.ok(refusal instanceof Error && !(refusal instanceof FindingsError));
    assert.ok(findings instanceof Error && !(findings instanceof ReviewRefusal));
    assert.deepEqual(
      [refusal.message, findings.message],
      ['cto verdict already recorded for b', 'unknown severity'],
    );
  });
});
