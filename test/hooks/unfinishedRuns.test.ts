import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { runPathsOf, runsDirOf } from '../../lib/project/layout.js';
import { unfinishedRunsOf } from '../../lib/hooks/unfinishedRuns.js';
import { writeWorkflow } from '../../lib/run/record/runStore.js';
import { type Workflow } from '../../lib/run/record/workflow.js';
import { tempDir } from '../support/project.js';
import { sampleWorkflow } from '../run/sampleWorkflow.js';

/** Writes a valid record of run `runId` under `root` with `overrides`. */
function writeRun(root: string, runId: string, overrides: Partial<Workflow>): void {
  writeWorkflow(
    runPathsOf(root, runId).workflow,
    sampleWorkflow(root, 'a'.repeat(40), { run_id: runId, ...overrides }),
  );
}

describe('lib/hooks/unfinishedRuns', () => {
  let root: string;
  beforeEach(() => {
    root = tempDir();
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  it('no runs folder: no runs', async () => {
    assert.deepEqual(await unfinishedRunsOf(root), []);
  });

  it('lists every run whose status is not terminal, oldest first, with status, phase and active stage', async () => {
    writeRun(root, 'run-20260103T000000Z-cccccc', {
      status: 'BLOCKED',
      block_reason: 'acceptance failed',
    });
    writeRun(root, 'run-20260101T000000Z-aaaaaa', {
      status: 'ACTIVE',
      phase: 'STAGE_ACTIVE',
      active_stage: 'implementation',
    });
    writeRun(root, 'run-20260102T000000Z-bbbbbb', { status: 'COMPLETED', phase: 'DONE' });
    writeRun(root, 'run-20260104T000000Z-dddddd', { status: 'CANCELLED' });
    writeRun(root, 'run-20260105T000000Z-eeeeee', { status: 'FAILED' });
    writeRun(root, 'run-20260106T000000Z-ffffff', {
      status: 'WAITING_FOR_HUMAN_APPROVAL',
      phase: 'APPROVAL_PENDING',
    });
    fs.mkdirSync(`${runsDirOf(root)}/locks`, { recursive: true });
    assert.deepEqual(await unfinishedRunsOf(root), [
      {
        runId: 'run-20260101T000000Z-aaaaaa',
        status: 'ACTIVE',
        phase: 'STAGE_ACTIVE',
        activeStage: 'implementation',
      },
      { runId: 'run-20260103T000000Z-cccccc', status: 'BLOCKED', phase: 'IDLE', activeStage: null },
      {
        runId: 'run-20260106T000000Z-ffffff',
        status: 'WAITING_FOR_HUMAN_APPROVAL',
        phase: 'APPROVAL_PENDING',
        activeStage: null,
      },
    ]);
  });

  it('reads each record through the validated read: an invalid one throws (the hook then says nothing)', async () => {
    writeRun(root, 'run-20260101T000000Z-aaaaaa', { status: 'ACTIVE' });
    const path = runPathsOf(root, 'run-20260101T000000Z-aaaaaa').workflow;
    const wf = JSON.parse(fs.readFileSync(path, 'utf8')) as Record<string, unknown>;
    fs.writeFileSync(path, JSON.stringify({ ...wf, status: 'RUNNING' }));
    await assert.rejects(unfinishedRunsOf(root), /invalid record/);
    fs.writeFileSync(path, '{"schema_version": 1,');
    await assert.rejects(unfinishedRunsOf(root), /not JSON/);
  });
});
