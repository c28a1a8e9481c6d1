// Processes for tests of liveness checks: a sleeper that leads its own process group (as a
// leaf's worker does), the identity line of a process that ran and is gone, and the clean-up
// of helpers a test knows only by pid or only by the folder they work in.
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import { processIdentityOf } from '../../lib/fsx/processIdentity.js';
import { waitFor } from './daemon.js';
import { runBin } from './project.js';

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

/**
 * SIGKILLs `pid` if it is still a process working in or below `dir` (its current directory):
 * a test's clean-up of helpers it knows only by a recorded pid. A helper that has died already
 * may have its pid taken by another test's process in a long parallel run (a nats-server, a
 * daemon: pid_max is 32,768 here and the suite starts tens of thousands of processes); killed
 * by pid alone, that stranger died a few ms into its own test.
 */
export function killIfWorkingIn(pid: number, dir: string): void {
  let cwd: string;
  try {
    cwd = fs.readlinkSync(`/proc/${pid}/cwd`).replace(/ \(deleted\)$/, '');
  } catch {
    return; // gone, or not ours to read
  }
  const roots = [dir, realpathOr(dir)];
  if (!roots.some((r) => cwd === r || cwd.startsWith(`${r}/`))) return;
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // it ended in between
  }
}

/**
 * Takes down a swarm test's project: `baton down`, then SIGKILL to every process still working
 * in or below ROOT, then the folder. tmux's kill-server returns once the server has gone, while
 * the panes' programs (a scripted agent, a controller mid-write) are still ending on their
 * SIGHUP; one of them that writes a file while the folder is removed made rm fail ENOTEMPTY.
 */
export function tearDownSwarm(root: string): void {
  runBin('baton', ['down'], { cwd: root });
  for (const name of fs.readdirSync('/proc')) {
    if (/^\d+$/.test(name) && Number(name) !== process.pid) killIfWorkingIn(Number(name), root);
  }
  fs.rmSync(root, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
}

function realpathOr(dir: string): string {
  try {
    return fs.realpathSync(dir);
  } catch {
    return dir;
  }
}
