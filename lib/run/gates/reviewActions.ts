// The review gate of a run (docs/runtime.md §4, §6): `review` records both lanes of one
// cycle (each finding marked against the earlier cycles, §11.8), `resolve-review` records
// the validation of the blocking findings and their resolution. Pure changes of the record
// on parsed evidence (lib/run/gates/evidence.ts); the caller registers the files and
// writes. Refusals (wrong state or cycle, a stale acceptance) throw before anything
// changes; negative or missing evidence and the cycle limit are blocking outcomes.
import { isBlockingSeverity } from '../../findings/severity.js';
import { fail } from '../../fsx/commandFailure.js';
import {
  blockOnBadArtifacts,
  blockRun,
  logged,
  requireState,
  stateOf,
  type ActionOutcome,
} from '../record/runMutation.js';
import { findingCountsOf, withMarks, type FindingCounts } from '../record/findingMarks.js';
import {
  type Artifact,
  type Lane,
  type RunFinding,
  type RunSeverity,
  type Workflow,
} from '../record/workflow.js';
import { isoOf } from '../../fsx/timestamps.js';

/** One lane's findings as parsed. */
export interface LaneFindings {
  lane: Lane;
  findings: { id: string; severity: RunSeverity; title: string }[];
}

/** The checks of review that need no file. */
export function requireReviewable(wf: Workflow, cycle: number): void {
  requireState(wf, 'review', ['ACTIVE'], ['REVIEW_PENDING']);
  if (cycle !== wf.review_cycle)
    fail(
      'refused',
      `review: run ${wf.run_id} is in review cycle ` +
        `${wf.review_cycle}, not ${cycle} (mixed generations are ` +
        `refused)`,
    );
  if (wf.last_acceptance_ok !== true || wf.last_acceptance_at === null)
    fail('refused', `review: run ${wf.run_id} has no passing acceptance`);
  if (
    wf.last_resolution_at !== null &&
    Date.parse(wf.last_acceptance_at) <= Date.parse(wf.last_resolution_at)
  ) {
    fail(
      'refused',
      `review: the last acceptance (${wf.last_acceptance_at}) ran ` +
        `before the last resolution (${wf.last_resolution_at}); run ` +
        `acceptance again`,
    );
  }
}

/**
 * review: both lanes of the current cycle recorded; approval when nothing blocks, else findings
 * pending (or the cycle limit blocks).
 */
export function recordReview(
  wf: Workflow,
  cycle: number,
  lanes: LaneFindings[],
  files: Artifact[],
  artifactsBad: string[],
  actor: string,
  now: Date,
): ActionOutcome {
  requireReviewable(wf, cycle);
  if (lanes.length !== 2 || new Set(lanes.map((l) => l.lane)).size !== 2)
    fail('usage', 'review: give both lanes, --lane structured=FILE --lane independent=FILE');
  const badEvidence = blockOnBadArtifacts(wf, actor, 'review', artifactsBad, now);
  if (badEvidence) return badEvidence;
  const recorded = findingsOfLanes(lanes, cycle);
  const blocking = new Set(recorded.filter((f) => f.blocking).map((f) => f.id)).size;
  const findings = withMarks(wf.findings, recorded, cycle);
  const marks = cycle === 1 ? '' : `; ${countsText(findingCountsOf(findings, cycle))}`;
  const base: Workflow = {
    ...wf,
    findings,
    blocking_findings: blocking,
    artifacts: [...wf.artifacts, ...files],
  };
  const from = stateOf(wf);
  const entry = (detail: string) => ({ actor, action: 'review', from, detail: detail + marks });
  if (blocking === 0) {
    const next: Workflow = {
      ...base,
      status: 'WAITING_FOR_HUMAN_APPROVAL',
      phase: 'APPROVAL_PENDING',
    };
    return {
      workflow: logged(
        next,
        now,
        entry(`cycle ${cycle}: no blocking findings (${recorded.length} in all)`),
      ),
    };
  }
  const pending: Workflow = { ...base, phase: 'FINDINGS_PENDING' };
  if (wf.review_cycle >= wf.max_review_cycles) {
    const reason = `review cycle limit reached with ${blocking} blocking findings`;
    return blockRun(pending, actor, 'review', reason, now, [], from);
  }
  return {
    workflow: logged(pending, now, entry(`cycle ${cycle}: ${blocking} blocking finding(s)`)),
  };
}

