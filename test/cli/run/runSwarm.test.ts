// lib/cli/runSwarm: `baton run up` verifies the run before anything starts: a run of another
// request, or one that is not ACTIVE, is refused with nothing created (no daemon, no tmux
// socket, no file under .swarmforge changed); an unknown run is refused by up and down alike.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { runDown, runUp } from '../../../lib/cli/run/runSwarm.js';
import { endStep, pauseStep, startStep } from '../../../lib/run/owner/ownerSteps.js';
import { type RunContext } from '../../../lib/run/record/runContext.js';
import { failure } from '../../support/failures.js';
import { makeRunRepo, snapshotOf, startOptions } from '../../support/runs.js';

const START = startOptions({ acceptance: 'true' });

describe('lib/cli/run/runSwarm', () => {
  let root: string;
  let ctx: RunContext;
  let runId: string;
  let clock: number;
  beforeEach(async () => {
    root = makeRunRepo();
    clock = Date.parse('2030-01-01T00:00:00.000Z');
    ctx = { root, cwd: root, env: {}, user: 'alice', now: () => new Date((clock += 1000)) };
    runId = (await startStep(ctx, START)).status.run_id;
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  const swarmDir = () => join(root, '.swarmforge');
  /** Refused with `message`, and nothing under .swarmforge created or changed. */
  async function refusedUntouched(
    attempt: Promise<unknown>,
    kind: string,
    message: string | RegExp,
  ): Promise<void> {
    const before = snapshotOf(swarmDir());
    const dirs = fs.readdirSync(swarmDir()).sort();
    await assert.rejects(attempt, failure(kind, message));
    assert.deepEqual(snapshotOf(swarmDir()), before);
    assert.deepEqual(fs.readdirSync(swarmDir()).sort(), dirs);
    for (const gone of ['daemon', 'tmux-socket', 'panes.tsv', 'handoffs'])
      assert.ok(!fs.existsSync(join(swarmDir(), gone)), `${gone} was created`);
  }

  it('refuses a run of another request before checking anything else', async () => {
    await refusedUntouched(
      runUp(ctx, runId, 'req-2'),
      'refused',
      `run ${runId} is request req-1, not req-2: nothing started`,
    );
    await pauseStep(ctx, runId);
    await refusedUntouched(
      runUp(ctx, runId, 'req-2'),
      'refused',
      `run ${runId} is request req-1, not req-2: nothing started`,
    );
  });

  it('refuses a run that is not ACTIVE (paused, or over), with or without --request', async () => {
    await pauseStep(ctx, runId);
    const paused = `run ${runId} is PAUSED, not ACTIVE: nothing started (its owner resumes or retries it first)`;
    await refusedUntouched(runUp(ctx, runId, undefined), 'refused', paused);
    await refusedUntouched(runUp(ctx, runId, 'req-1'), 'refused', paused);
    await endStep(ctx, runId, 'cancel', 'not needed');
    await refusedUntouched(
      runUp(ctx, runId, undefined),
      'refused',
      `run ${runId} is CANCELLED, not ACTIVE: nothing started (its owner resumes or retries it first)`,
    );
  });

  it('an unknown run is refused by up and down before anything starts or stops', async () => {
    const unknown = 'run-20300101T000000Z-ffffff';
    const before = snapshotOf(swarmDir());
    const message = new RegExp(`^unknown run '${unknown}': no `);
    await assert.rejects(runUp(ctx, unknown, undefined), failure('usage', message));
    await assert.rejects(runDown(ctx, unknown), failure('usage', message));
    assert.deepEqual(snapshotOf(swarmDir()), before);
    assert.ok(!fs.existsSync(join(swarmDir(), 'daemon')));
  });
});
