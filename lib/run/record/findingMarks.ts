// Findings across review cycles (docs/runtime.md §11.8). `review` marks each finding of a
// cycle n > 1 by what its id did before: `new` (never reported), `open` (reported and not
// resolved the last time it was), `reopened` (resolved the last time it was reported, and
// reported again); and it closes each blocking id of cycle n − 1 that cycle n does not
// report (`closed_in: n` on that earlier finding). Both are stored, so the counts of a
// cycle need no guess about whether it was reviewed yet (a clean review reports nothing).
// Ids are compared across lanes: the same id in both lanes is one finding.
import { type FindingMark, type RunFinding, type Workflow } from './workflow.js';

/** The counts `status` shows for a cycle. */
export interface FindingCounts {
  new: number;
  open: number;
  reopened: number;
  closed: number;
}

/** The mark of id `id` reported in `cycle`, from the findings of the cycles before it. */
export function markOf(findings: readonly RunFinding[], id: string, cycle: number): FindingMark {
  const before = findings.filter((f) => f.id === id && f.cycle < cycle);
  if (before.length === 0) return 'new';
  const last = Math.max(...before.map((f) => f.cycle));
  return before.some((f) => f.cycle === last && f.resolved) ? 'reopened' : 'open';
}

/**
 * The record's findings with those of `cycle` (just reported, `reported`) marked and the blocking
 * ids of the cycle before that `reported` leaves out closed; cycle 1 is left unmarked (everything
 * in it is new).
 */
export function withMarks(
  findings: readonly RunFinding[],
  reported: readonly RunFinding[],
  cycle: number,
): RunFinding[] {
  if (cycle === 1) return [...findings, ...reported];
  const ids = new Set(reported.map((f) => f.id));
  const earlier = findings.map((f) =>
    f.cycle === cycle - 1 && f.blocking && !ids.has(f.id) ? { ...f, closed_in: cycle } : f,
  );
  return [...earlier, ...reported.map((f) => ({ ...f, mark: markOf(findings, f.id, cycle) }))];
}

/**
 * The distinct ids of `cycle` by mark, and the ids closed by its review (an unmarked finding of
 * cycle 1 counts as new).
 */
export function findingCountsOf(findings: readonly RunFinding[], cycle: number): FindingCounts {
  const ids = (keep: (f: RunFinding) => boolean) =>
    new Set(findings.filter(keep).map((f) => f.id)).size;
  const marked = (mark: FindingMark) => (f: RunFinding) =>
    f.cycle === cycle && (f.mark ?? (f.cycle === 1 ? 'new' : undefined)) === mark;
  return {
    new: ids(marked('new')),
    open: ids(marked('open')),
    reopened: ids(marked('reopened')),
    closed: ids((f) => f.closed_in === cycle),
  };
}

/** The counts of the run's current review cycle. */
export function currentFindingCountsOf(wf: Workflow): FindingCounts {
  return findingCountsOf(wf.findings, wf.review_cycle);
}
