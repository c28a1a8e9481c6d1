// `baton daemon start|stop`: handoffd as a background process. The daemon's identity is
// the live holder of its lock (pid + start time + boot id; see runningDaemon), so stop
// never signals a pid that is not our daemon, even if the pid file is stale and the
// number reused.
import * as fs from 'node:fs';
import { runningDaemon } from '../project/daemonRecord.js';
import { daemonPathsOf } from '../project/layout.js';
import { endProcess, until } from '../proc/ending.js';
import { DaemonAlreadyRunning } from './alreadyRunning.js';

/** Options of `baton daemon start`. */
export interface StartOptions {
  root: string;
  /** The built handoffd entry point. */
  handoffdPath: string;
  extraArgs?: string[];
}

/**
 * Starts handoffd detached (log in daemon/handoffd.log, crash output in handoffd.out); resolves
 * with its pid.
 */
export async function startDaemon(options: StartOptions): Promise<number> {
  const paths = daemonPathsOf(options.root);
  fs.mkdirSync(paths.dir, { recursive: true, mode: 0o700 });
  const running = runningDaemon(options.root);
  if (running) throw new DaemonAlreadyRunning(running);
  const out = fs.openSync(paths.out, 'a', 0o600);
  const child = process
    .getBuiltinModule('node:child_process')
    .spawn(
      process.execPath,
      [options.handoffdPath, '--root', options.root, '--quiet', ...(options.extraArgs ?? [])],
      {
        detached: true,
        stdio: ['ignore', out, out],
        cwd: options.root,
      },
    );
  fs.closeSync(out);
  let exited = false;
  child.on('exit', () => {
    exited = true;
  });
  child.unref();
  const pid = child.pid!;
  const ready = await until(
    () =>
      exited ||
      (fs.existsSync(paths.pid) && fs.readFileSync(paths.pid, 'utf8').trim() === String(pid)),
    15_000,
  );
  if (!ready || exited) {
    const tail = fs.readFileSync(paths.out, 'utf8').trim().split('\n').slice(-1)[0] ?? '';
    throw new Error(`handoffd did not start${tail ? `: ${tail}` : ''}`);
  }
  return pid;
}

/** Stops the daemon: TERM, wait up to `timeoutMs`, then KILL (only if it is still our daemon). */
export async function stopDaemon(
  root: string,
  timeoutMs = 10_000,
): Promise<{ pid: number; escalated: boolean } | undefined> {
  const pid = runningDaemon(root);
  if (pid === undefined) return undefined;
  const { escalated } = await endProcess(pid, {
    graceMs: timeoutMs,
    stillOurs: () => runningDaemon(root) === pid,
    killWaitMs: 5_000,
  });
  return { pid, escalated };
}
