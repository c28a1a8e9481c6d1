// The JSON status of a run (docs/runtime.md §4): what every successful action prints and
// what `status` and `list` show. Sanitized: never an artifact's payload, and the task, the
// acceptance command and the block reason with their secrets redacted. The digests of
// every artifact are recomputed; a missing or changed file shows in `artifacts_ok: false`
// and `bad_artifacts` (a report, not a failure).
import { type RunPaths } from '../../project/layout.js';
import { checkArtifacts } from '../gates/artifacts.js';
import { leaseView, readLease } from './lease.js';
import { redactSecrets } from '../gates/redact.js';
import { leaseIsVoid } from './runMutation.js';
import { currentFindingCountsOf } from './findingMarks.js';
import { type Workflow } from './workflow.js';
import { agentsViewOf } from './agentsView.js';

/** The printed status of a run. */
export type RunStatusView = Record<string, unknown> & { run_id: string; status: string };

/**
 * The lease as shown: none while the run's status voids it (a lease file left by a crash included).
 */
function leaseOf(wf: Workflow, paths: RunPaths, now: Date): Record<string, unknown> {
  if (leaseIsVoid(wf.status)) return { held: false };
  try {
    const lease = readLease(paths);
    return lease === undefined ? { held: false } : leaseView(lease, now, wf.history);
  } catch {
    return { held: false, problem: 'lease.json is not a valid lease' };
  }
}

/** The status of a run as printed. */
export function statusOf(wf: Workflow, paths: RunPaths, now = new Date()): RunStatusView {
  const check = checkArtifacts(paths, wf.artifacts);
  return {
    run_id: wf.run_id,
    request_id: wf.request_id,
    task: redactSecrets(wf.task),
    owner: wf.owner,
    status: wf.status,
    phase: wf.phase,
    active_stage: wf.active_stage,
    stage_order: wf.stage_order,
    last_completed_stage: wf.last_completed_stage,
    review_cycle: wf.review_cycle,
    max_review_cycles: wf.max_review_cycles,
    blocking_findings: wf.blocking_findings,
    findings: currentFindingCountsOf(wf),
    block_reason: wf.block_reason === null ? null : redactSecrets(wf.block_reason),
    pause_requested: wf.pause_requested,
    last_checkpoint_at: wf.last_checkpoint_at,
    last_acceptance_at: wf.last_acceptance_at,
    last_acceptance_ok: wf.last_acceptance_ok,
    provider_attempts: wf.provider_attempts,
    acceptance_command: redactSecrets(wf.acceptance_command),
    repo_root: wf.repo_root,
    base_commit: wf.base_commit,
    current_commit: wf.current_commit,
    artifacts: wf.artifacts.length,
    artifacts_ok: check.ok,
    bad_artifacts: check.bad,
    lease: leaseOf(wf, paths, now),
    agents: agentsViewOf(wf, paths, now),
    created_at: wf.created_at,
    updated_at: wf.updated_at,
  };
}
