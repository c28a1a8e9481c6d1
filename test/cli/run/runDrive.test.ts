// lib/cli/runDrive: `baton run drive` in process: the poll interval checked before anything
// happens, one stdout line per event and a closing DONE line, SIGTERM/SIGINT ending the loop
// (their handlers removed afterwards), and the run's status as the report.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { runPathsOf } from '../../../lib/project/layout.js';
import { join } from 'node:path';
import { driveFromCli, rotationOn } from '../../../lib/cli/run/runDrive.js';
import { readLease } from '../../../lib/run/record/lease.js';
import { endStep, startStep } from '../../../lib/run/owner/ownerSteps.js';
import { type RunContext } from '../../../lib/run/record/runContext.js';
import { failure } from '../../support/failures.js';
import { makeRunRepo, startOptions } from '../../support/runs.js';

const START = startOptions({ acceptance: 'true' });

describe('lib/cli/run/runDrive', () => {
  let root: string;
  let ctx: RunContext;
  let runId: string;
  let out: string;
  let onLine: (line: string) => void;
  const realWrite = process.stdout.write;
  beforeEach(async () => {
    root = makeRunRepo();
    ctx = { root, cwd: root, env: {}, user: 'alice', now: () => new Date() };
    runId = (await startStep(ctx, START)).status.run_id;
    out = '';
    onLine = () => undefined;
  });
  afterEach(() => {
    process.stdout.write = realWrite;
    fs.rmSync(root, { recursive: true, force: true });
  });

  /** driveFromCli with stdout captured (each written line also handed to onLine). */
  async function drive(
    pollInterval: string | undefined,
  ): Promise<Awaited<ReturnType<typeof driveFromCli>>> {
    process.stdout.write = ((chunk: string | Uint8Array) => {
      out += chunk.toString();
      for (const line of chunk.toString().split('\n').filter(Boolean)) onLine(line);
      return true;
    }) as typeof process.stdout.write;
    try {
      return await driveFromCli(ctx, runId, { reclaimStale: false, pollInterval });
    } finally {
      process.stdout.write = realWrite;
    }
  }

  it('reviewers are rotated as the flags say, else by default only when every reviewer is claude or codex', () => {
    const conf = (a: string, b: string) => {
      fs.mkdirSync(join(root, 'swarmforge'), { recursive: true });
      fs.writeFileSync(
        join(root, 'swarmforge', 'swarmforge.conf'),
        `window reviewer-a ${a} master\nwindow reviewer-b ${b} master\n`,
      );
    };
    const reviewers = ['reviewer-a', 'reviewer-b'];
    assert.equal(rotationOn(root, reviewers, undefined), false, 'no swarmforge.conf: off');
    conf('claude', 'codex');
    assert.equal(rotationOn(root, reviewers, undefined), true);
    assert.equal(rotationOn(root, reviewers, false), false, '--no-rotate-reviewers');
    conf('claude', 'baton-scripted-agent');
    assert.equal(rotationOn(root, reviewers, undefined), false, 'one reviewer without a clear');
    assert.equal(rotationOn(root, reviewers, true), true, '--rotate-reviewers');
  });

  it('refuses a poll interval that is not a positive number before doing anything', async () => {
    for (const bad of ['0', '-1', 'abc', '']) {
      await assert.rejects(
        drive(bad),
        failure('usage', `drive: --poll-interval takes a whole number of at least 1, not '${bad}'`),
        bad,
      );
    }
    assert.equal(out, '');
    assert.equal(readLease(runPathsOf(root, runId)), undefined);
  });

  it('a run that is over: only the DONE line, and its status as the report', async () => {
    await endStep(ctx, runId, 'cancel', 'not needed');
    const report = await drive('0.5');
    assert.equal(out, `DONE: run ${runId} is CANCELLED\n`);
    assert.equal(report.status.status, 'CANCELLED');
    assert.equal(report.status.run_id, runId);
  });

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`${signal} ends the loop while it waits for a reply; the handlers it added are removed`, async () => {
      const before = process.listeners(signal);
      const others = process.listenerCount(signal === 'SIGTERM' ? 'SIGINT' : 'SIGTERM');
      onLine = (line) => {
        if (!line.startsWith('SENT: ')) return;
        const added = process.listeners(signal).filter((l) => !before.includes(l));
        assert.equal(added.length, 1, `one ${signal} handler while driving`);
        // once the step is over and the loop waits (see controllerLoop.test.ts)
        setImmediate(() => (added[0] as () => void)());
      };
      const report = await drive('600');
      assert.deepEqual(
        out
          .split('\n')
          .filter(Boolean)
          .map((l) => l.split(':')[0]),
        ['LEASE', 'STAGE', 'SENT', 'DONE'],
      );
      assert.ok(out.endsWith(`DONE: run ${runId} is ACTIVE\n`));
      assert.equal(report.status.status, 'ACTIVE');
      assert.deepEqual(process.listeners(signal), before);
      assert.equal(process.listenerCount(signal === 'SIGTERM' ? 'SIGINT' : 'SIGTERM'), others);
    });
  }
});
