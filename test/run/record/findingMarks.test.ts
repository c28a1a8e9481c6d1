// lib/run/record/findingMarks: findings across review cycles (runtime.md §11.8): each finding
// of a cycle after the first marked new, open or reopened by what its id did before; each
// blocking id of the cycle before that is not reported again closed; and the counts of a cycle.
import assert from 'node:assert/strict';
import {
  currentFindingCountsOf,
  findingCountsOf,
  markOf,
  withMarks,
} from '../../../lib/run/record/findingMarks.js';
import { type RunFinding } from '../../../lib/run/record/workflow.js';
import { sampleWorkflow } from '../sampleWorkflow.js';

/** A finding as review records it (not yet validated or resolved). */
const reported = (
  id: string,
  cycle: number,
  severity: RunFinding['severity'] = 'Important',
  lane: RunFinding['lane'] = 'structured',
): RunFinding => ({
  id,
  lane,
  cycle,
  severity,
  title: `${id} title`,
  blocking: severity === 'Critical' || severity === 'Important',
  validation: null,
  resolved: false,
});

/** The findings of `cycle` after resolve-review resolved `ids` (the rest judged invalid). */
const resolvedIn = (findings: RunFinding[], cycle: number, ids: string[]) =>
  findings.map((f) =>
    f.cycle !== cycle
      ? f
      : {
          ...f,
          validation: { valid: ids.includes(f.id), reason: 'r' },
          resolved: ids.includes(f.id),
        },
  );

describe('lib/run/record/findingMarks', () => {
  it('markOf: new without an earlier report; open when last reported and not resolved; reopened when last resolved', () => {
    const before = [
      { ...reported('fixed', 1), resolved: true },
      reported('kept', 1),
      { ...reported('twice', 1), resolved: true },
      reported('twice', 2),
    ];
    assert.equal(markOf(before, 'other', 2), 'new');
    assert.equal(markOf(before, 'fixed', 2), 'reopened');
    assert.equal(markOf(before, 'kept', 2), 'open');
    assert.equal(markOf(before, 'twice', 3), 'open', 'its last report (cycle 2) is not resolved');
    assert.equal(markOf(before, 'fixed', 1), 'new', 'only earlier cycles count');
  });

  it('three cycles: marks on each finding after the first, closed ids on the earlier finding, counts per cycle', () => {
    // Cycle 1: a, b, c blocking, m a Minor one; a and b resolved, c judged invalid.
    let findings = withMarks(
      [],
      [reported('a', 1), reported('b', 1), reported('c', 1, 'Critical'), reported('m', 1, 'Minor')],
      1,
    );
    assert.ok(
      findings.every((f) => f.mark === undefined && f.closed_in === undefined),
      'cycle 1 is left unmarked',
    );
    assert.deepEqual(findingCountsOf(findings, 1), { new: 4, open: 0, reopened: 0, closed: 0 });
    findings = resolvedIn(findings, 1, ['a', 'b']);

    // Cycle 2: a again (reopened, in both lanes), c again (open), d new; b and m not reported.
    findings = withMarks(
      findings,
      [
        reported('a', 2),
        reported('a', 2, 'Important', 'independent'),
        reported('c', 2),
        reported('d', 2),
      ],
      2,
    );
    assert.deepEqual(
      findings.filter((f) => f.cycle === 2).map((f) => [f.id, f.lane, f.mark]),
      [
        ['a', 'structured', 'reopened'],
        ['a', 'independent', 'reopened'],
        ['c', 'structured', 'open'],
        ['d', 'structured', 'new'],
      ],
    );
    assert.deepEqual(
      findings.filter((f) => f.closed_in !== undefined).map((f) => [f.id, f.cycle, f.closed_in]),
      [['b', 1, 2]],
      'b (blocking, not reported again) is closed; m is not blocking',
    );
    assert.deepEqual(findingCountsOf(findings, 2), { new: 1, open: 1, reopened: 1, closed: 1 });
    findings = resolvedIn(findings, 2, ['a', 'd']);

    // Cycle 3: b again (resolved in cycle 1: reopened), d again (resolved in cycle 2: reopened),
    // e new; a and c (blocking in cycle 2, not reported) closed.
    findings = withMarks(
      findings,
      [reported('b', 3, 'Minor'), reported('d', 3), reported('e', 3, 'Nit')],
      3,
    );
    assert.deepEqual(
      findings.filter((f) => f.cycle === 3).map((f) => [f.id, f.mark]),
      [
        ['b', 'reopened'],
        ['d', 'reopened'],
        ['e', 'new'],
      ],
    );
    assert.deepEqual(
      findings.filter((f) => f.closed_in === 3).map((f) => [f.id, f.cycle, f.lane]),
      [
        ['a', 2, 'structured'],
        ['a', 2, 'independent'],
        ['c', 2, 'structured'],
      ],
    );
    assert.deepEqual(findingCountsOf(findings, 3), { new: 1, open: 0, reopened: 2, closed: 2 });
    assert.deepEqual(
      findingCountsOf(findings, 2),
      { new: 1, open: 1, reopened: 1, closed: 1 },
      'the counts of an earlier cycle stay as they were',
    );
  });

  it('an id judged invalid and left out for a cycle is open when it comes back', () => {
    let findings = resolvedIn(withMarks([], [reported('x', 1)], 1), 1, []);
    findings = withMarks(findings, [], 2);
    assert.deepEqual(findingCountsOf(findings, 2), { new: 0, open: 0, reopened: 0, closed: 1 });
    findings = withMarks(findings, [reported('x', 3)], 3);
    assert.equal(findings.at(-1)!.mark, 'open');
    assert.deepEqual(findingCountsOf(findings, 3), { new: 0, open: 1, reopened: 0, closed: 0 });
  });

  it('currentFindingCountsOf: the counts of the run’s current cycle; nothing closed before its review', () => {
    const findings = withMarks([], [reported('a', 1)], 1);
    const wf = sampleWorkflow('/repo', 'b'.repeat(40), { findings, review_cycle: 1 });
    assert.deepEqual(currentFindingCountsOf(wf), { new: 1, open: 0, reopened: 0, closed: 0 });
    assert.deepEqual(currentFindingCountsOf({ ...wf, review_cycle: 2 }), {
      new: 0,
      open: 0,
      reopened: 0,
      closed: 0,
    });
  });
});
