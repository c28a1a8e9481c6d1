// Black-box: `baton run up` / `down` (docs/runtime.md §9) and the monitor's durable view of
// runs (§10), on the built bins with a real tmux server on the project's private socket.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { batonRun, ok, runSwarmProject, startRun, snapshotOf } from '../support/runs.js';
import { tearDownSwarm } from '../support/deadProcess.js';
import { runBin } from '../support/project.js';

describe('baton run up / down and the monitor (built bin)', function () {
  this.timeout(120_000);
  let root: string;
  beforeEach(() => {
    root = runSwarmProject();
  });
  afterEach(() => {
    tearDownSwarm(root);
  });

  it('a mismatched request or a run that is not ACTIVE: refused before anything exists (no tmux server, no file)', async () => {
    const runId = await startRun(root, [], 'req-up');
    const before = snapshotOf(join(root, '.swarmforge'));
    const r1 = batonRun(root, ['up', runId, '--request', 'other']);
    assert.equal(r1.code, 2);
    assert.match(r1.stderr, /is request req-up, not other: nothing started/);
    ok(
      batonRun(root, [
        'block',
        runId,
        '--reason',
        'x',
        '--lease',
        ok(batonRun(root, ['lease', runId, 'acquire', '--pid', String(process.pid)])).lease.token,
      ]),
    );
    const blockedSnapshot = snapshotOf(join(root, '.swarmforge'));
    const r2 = batonRun(root, ['up', runId]);
    assert.equal(r2.code, 2);
    assert.match(r2.stderr, /is BLOCKED, not ACTIVE: nothing started/);
    assert.deepEqual(snapshotOf(join(root, '.swarmforge')), blockedSnapshot);
    for (const name of ['tmux-socket', 'panes.tsv', 'roles.tsv', 'tmux.sock'])
      assert.equal(fs.existsSync(join(root, '.swarmforge', name)), false, name);
    assert.equal(fs.existsSync(join(root, '.worktrees')), false);
    assert.ok(before.size > 0);
  });

  it('up starts the swarm with the controller driving the run; the monitor shows the run; down stops it and leaves the run', async () => {
    const runId = await startRun(root, [], 'req-up');
    const up = ok(batonRun(root, ['up', runId, '--request', 'req-up']));
    assert.deepEqual(Object.keys(up.swarm.panes).sort(), [
      'controller',
      'reviewer-a',
      'reviewer-b',
      'validator',
      'worker',
    ]);
    assert.match(fs.readFileSync(join(root, '.swarmforge', 'roles.tsv'), 'utf8'), /^controller\t/m);
    const deadline = Date.now() + 30_000;
    let status = ok(batonRun(root, ['status', runId]));
    while (!status.lease.held && Date.now() < deadline)
      status = ok(batonRun(root, ['status', runId]));
    assert.equal(status.lease.held, true, 'the controller took the lease');
    const monitor = JSON.parse(
      runBin('baton', ['monitor', '--once', '--json'], { cwd: root }).stdout,
    ) as { runs: { run_id: string; controller: string; status: string }[] };
    assert.deepEqual(
      monitor.runs.map((r) => [r.run_id, r.controller]),
      [[runId, 'live']],
    );
    const down = ok(batonRun(root, ['down', runId]));
    assert.equal(down.swarm_stopped.tmux_server, true);
    // down leaves the run where the agents brought it: still ACTIVE, or (the scripted agents
    // are quick) already at the approval gate; never stopped, blocked or failed by down.
    assert.ok(
      ['ACTIVE', 'WAITING_FOR_HUMAN_APPROVAL'].includes(
        ok(batonRun(root, ['status', runId])).status,
      ),
    );
  });

  it('the monitor shows a BLOCKED run reason and an ACTIVE run whose controller is missing, with no swarm running', async () => {
    const blockedRun = await startRun(root, [], 'req-b');
    ok(
      batonRun(root, [
        'block',
        blockedRun,
        '--reason',
        'the review cycle limit',
        '--lease',
        ok(batonRun(root, ['lease', blockedRun, 'acquire', '--pid', String(process.pid)])).lease
          .token,
      ]),
    );
    const idle = await startRun(root, [], 'req-c');
    runBin('baton', ['init'], { cwd: root });
    const text = runBin('baton', ['monitor', '--once'], { cwd: root }).stdout;
    assert.match(
      text,
      new RegExp(`${blockedRun} \\(req-b\\)  BLOCKED/IDLE .*BLOCKED: the review cycle limit`),
    );
    assert.match(text, new RegExp(`${idle} \\(req-c\\)  ACTIVE/IDLE .*CONTROLLER MISSING`));
  });
});
