// Fixtures for what status, monitor and doctor read of the bridge: a roster
// (swarmforge/nodes.conf), a bridge.json as handoffd's bridge writes it, and a stand-in
// for a running handoffd (this test process holding the daemon's lock, its pid in the
// daemon's pid file) or one that ran and is gone (a dead child's pid in the pid file).
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { type BridgeReport } from '../../lib/project/bridgeRecord.js';
import { bridgePathsOf, daemonPathsOf } from '../../lib/project/layout.js';
import { acquireLock } from '../../lib/fsx/lock.js';

/** The roster of the default three-role project on two nodes: coder on a, reviewer and QA on b. */
export const TWO_NODES = 'swarm t\nnats nats://127.0.0.1:4222\nnode a coder\nnode b reviewer,QA\n';

/** Writes ROOT/swarmforge/nodes.conf. */
export function writeRoster(root: string, text = TWO_NODES): void {
  fs.writeFileSync(bridgePathsOf(root).roster, text);
}

/** Writes ROOT/.swarmforge/bridge.json as the bridge does: `{pid, node, swarm, connected, last_error, remote_roles, pending, unacked, stream, updated_at}`. */
export function writeBridgeJson(
  root: string,
  report: Partial<BridgeReport> & { pid: number },
): BridgeReport {
  const full: BridgeReport = {
    node: 'a',
    swarm: 't',
    connected: true,
    last_error: null,
    remote_roles: { reviewer: 'b', QA: 'b' },
    pending: {},
    unacked: {},
    stream: null,
    updated_at: new Date().toISOString(),
    ...report,
  };
  fs.writeFileSync(bridgePathsOf(root).state, `${JSON.stringify(full)}\n`, { mode: 0o600 });
  return full;
}

/** Makes this test process the project's running handoffd: its pid in the pid file, the daemon's lock held; returns the release. */
export function pretendDaemonRuns(root: string): () => void {
  const paths = daemonPathsOf(root);
  fs.mkdirSync(paths.dir, { recursive: true, mode: 0o700 });
  const release = acquireLock(paths.lock);
  fs.writeFileSync(paths.pid, `${process.pid}\n`);
  return () => {
    fs.rmSync(paths.pid, { force: true });
    release();
  };
}

/** The pid of a process that ran and is gone. */
export function deadPid(): number {
  return spawnSync(process.execPath, ['-e', '0']).pid;
}

/** Leaves the files of a handoffd that was killed: its (dead) pid in the pid file, the lock not held. */
export function leaveDeadDaemon(root: string, pid: number): void {
  const paths = daemonPathsOf(root);
  fs.mkdirSync(paths.dir, { recursive: true, mode: 0o700 });
  fs.writeFileSync(paths.pid, `${pid}\n`);
}
