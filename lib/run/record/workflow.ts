// The run record, workflow.json (docs/runtime.md §2): its TypeScript shape, which
// schemas/workflow.schema.json checks at every read and write, and the vocabularies.
import { type Severity } from '../../findings/severity.js';

/** A run's status; the last three are terminal. */
export type RunStatus =
  | 'ACTIVE'
  | 'PAUSED'
  | 'BLOCKED'
  | 'WAITING_FOR_HUMAN_APPROVAL'
  | 'FAILED'
  | 'CANCELLED'
  | 'COMPLETED';

/** A run's phase, kept when it becomes PAUSED or BLOCKED so resume and retry return to it. */
export type RunPhase =
  | 'IDLE'
  | 'STAGE_ACTIVE'
  | 'PAUSE_REQUESTED'
  | 'REVIEW_PENDING'
  | 'FINDINGS_PENDING'
  | 'APPROVAL_PENDING'
  | 'DONE';

/** Statuses from which no action changes the record. */
export const TERMINAL_STATUSES: readonly RunStatus[] = ['FAILED', 'CANCELLED', 'COMPLETED'];

/** The schema version this runtime writes and reads. */
export const SCHEMA_VERSION = 1;

/** One manifest entry (§3). */
export interface Artifact {
  path: string;
  sha256: string;
  type: string;
  producer: string;
}

/** A finding's severity (§6); Critical and Important block. */
export type RunSeverity = Severity;

/** A review lane. */
export type Lane = 'structured' | 'independent';

/**
 * How a finding of cycle n > 1 stands against the earlier cycles (§11.8): `new` (its id was never
 * reported before), `open` (reported before and not resolved), `reopened` (resolved, then reported
 * again).
 */
export type FindingMark = 'new' | 'open' | 'reopened';

/** One review finding as recorded. */
export interface RunFinding {
  id: string;
  lane: Lane;
  cycle: number;
  severity: RunSeverity;
  title: string;
  blocking: boolean;
  validation: null | { valid: boolean; reason: string };
  resolved: boolean;
  /** Set by `review` on each finding of a cycle after the first (absent in older records). */
  mark?: FindingMark;
  /** The cycle whose review no longer reported this blocking finding's id: closed there. */
  closed_in?: number;
}

/** One history entry: one per successful or blocking action. */
export interface RunHistoryEntry {
  at: string;
  actor: string;
  action: string;
  from: string;
  to: string;
  detail: string;
}

/** workflow.json. */
export interface Workflow {
  run_id: string;
  request_id: string;
  task: string;
  owner: string;
  host: string;
  machine_id: string;
  runtime_release: string;
  schema_version: number;
  repo_root: string;
  base_ref: string;
  base_commit: string;
  current_commit: string;
  status: RunStatus;
  phase: RunPhase;
  active_stage: string | null;
  pause_requested: boolean;
  review_cycle: number;
  max_review_cycles: number;
  blocking_findings: number;
  acceptance_command: string;
  acceptance_timeout_s: number;
  spec_ref: string;
  stage_order: string[];
  last_completed_stage: string | null;
  last_checkpoint_at: string | null;
  last_checkpoint_commit: string | null;
  last_acceptance_at: string | null;
  last_acceptance_ok: boolean | null;
  last_resolution_at: string | null;
  retry_policy: { max_attempts: number; base_delay_ms: number };
  provider_attempts: number;
  block_reason: string | null;
  artifacts: Artifact[];
  findings: RunFinding[];
  roles: { worker: string; reviewers: [string, string]; validator: string; controller: string };
  observations: {
    panes: Record<string, { pane: string; status: string; seen_at: string }>;
    updated_at: string | null;
  };
  history: RunHistoryEntry[];
  created_at: string;
  updated_at: string;
}

/** The roles of a run that have an agent: the worker, both reviewers, the validator. */
export function agentRolesOf(wf: Pick<Workflow, 'roles'>): string[] {
  return [wf.roles.worker, ...wf.roles.reviewers, wf.roles.validator];
}

/** The reviewer role of a review lane: the first reviewer structured, the second independent. */
export function reviewerOfLane(wf: Pick<Workflow, 'roles'>, lane: string | undefined): string {
  return wf.roles.reviewers[lane === 'independent' ? 1 : 0];
}

/** True for FAILED, CANCELLED and COMPLETED. */
export function isTerminal(status: RunStatus): boolean {
  return TERMINAL_STATUSES.includes(status);
}

/** The run id pattern: `run-<tsid>-<rand6>`. */
export const RUN_ID_PATTERN = /^run-[0-9]{8}T[0-9]{6}Z-[0-9a-f]{6}$/;

/** The request id pattern. */
export const REQUEST_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
