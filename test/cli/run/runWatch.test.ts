// lib/cli/runWatch: `baton run status --watch` in process: it draws the status at once,
// draws again when a record changes (and only then: the same status is never drawn
// twice), clears the screen first on a terminal, watches the list of runs when no run is
// named, and returns on SIGINT or SIGTERM emitted to the process. The test's signal
// listeners are set aside while a watch runs, so the emitted signal reaches the watch only.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { CommandFailure } from '../../../lib/fsx/commandFailure.js';
import { runPathsOf } from '../../../lib/project/layout.js';
import { watchStatus } from '../../../lib/cli/run/runWatch.js';
import { startStep, type StartOptions } from '../../../lib/run/owner/ownerSteps.js';
import { type RunContext } from '../../../lib/run/record/runContext.js';
import { readWorkflow, writeWorkflow } from '../../../lib/run/record/runStore.js';
import { waitFor } from '../../support/daemon.js';
import { makeRunRepo } from '../../support/runs.js';

const START: StartOptions = {
  request: 'req-1',
  task: 'watch me',
  spec: 'spec.md',
  acceptance: 'true',
  stages: ['implementation'],
  maxCycles: 3,
  acceptanceTimeoutS: 60,
  retryAttempts: 3,
  retryBaseMs: 1000,
  roles: {
    worker: 'worker',
    reviewers: ['reviewer-a', 'reviewer-b'],
    validator: 'validator',
    controller: 'controller',
  },
};
const SIGNALS = ['SIGINT', 'SIGTERM'] as const;

/** A watch running in this process, its output captured. */
interface Watch {
  draws: string[];
  done: Promise<void>;
  running: () => boolean;
}

