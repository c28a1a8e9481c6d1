// A valid hand-made run record for tests of lib/run: a paused run of one repository,
// every field set as `start` and one checkpoint would leave it; tests override what they check.
import { type Workflow } from '../../lib/run/record/workflow.js';

/** A valid PAUSED workflow for `repoRoot` based on `baseCommit`, with `overrides` applied. */
export function sampleWorkflow(
  repoRoot: string,
  baseCommit: string,
  overrides: Partial<Workflow> = {},
): Workflow {
  const at = '2026-01-02T03:04:05Z';
  return {
    run_id: 'run-20260102T030405Z-a1b2c3',
    request_id: 'req-1',
    task: 'add the thing',
    owner: 'alice',
    host: 'box',
    machine_id: '0123456789abcdef0123456789abcdef',
    runtime_release: '0.1.0',
    schema_version: 1,
    repo_root: repoRoot,
    base_ref: 'main',
    base_commit: baseCommit,
    current_commit: baseCommit,
    status: 'PAUSED',
    phase: 'IDLE',
    active_stage: null,
    pause_requested: false,
    review_cycle: 1,
    max_review_cycles: 3,
    blocking_findings: 0,
    acceptance_command: 'npm test',
    acceptance_timeout_s: 1800,
    spec_ref: 'spec.md',
    stage_order: ['implementation'],
    last_completed_stage: null,
    last_checkpoint_at: null,
    last_checkpoint_commit: null,
    last_acceptance_at: null,
    last_acceptance_ok: null,
    last_resolution_at: null,
    retry_policy: { max_attempts: 3, base_delay_ms: 1000 },
    provider_attempts: 0,
    block_reason: null,
    artifacts: [],
    findings: [],
    roles: {
      worker: 'worker',
      reviewers: ['reviewer-a', 'reviewer-b'],
      validator: 'validator',
      controller: 'controller',
    },
    observations: { panes: {}, updated_at: null },
    history: [{ at, actor: 'alice', action: 'start', from: '', to: 'ACTIVE', detail: '' }],
    created_at: at,
    updated_at: at,
    ...overrides,
  };
}

/** The same run as it stands after a checkpoint of `commit`. */
export function checkpointed(wf: Workflow, commit: string): Workflow {
  return {
    ...wf,
    phase: 'REVIEW_PENDING',
    current_commit: commit,
    last_checkpoint_commit: commit,
    last_checkpoint_at: wf.updated_at,
    last_completed_stage: wf.stage_order[0]!,
    last_acceptance_at: wf.updated_at,
    last_acceptance_ok: true,
    artifacts: [
      {
        path: 'artifacts/implementation-c1-acceptance.json',
        sha256: 'a'.repeat(64),
        type: 'acceptance',
        producer: 'runtime',
      },
    ],
  };
}