/** The counts of a cycle's marks as a history entry says them. */
function countsText(c: FindingCounts): string {
  return `new ${c.new}, open ${c.open}, reopened ${c.reopened}, closed ${c.closed}`;
}

/** The findings of both lanes as the record keeps them (not yet validated or resolved). */
function findingsOfLanes(lanes: LaneFindings[], cycle: number): RunFinding[] {
  return lanes.flatMap((l) =>
    l.findings.map((f) => ({
      id: f.id,
      lane: l.lane,
      cycle,
      severity: f.severity,
      title: f.title,
      blocking: isBlockingSeverity(f.severity),
      validation: null,
      resolved: false,
    })),
  );
}

/** The blocking findings of the current cycle, by id. */
export function blockingIdsOf(wf: Workflow): string[] {
  return [
    ...new Set(
      wf.findings.filter((f) => f.cycle === wf.review_cycle && f.blocking).map((f) => f.id),
    ),
  ];
}

/** The checks of resolve-review that need no file. */
export function requireResolvable(wf: Workflow, cycle: number): void {
  requireState(wf, 'resolve-review', ['ACTIVE'], ['FINDINGS_PENDING']);
  if (cycle !== wf.review_cycle)
    fail(
      'refused',
      `resolve-review: run ${wf.run_id} is in review cycle ` +
        `${wf.review_cycle}, not ${cycle} (mixed generations are ` +
        `refused)`,
    );
}

/**
 * What resolve-review was given, parsed: the validations by id (undefined: no validation file), the
 * resolved ids, and the gaps found.
 */
export interface Resolution {
  validations?: Map<string, { valid: boolean; reason: string }>;
  resolvedIds: Set<string>;
  gaps: string[];
  /** What the resolution file says was changed and tested, by id. */
  changes?: Map<string, { change: string; tests: string }>;
}

/**
 * resolve-review: validations and resolutions recorded, next cycle, REVIEW_PENDING; missing or
 * negative evidence blocks.
 */
export function resolveReview(
  wf: Workflow,
  cycle: number,
  r: Resolution,
  files: Artifact[],
  artifactsBad: string[],
  actor: string,
  now: Date,
): ActionOutcome {
  requireResolvable(wf, cycle);
  const badEvidence = blockOnBadArtifacts(wf, actor, 'resolve-review', artifactsBad, now);
  if (badEvidence) return badEvidence;
  if (r.validations === undefined)
    return blockRun(
      wf,
      actor,
      'resolve-review',
      'no validation of the blocking findings',
      now,
      files,
    );
  if (r.gaps.length > 0) return blockRun(wf, actor, 'resolve-review', r.gaps[0]!, now, files);
  const findings = wf.findings.map((f) => {
    if (f.cycle !== cycle) return f;
    const validation = r.validations!.get(f.id) ?? f.validation;
    return { ...f, validation, resolved: r.resolvedIds.has(f.id) };
  });
  const next: Workflow = {
    ...wf,
    findings,
    artifacts: [...wf.artifacts, ...files],
    review_cycle: cycle + 1,
    blocking_findings: 0,
    last_resolution_at: isoOf(now),
    phase: 'REVIEW_PENDING',
  };
  return {
    workflow: logged(next, now, {
      actor,
      action: 'resolve-review',
      from: stateOf(wf),
      detail: `cycle ${cycle} resolved: ${r.resolvedIds.size} finding(s)`,
    }),
  };
}