describe('lib/cli/run/runWatch', () => {
  let root: string;
  let ctx: RunContext;
  let saved: {
    write: typeof process.stdout.write;
    listeners: Record<(typeof SIGNALS)[number], NodeJS.SignalsListener[]>;
    isTTY: PropertyDescriptor | undefined;
  };
  let watch: Watch | undefined;

  beforeEach(() => {
    root = makeRunRepo();
    let clock = Date.parse('2030-01-01T00:00:00.000Z');
    ctx = { root, cwd: root, env: {}, user: 'alice', now: () => new Date((clock += 1000)) };
    saved = {
      write: process.stdout.write,
      listeners: { SIGINT: process.listeners('SIGINT'), SIGTERM: process.listeners('SIGTERM') },
      isTTY: Object.getOwnPropertyDescriptor(process.stdout, 'isTTY'),
    };
    for (const name of SIGNALS) process.removeAllListeners(name);
  });

  afterEach(async () => {
    // A watch a failed test left running is stopped first, so nothing keeps writing or polling.
    if (watch?.running()) process.emit('SIGINT', 'SIGINT');
    await watch?.done.catch(() => undefined);
    watch = undefined;
    process.stdout.write = saved.write;
    if (saved.isTTY) Object.defineProperty(process.stdout, 'isTTY', saved.isTTY);
    else delete (process.stdout as { isTTY?: boolean }).isTTY;
    for (const name of SIGNALS) {
      process.removeAllListeners(name);
      for (const listener of saved.listeners[name]) process.on(name, listener);
    }
    fs.rmSync(root, { recursive: true, force: true });
  });

  /** Starts watching `runId` (every run when undefined), capturing what it writes. */
  function startWatch(runId: string | undefined): Watch {
    const draws: string[] = [];
    process.stdout.write = ((chunk: string | Uint8Array) =>
      draws.push(Buffer.from(chunk).toString()) > 0) as typeof process.stdout.write;
    let ended = false;
    const done = watchStatus(ctx, runId).finally(() => {
      ended = true;
      process.stdout.write = saved.write;
    });
    watch = { draws, done, running: () => !ended };
    return watch;
  }

  const started = async (request = 'req-1') =>
    (await startStep(ctx, { ...START, request })).status.run_id;
  const retitle = (runId: string, task: string) => {
    const { workflow, paths } = readWorkflow(root, runId);
    writeWorkflow(paths.workflow, { ...workflow, task });
  };

  it('draws the status at once, as a JSON document when not on a terminal, and waits', async () => {
    const runId = await started();
    const w = startWatch(runId);
    await waitFor('the first draw', () => w.draws.length === 1);
    const status = JSON.parse(w.draws[0]!) as Record<string, unknown>;
    assert.deepEqual([status.run_id, status.task, status.status], [runId, 'watch me', 'ACTIVE']);
    assert.ok(w.draws[0]!.endsWith('}\n'));
    assert.equal(w.running(), true);
    assert.deepEqual(
      SIGNALS.map((s) => process.listenerCount(s)),
      [1, 1],
      'it listens for SIGINT and SIGTERM',
    );
  });

  it('draws again when the record changes, each new status once', async () => {
    const runId = await started();
    const w = startWatch(runId);
    await waitFor('the first draw', () => w.draws.length === 1);
    retitle(runId, 'second title');
    await waitFor('the second draw', () => w.draws.length === 2);
    fs.writeFileSync(
      `${runPathsOf(root, runId).artifacts}/unrelated.txt`,
      'a change in the folder, not in the status',
    );
    retitle(runId, 'third title');
    await waitFor('the third draw', () => w.draws.length === 3);
    assert.deepEqual(
      w.draws.map((d) => (JSON.parse(d) as { task: string }).task),
      ['watch me', 'second title', 'third title'],
    );
  });

  it('stops on SIGINT: it returns, listens no more and draws no more', async () => {
    const runId = await started();
    const w = startWatch(runId);
    await waitFor('the first draw', () => w.draws.length === 1);
    process.emit('SIGINT', 'SIGINT');
    await w.done;
    assert.equal(process.listenerCount('SIGINT'), 0);
    assert.equal(process.stdout.write, saved.write);
    const drawn = w.draws.length;
    retitle(runId, 'changed after the watch');
    assert.equal(w.draws.length, drawn);
  });

  it('stops on SIGTERM too', async () => {
    const runId = await started();
    const w = startWatch(runId);
    await waitFor('the first draw', () => w.draws.length === 1);
    process.emit('SIGTERM', 'SIGTERM');
    await w.done;
    assert.equal(process.listenerCount('SIGTERM'), 0);
  });

  // BUG-BEGIN (left out of the commit: a failing test of a bug in lib/cli/run/runWatch.ts, the signal listeners)
  it('once stopped by one signal, the watch leaves no listener for the other', async () => {
    const runId = await started();
    const w = startWatch(runId);
    await waitFor('the first draw', () => w.draws.length === 1);
    process.emit('SIGINT', 'SIGINT');
    await w.done;
    assert.deepEqual(
      SIGNALS.map((s) => process.listenerCount(s)),
      [0, 0],
    );
  });
  // BUG-END

  it('on a terminal, clears the screen before each draw', async () => {
    Object.defineProperty(process.stdout, 'isTTY', {
      value: true,
      configurable: true,
      writable: true,
    });
    const runId = await started();
    const w = startWatch(runId);
    await waitFor('the first draw', () => w.draws.length === 1);
    assert.ok(w.draws[0]!.startsWith('\x1b[H\x1b[2J{'), JSON.stringify(w.draws[0]!.slice(0, 12)));
    retitle(runId, 'again');
    await waitFor('the second draw', () => w.draws.length === 2);
    assert.ok(w.draws[1]!.startsWith('\x1b[H\x1b[2J{'));
  });

  it('without a run id, watches the list of runs, also before the runs folder exists', async () => {
    const w = startWatch(undefined);
    await waitFor('the first draw', () => w.draws.length === 1);
    assert.equal(w.draws[0], '[]\n');
    const first = await started('req-1');
    await waitFor('a draw with the new run', () => w.draws.length === 2);
    assert.deepEqual(
      (JSON.parse(w.draws[1]!) as { run_id: string }[]).map((s) => s.run_id),
      [first],
    );
    const second = await started('req-2');
    await waitFor('a draw with both runs', () => w.draws.some((d) => d.includes(second)));
    assert.deepEqual(
      (JSON.parse(w.draws.at(-1)!) as { run_id: string }[]).map((s) => s.run_id),
      [first, second],
    );
  });

  it('an unknown run is a usage error at once: nothing drawn, no listener left behind', async () => {
    await started();
    await assert.rejects(
      watchStatus(ctx, 'run-20300101T000000Z-000000'),
      (err: unknown) =>
        err instanceof CommandFailure && err.kind === 'usage' && /^unknown run /.test(err.message),
    );
    assert.deepEqual(
      SIGNALS.map((s) => process.listenerCount(s)),
      [0, 0],
    );
  });
});
