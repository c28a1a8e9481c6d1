// handoffd as the daemon figures run it: the built bin as a child process (argv only), its
// health counters and log, its CPU time, and a stop that waits for its exit. A figure stops
// its daemons in its clean-ups; as a safety net, every daemon still running is SIGKILLed
// when the bench process exits or is ended by SIGTERM, SIGHUP or SIGINT.
import { type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import { parseLogLine } from '../../lib/project/daemonRecord.js';
import { daemonPathsOf } from '../../lib/project/layout.js';
import { startHandoffd, waitFor } from '../../test/support/daemon.js';

/** A running handoffd. */
export interface Daemon {
  pid: number;
  /** Sends TERM and waits for the exit (KILL after 20 s); throws unless it exited 0. */
  stop: () => Promise<void>;
}

/** Starts `dist/bin/handoffd.js --root root --quiet ...args` (with `env` added, e.g. BATON_NODE) and waits for its pid file. */
export async function startDaemon(
  root: string,
  args: string[] = [],
  env: Record<string, string> = {},
): Promise<Daemon> {
  const d = await startHandoffd(root, ['--quiet', ...args], env);
  if (d.child.exitCode !== null || d.child.pid === undefined)
    throw new Error(`handoffd did not start: ${d.stderr()}`);
  const pid = d.child.pid;
  installSafetyNet();
  running.add(d.child);
  void d.exited.then(() => running.delete(d.child));
  return {
    pid,
    stop: async () => {
      if (d.child.exitCode === null && d.child.signalCode === null) d.child.kill('SIGTERM');
      const killer = setTimeout(() => d.child.kill('SIGKILL'), 20_000);
      const code = await d.exited;
      clearTimeout(killer);
      if (code !== 0) throw new Error(`handoffd exited ${code}: ${d.stderr()}`);
    },
  };
}

/** Daemons started and not yet exited, for the safety net. */
const running = new Set<ChildProcess>();
let netInstalled = false;

/** SIGKILLs every running daemon at exit and on a fatal signal (re-raised afterwards, unless another listener handles it). */
function installSafetyNet(): void {
  if (netInstalled) return;
  netInstalled = true;
  const killAll = () => {
    for (const child of running) child.kill('SIGKILL');
    running.clear();
  };
  process.once('exit', killAll);
  for (const sig of ['SIGTERM', 'SIGHUP', 'SIGINT'] as const) {
    process.once(sig, () => {
      killAll();
      if (process.listenerCount(sig) === 0) process.kill(process.pid, sig);
    });
  }
}

/** The daemon's health counters (undefined while the file is missing or being rewritten). */
export function healthOf(
  root: string,
): { passes: number; delivered: number; failed: number } | undefined {
  try {
    return JSON.parse(fs.readFileSync(daemonPathsOf(root).health, 'utf8')) as {
      passes: number;
      delivered: number;
      failed: number;
    };
  } catch {
    return undefined;
  }
}

/** Waits until the pass that delivered the `count`th handoff has ended (health.json counts it). */
export async function waitDelivered(
  root: string,
  count: number,
  timeoutMs = 30_000,
): Promise<void> {
  await waitFor(
    `handoffd to report ${count} deliveries`,
    () => (healthOf(root)?.delivered ?? 0) >= count,
    timeoutMs,
  );
}

/** Log events (time in ms since the epoch, event name, details) of the daemon's log. */
export function logEvents(
  root: string,
): { at: number; event: string; details: Record<string, string> }[] {
  const path = daemonPathsOf(root).log;
  const lines = fs.existsSync(path)
    ? fs.readFileSync(path, 'utf8').split('\n').filter(Boolean)
    : [];
  return lines.flatMap((line) => {
    const parsed = parseLogLine(line);
    return parsed
      ? [{ at: Date.parse(parsed.at), event: parsed.event, details: parsed.details }]
      : [];
  });
}

/** Removes the daemon's log and health file (between runs, with no daemon running). */
export function clearLog(root: string): void {
  fs.rmSync(daemonPathsOf(root).log, { force: true });
  fs.rmSync(daemonPathsOf(root).health, { force: true });
}
