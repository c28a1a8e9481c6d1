// baton daemon start/stop/status as library calls, with the built dist/bin/handoffd.js.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { DaemonAlreadyRunning } from '../../lib/daemon/alreadyRunning.js';
import { startDaemon, stopDaemon } from '../../lib/daemon/control.js';
import { daemonStatus, runningDaemon } from '../../lib/project/daemonRecord.js';
import { daemonPathsOf } from '../../lib/project/layout.js';
import { daemonLog, waitFor } from '../support/daemon.js';
import { BIN_DIR, makeProject, type Project } from '../support/project.js';

/** True while the process runs; a zombie not yet reaped by its parent (this test process) counts as gone. */
function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z /.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

describe('lib/daemon/control', function () {
  this.timeout(30_000);
  let p: Project;
  const handoffdPath = join(BIN_DIR, 'handoffd.js');
  beforeEach(() => {
    p = makeProject();
  });
  afterEach(async () => {
    // Only a daemon that still holds this project's lock is killed: never a reused pid.
    const pid = runningDaemon(p.root);
    if (pid !== undefined) {
      process.kill(pid, 'SIGKILL');
      await waitFor('the daemon to die', () => !alive(pid));
    }
    p.cleanup();
  });

  it('stop has nothing to stop without a daemon', async () => {
    assert.equal(await stopDaemon(p.root, 100), undefined);
  });

  it('starts handoffd detached, refuses a second start, reports it running, and stops it with TERM', async () => {
    const pid = await startDaemon({
      root: p.root,
      handoffdPath,
      extraArgs: ['--poll-interval', '100'],
    });
    assert.equal(fs.readFileSync(daemonPathsOf(p.root).pid, 'utf8'), `${pid}\n`);
    assert.equal(runningDaemon(p.root), pid);
    await assert.rejects(
      startDaemon({ root: p.root, handoffdPath }),
      (err: unknown) =>
        err instanceof DaemonAlreadyRunning &&
        err.pid === pid &&
        err.message === `handoffd: already running as pid ${pid}`,
    );
    await waitFor('a pass', () => daemonStatus(p.root).passes > 0);
    const status = daemonStatus(p.root);
    assert.deepEqual([status.running, status.pid], [true, pid]);
    assert.match(status.last_pass_at!, /^\d{4}-\d\d-\d\dT/);
    assert.deepEqual(await stopDaemon(p.root), { pid, escalated: false });
    assert.equal(alive(pid), false);
    assert.equal(runningDaemon(p.root), undefined);
    assert.equal(fs.existsSync(daemonPathsOf(p.root).pid), false);
    assert.match(daemonLog(p.root).at(-1)!, / stopped pid=\d+$/, 'a graceful stop');
  });

  it('escalates to SIGKILL only after the timeout, when TERM does not end the daemon', async () => {
    const pid = await startDaemon({ root: p.root, handoffdPath });
    process.kill(pid, 'SIGSTOP');
    const t0 = Date.now();
    const result = await stopDaemon(p.root, 500);
    assert.ok(Date.now() - t0 >= 500, 'waited for the timeout first');
    assert.deepEqual(result, { pid, escalated: true });
    assert.equal(alive(pid), false);
    assert.equal(runningDaemon(p.root), undefined);
    assert.doesNotMatch(daemonLog(p.root).at(-1)!, / stopped /, 'killed, not stopped gracefully');
  });

  it("fails with handoffd's last output line when it exits at start-up", async () => {
    await assert.rejects(
      startDaemon({ root: p.root, handoffdPath, extraArgs: ['--poll-interval', '0'] }),
      {
        message: 'handoffd did not start: handoffd: intervals must be positive numbers',
      },
    );
    assert.equal(runningDaemon(p.root), undefined);
  });
});
