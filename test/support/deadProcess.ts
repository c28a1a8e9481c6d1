// Processes for tests of liveness checks: a sleeper that leads its own process group (as a
// leaf's worker does), and the identity line of a process that ran and is gone.
import { spawn, type ChildProcess } from 'node:child_process';
import { processIdentityOf } from '../../lib/fsx/processIdentity.js';
import { waitFor } from './daemon.js';

/** A process that waits forever, the leader of its own process group. */
export function startSleeper(): ChildProcess {
  return spawn(process.execPath, ['-e', 'setInterval(() => {}, 60000)'], {
    detached: true,
    stdio: 'ignore',
  });
}

/** The identity line (pid, start time, boot id, host) of a process that ran and is gone. */
export async function deadIdentity(): Promise<string> {
  const child = startSleeper();
  await waitFor('the child to run', () => processIdentityOf(child.pid!) !== undefined);
  const identity = processIdentityOf(child.pid!)!;
  const exited = new Promise((done) => child.on('exit', done));
  child.kill('SIGKILL');
  await exited;
  return identity;
}
