// lib/run/runStatus: the printed status of a run: its fields, secrets redacted (task,
// block reason, acceptance command), digests recomputed (a report, never a failure), the
// lease shown as not held while the status voids it, and never an artifact's payload.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { runPathsOf, type RunPaths } from '../../../lib/project/layout.js';
import { acquireLease } from '../../../lib/run/record/lease.js';
import { REDACTED } from '../../../lib/run/gates/redact.js';
import { statusOf } from '../../../lib/run/record/runStatus.js';
import { writeWorkflow } from '../../../lib/run/record/runStore.js';
import { type Artifact, type RunStatus, type Workflow } from '../../../lib/run/record/workflow.js';
import { tempDir } from '../../support/project.js';
import { checkpointed, sampleWorkflow } from '../sampleWorkflow.js';
import { agentsViewOf } from '../../../lib/run/record/agentsView.js';

const RUN_ID = 'run-20260102T030405Z-a1b2c3';
const NOW = new Date('2026-01-03T00:00:00.000Z');
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe('lib/run/record/runStatus', () => {
  let root: string;
  let paths: RunPaths;
  let wf: Workflow;
  let artifact: Artifact;
  const payload = 'SECRET PAYLOAD the status never shows';
  beforeEach(() => {
    root = tempDir();
    paths = runPathsOf(root, RUN_ID);
    fs.mkdirSync(paths.artifacts, { recursive: true });
    fs.writeFileSync(join(paths.artifacts, 'work.md'), payload);
    artifact = {
      path: 'artifacts/work.md',
      sha256: sha256(payload),
      type: 'work',
      producer: 'controller',
    };
    wf = {
      ...checkpointed(
        sampleWorkflow('/repo', 'b'.repeat(40), { status: 'ACTIVE' }),
        'c'.repeat(40),
      ),
      artifacts: [artifact],
    };
    writeWorkflow(paths.workflow, wf);
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  it("shows the run's state, its progress and its repository; artifacts as a count with their check", () => {
    assert.deepEqual(statusOf(wf, paths, NOW), {
      run_id: RUN_ID,
      request_id: 'req-1',
      task: 'add the thing',
      owner: 'alice',
      status: 'ACTIVE',
      phase: 'REVIEW_PENDING',
      active_stage: null,
      stage_order: ['implementation'],
      last_completed_stage: 'implementation',
      review_cycle: 1,
      max_review_cycles: 3,
      blocking_findings: 0,
      findings: { new: 0, open: 0, reopened: 0, closed: 0 },
      block_reason: null,
      pause_requested: false,
      last_checkpoint_at: wf.last_checkpoint_at,
      last_acceptance_at: wf.last_acceptance_at,
      last_acceptance_ok: true,
      provider_attempts: 0,
      acceptance_command: 'npm test',
      repo_root: '/repo',
      base_commit: 'b'.repeat(40),
      current_commit: 'c'.repeat(40),
      artifacts: 1,
      artifacts_ok: true,
      bad_artifacts: [],
      lease: { held: false },
      agents: agentsViewOf(wf, paths, NOW),
      created_at: wf.created_at,
      updated_at: wf.updated_at,
    });
  });

  it('has every field runtime.md §4 names', () => {
    const status = statusOf(wf, paths, NOW);
    for (const key of [
      'run_id',
      'request_id',
      'status',
      'phase',
      'active_stage',
      'review_cycle',
      'blocking_findings',
      'block_reason',
      'last_checkpoint_at',
      'artifacts_ok',
      'bad_artifacts',
      'lease',
    ]) {
      assert.ok(key in status, key);
    }
  });

  it("never shows an artifact's payload, the history or the findings' text (the findings only as counts)", () => {
    const withFinding: Workflow = {
      ...wf,
      findings: [
        {
          id: 'f',
          lane: 'structured',
          cycle: 1,
          severity: 'Nit',
          title: 'FINDING TITLE',
          blocking: false,
          validation: null,
          resolved: false,
        },
      ],
    };
    const status = statusOf(withFinding, paths, NOW);
    const text = JSON.stringify(status);
    for (const hidden of [payload, 'FINDING TITLE', '"history"', '"id"'])
      assert.ok(!text.includes(hidden), hidden);
    assert.deepEqual(status.findings, { new: 1, open: 0, reopened: 0, closed: 0 });
  });

  it("shows the current cycle's findings as counts: new, open, reopened, and closed by its review (§11.8)", () => {
    const finding = (id: string, cycle: number, more: Partial<Workflow['findings'][number]>) => ({
      id,
      lane: 'structured' as const,
      cycle,
      severity: 'Important' as const,
      title: id,
      blocking: true,
      validation: null,
      resolved: false,
      ...more,
    });
    const second: Workflow = {
      ...wf,
      review_cycle: 2,
      findings: [
        finding('a', 1, { resolved: true }),
        finding('b', 1, { closed_in: 2 }),
        finding('c', 1, {}),
        finding('a', 2, { mark: 'reopened' }),
        finding('c', 2, { mark: 'open' }),
        finding('c', 2, { lane: 'independent', mark: 'open' }),
        finding('d', 2, { mark: 'new' }),
        finding('e', 2, { mark: 'new' }),
      ],
    };
    assert.deepEqual(statusOf(second, paths, NOW).findings, {
      new: 2,
      open: 1,
      reopened: 1,
      closed: 1,
    });
  });

  it('redacts secrets in the task, the block reason and the acceptance command', () => {
    const secretive: Workflow = {
      ...wf,
      status: 'BLOCKED',
      task: 'deploy with API_TOKEN=abc123supersecret',
      block_reason: 'push failed: Authorization: Bearer abcdefghijklmnop',
      acceptance_command: 'npm test --password=hunter2hunter2',
    };
    const status = statusOf(secretive, paths, NOW);
    assert.deepEqual(
      [status.task, status.block_reason, status.acceptance_command],
      [
        `deploy with API_TOKEN=${REDACTED}`,
        `push failed: Authorization: Bearer ${REDACTED}`,
        `npm test --password=${REDACTED}`,
      ],
    );
    assert.ok(!JSON.stringify(status).includes('supersecret'));
  });

  it('recomputes every digest: a changed or missing file shows in artifacts_ok and bad_artifacts, without failing', () => {
    const gone: Artifact = {
      path: 'artifacts/gone.md',
      sha256: 'a'.repeat(64),
      type: 'x',
      producer: 'p',
    };
    fs.appendFileSync(join(paths.artifacts, 'work.md'), '!');
    const status = statusOf({ ...wf, artifacts: [artifact, gone] }, paths, NOW);
    assert.deepEqual([status.artifacts, status.artifacts_ok], [2, false]);
    assert.deepEqual(status.bad_artifacts, [
      {
        path: 'artifacts/work.md',
        problem: `changed (sha256 ${sha256(`${payload}!`)}, recorded ${artifact.sha256})`,
      },
      { path: 'artifacts/gone.md', problem: 'missing' },
    ]);
  });

  it('shows a live lease as held (never its token), an expired one as stale', () => {
    const { lease } = acquireLease(paths, { pid: process.pid, ttlS: 60 }, NOW, []);
    assert.equal(
      (statusOf(wf, paths, NOW).lease as { stale: boolean }).stale,
      true,
      'unrecorded: no one has its token',
    );
    const recorded: Workflow = {
      ...wf,
      history: [
        ...wf.history,
        {
          at: lease.acquired_at,
          actor: 'pid 1',
          action: 'lease acquire',
          from: 'ACTIVE/IDLE',
          to: 'ACTIVE/IDLE',
          detail: '',
        },
      ],
    };
    const shown = statusOf(recorded, paths, NOW).lease;
    assert.deepEqual(shown, {
      held: true,
      pid: process.pid,
      host: hostname(),
      expires_at: '2026-01-03T00:01:00.000Z',
      stale: false,
    });
    assert.ok(!JSON.stringify(statusOf(recorded, paths, NOW)).includes(lease.token));
    assert.deepEqual(statusOf(recorded, paths, new Date('2026-01-03T00:01:00.000Z')).lease, {
      ...shown,
      stale: true,
    });
  });

  for (const status of ['PAUSED', 'BLOCKED', 'FAILED', 'CANCELLED', 'COMPLETED'] as RunStatus[]) {
    it(`shows no lease for a ${status} run, even with a lease file left behind`, () => {
      acquireLease(paths, { pid: process.pid, ttlS: 60 }, NOW, []);
      const voided: Workflow = {
        ...wf,
        status,
        phase: status === 'COMPLETED' ? 'DONE' : wf.phase,
        block_reason: status === 'BLOCKED' ? 'x' : null,
      };
      assert.deepEqual(statusOf(voided, paths, NOW).lease, { held: false });
    });
  }

  it('an invalid lease file is reported in the lease, not thrown', () => {
    fs.writeFileSync(paths.lease, '{"token": 1}');
    assert.deepEqual(statusOf(wf, paths, NOW).lease, {
      held: false,
      problem: 'lease.json is not a valid lease',
    });
  });
});
