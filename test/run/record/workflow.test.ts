// lib/run/workflow: the vocabularies of a run record agree with the published schema
// (schemas/workflow.schema.json), terminal statuses, and the id patterns.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import {
  isTerminal,
  REQUEST_ID_PATTERN,
  RUN_ID_PATTERN,
  SCHEMA_VERSION,
  TERMINAL_STATUSES,
  type RunPhase,
  type RunSeverity,
  type RunStatus,
  type Workflow,
} from '../../../lib/run/record/workflow.js';
import { sampleWorkflow } from '../sampleWorkflow.js';

interface SchemaNode {
  properties: Record<string, { enum?: string[]; pattern?: string; const?: unknown }>;
  required: string[];
  $defs: Record<string, { pattern?: string; properties?: Record<string, { enum?: string[] }> }>;
}
const schema = JSON.parse(fs.readFileSync('schemas/workflow.schema.json', 'utf8')) as SchemaNode;

// Records keyed by the unions: tsc refuses a missing or an extra member, so these are the unions.
const STATUSES: Record<RunStatus, boolean> = {
  ACTIVE: false,
  PAUSED: false,
  BLOCKED: false,
  WAITING_FOR_HUMAN_APPROVAL: false,
  FAILED: true,
  CANCELLED: true,
  COMPLETED: true,
};
const PHASES: Record<RunPhase, true> = {
  IDLE: true,
  STAGE_ACTIVE: true,
  PAUSE_REQUESTED: true,
  REVIEW_PENDING: true,
  FINDINGS_PENDING: true,
  APPROVAL_PENDING: true,
  DONE: true,
};
const SEVERITIES: Record<RunSeverity, true> = {
  Critical: true,
  Important: true,
  Minor: true,
  Nit: true,
};
// Every field of the interface (tsc refuses a field missing from or extra to this list).
const FIELDS: Record<keyof Workflow, true> = {
  run_id: true,
  request_id: true,
  task: true,
  owner: true,
  host: true,
  machine_id: true,
  runtime_release: true,
  schema_version: true,
  repo_root: true,
  base_ref: true,
  base_commit: true,
  current_commit: true,
  status: true,
  phase: true,
  active_stage: true,
  pause_requested: true,
  review_cycle: true,
  max_review_cycles: true,
  blocking_findings: true,
  acceptance_command: true,
  acceptance_timeout_s: true,
  spec_ref: true,
  stage_order: true,
  last_completed_stage: true,
  last_checkpoint_at: true,
  last_checkpoint_commit: true,
  last_acceptance_at: true,
  last_acceptance_ok: true,
  last_resolution_at: true,
  retry_policy: true,
  provider_attempts: true,
  block_reason: true,
  artifacts: true,
  findings: true,
  roles: true,
  observations: true,
  history: true,
  created_at: true,
  updated_at: true,
};

describe('lib/run/record/workflow', () => {
  it("the statuses and phases are the schema's enums, in its order", () => {
    assert.deepEqual(Object.keys(STATUSES), schema.properties.status!.enum);
    assert.deepEqual(Object.keys(PHASES), schema.properties.phase!.enum);
    assert.deepEqual(Object.keys(SEVERITIES), schema.$defs.finding!.properties!.severity!.enum);
  });

  it("the record's fields are exactly the schema's required properties", () => {
    assert.deepEqual(Object.keys(FIELDS).sort(), [...schema.required].sort());
    assert.deepEqual(Object.keys(schema.properties).sort(), [...schema.required].sort());
    assert.deepEqual(
      Object.keys(sampleWorkflow('/r', 'a'.repeat(40))).sort(),
      Object.keys(FIELDS).sort(),
      "the tests' sample sets every field",
    );
  });

  it('FAILED, CANCELLED and COMPLETED are terminal, and only they', () => {
    assert.deepEqual([...TERMINAL_STATUSES].sort(), ['CANCELLED', 'COMPLETED', 'FAILED']);
    for (const [status, terminal] of Object.entries(STATUSES))
      assert.equal(isTerminal(status as RunStatus), terminal, status);
  });

  it("the schema version is 1, the schema's const", () => {
    assert.equal(SCHEMA_VERSION, 1);
    assert.equal(schema.properties.schema_version!.const, SCHEMA_VERSION);
  });

  it("run ids are run-<tsid>-<6 lowercase hex>, the schema's pattern", () => {
    assert.equal(RUN_ID_PATTERN.source, schema.properties.run_id!.pattern);
    assert.ok(RUN_ID_PATTERN.test('run-20260102T030405Z-a1b2c3'));
    for (const bad of [
      'run-20260102T030405Z-A1B2C3',
      'run-20260102T030405Z-a1b2c',
      'run-20260102T030405Z-a1b2c3d',
      'run-20260102T030405-a1b2c3',
      'run-2026012T030405Z-a1b2c3',
      'RUN-20260102T030405Z-a1b2c3',
      'run-20260102T030405Z-a1b2g3',
      ' run-20260102T030405Z-a1b2c3',
      'run-20260102T030405Z-a1b2c3\n',
      '../run-20260102T030405Z-a1b2c3',
      '',
    ])
      assert.ok(!RUN_ID_PATTERN.test(bad), JSON.stringify(bad));
  });

  it('request ids: a letter or digit, then letters, digits, ".", "_", "-", at most 64 in all (the schema\'s pattern)', () => {
    assert.equal(REQUEST_ID_PATTERN.source, schema.$defs.requestId!.pattern);
    for (const good of ['a', '7', 'REQ-1', 'feature.login_v2-final', 'x'.repeat(64)])
      assert.ok(REQUEST_ID_PATTERN.test(good), good);
    for (const bad of ['', '-a', '.a', '_a', 'a/b', 'a b', 'ä', 'x'.repeat(65), 'a\n', 'a:b'])
      assert.ok(!REQUEST_ID_PATTERN.test(bad), JSON.stringify(bad));
  });
});
