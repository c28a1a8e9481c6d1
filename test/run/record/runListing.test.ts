// lib/run/runListing: `status` (one run) and `list` (every run, oldest first by created_at),
// read-only: no record, lease or lock file changes; a folder without a record is no run.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { CommandFailure } from '../../../lib/fsx/commandFailure.js';
import { runPathsOf, runsDirOf } from '../../../lib/project/layout.js';
import { type RunContext } from '../../../lib/run/record/runContext.js';
import { statusOrList, withExtra } from '../../../lib/run/record/runListing.js';
import { statusOf, type RunStatusView } from '../../../lib/run/record/runStatus.js';
import { writeWorkflow } from '../../../lib/run/record/runStore.js';
import { tempDir } from '../../support/project.js';
import { sampleWorkflow } from '../sampleWorkflow.js';

const NOW = new Date('2026-02-01T00:00:00.000Z');

/** Every file under `dir` with its bytes. */
function treeOf(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out[p] = fs.readFileSync(p, 'base64');
    }
  };
  walk(dir);
  return out;
}

describe('lib/run/record/runListing', () => {
  let root: string;
  let ctx: RunContext;
  beforeEach(() => {
    root = tempDir();
    ctx = { root, cwd: root, env: {}, user: 'alice', now: () => NOW };
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  /** Writes a valid run record with `runId` created at `createdAt`. */
  function placeRun(runId: string, createdAt: string, request = 'req-1') {
    const wf = sampleWorkflow('/repo', 'b'.repeat(40), {
      run_id: runId,
      request_id: request,
      created_at: createdAt,
      updated_at: createdAt,
    });
    writeWorkflow(runPathsOf(root, runId).workflow, wf);
    return wf;
  }

  it("status of one run: its status object, computed at the context's clock", () => {
    const wf = placeRun('run-20260101T000000Z-000001', '2026-01-01T00:00:00.000Z');
    assert.deepEqual(statusOrList(ctx, wf.run_id), {
      status: statusOf(wf, runPathsOf(root, wf.run_id), NOW),
    });
  });

  it('status of an unknown run is a usage error; of a malformed id too', () => {
    const usage = (err: unknown) => err instanceof CommandFailure && err.kind === 'usage';
    assert.throws(() => statusOrList(ctx, 'run-20260101T000000Z-000001'), usage);
    assert.throws(() => statusOrList(ctx, 'bogus'), usage);
  });

  it('list: no runs (no runs folder at all) is an empty list', () => {
    assert.deepEqual(statusOrList(ctx, undefined), []);
  });

  it('list: every run, oldest first by created_at (not by id), ties by id; a folder without a record is skipped', () => {
    placeRun('run-20260101T000000Z-00000c', '2026-01-05T00:00:00.000Z', 'c');
    placeRun('run-20260109T000000Z-00000a', '2026-01-01T00:00:00.000Z', 'a');
    placeRun('run-20260101T000000Z-00000b', '2026-01-03T00:00:00.000Z', 'b2');
    placeRun('run-20260101T000000Z-00000a', '2026-01-03T00:00:00.000Z', 'b1');
    fs.mkdirSync(join(runsDirOf(root), 'run-20260101T000000Z-0000ff', 'artifacts'), {
      recursive: true,
    });
    const listed = statusOrList(ctx, undefined) as RunStatusView[];
    assert.deepEqual(
      listed.map((s) => [s.run_id, s.request_id]),
      [
        ['run-20260109T000000Z-00000a', 'a'],
        ['run-20260101T000000Z-00000a', 'b1'],
        ['run-20260101T000000Z-00000b', 'b2'],
        ['run-20260101T000000Z-00000c', 'c'],
      ],
    );
  });

  it('list: an invalid record is refused, not skipped (a run is never silently hidden)', () => {
    placeRun('run-20260101T000000Z-000001', '2026-01-01T00:00:00.000Z');
    fs.mkdirSync(runPathsOf(root, 'run-20260101T000000Z-000002').dir, { recursive: true });
    fs.writeFileSync(runPathsOf(root, 'run-20260101T000000Z-000002').workflow, '{');
    assert.throws(
      () => statusOrList(ctx, undefined),
      (err: unknown) =>
        err instanceof CommandFailure && err.kind === 'refused' && /not JSON/.test(err.message),
    );
  });

  it('status and list change no file and take no lock', () => {
    const wf = placeRun('run-20260101T000000Z-000001', '2026-01-01T00:00:00.000Z');
    const before = treeOf(root);
    statusOrList(ctx, wf.run_id);
    statusOrList(ctx, undefined);
    assert.deepEqual(treeOf(root), before);
    assert.equal(fs.existsSync(join(runsDirOf(root), 'locks')), false);
  });

  it("withExtra: one run's status with more fields on top", () => {
    const wf = placeRun('run-20260101T000000Z-000001', '2026-01-01T00:00:00.000Z');
    const report = withExtra(ctx, wf.run_id, {
      reply: { path: 'artifacts/x.md' },
      status: 'overridden',
    });
    assert.deepEqual(report, {
      status: {
        ...statusOf(wf, runPathsOf(root, wf.run_id), NOW),
        reply: { path: 'artifacts/x.md' },
        status: 'overridden',
      },
    });
  });
});
