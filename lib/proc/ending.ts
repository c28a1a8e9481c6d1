// Ending processes Baton started (a reviewer's or a worker's process group, an acceptance
// command, handoffd, a local nats-server): one policy for all of them. SIGTERM first, so a
// program can flush what it holds (nats-server its store, handoffd its log); up to a grace
// for it to go; then SIGKILL, which cannot be refused, sent only while the process is still
// the one meant (a pid can be reused). A process group is signalled as a whole, so what a
// program started (an agent CLI's tools) ends with it.
import { processRunning } from '../fsx/processIdentity.js';

/** How long a process group gets between SIGTERM and SIGKILL unless its caller says otherwise. */
export const DEFAULT_GRACE_MS = 1_000;

/** Polls `condition` every 20 ms until it holds (true) or `timeoutMs` has passed (false). */
export async function until(
  condition: () => boolean | Promise<boolean>,
  timeoutMs: number,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return true;
}

/**
 * Sends `signal` to process `pid` (with `group`, to its whole process group); false when it is gone
 * already.
 */
export function signalProcess(pid: number, signal: NodeJS.Signals | 0, group = false): boolean {
  try {
    process.kill(group ? -pid : pid, signal);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw err;
  }
}

/**
 * True while any process of group `pgid` exists (zombies included: a dead helper not yet reaped
 * counts).
 */
export function groupAlive(pgid: number): boolean {
  try {
    return signalProcess(pgid, 0, true);
  } catch {
    return false;
  }
}

/** How to end one process or group. */
export interface EndOptions {
  /** Signal the process group `pid` leads, not the process alone. */
  group?: boolean;
  /** How long SIGTERM may take before SIGKILL. */
  graceMs?: number;
  /** True once the process is gone (default: `pid` no longer runs). */
  gone?: () => boolean;
  /** True while `pid` is still the process meant (default: always): SIGKILL goes only then. */
  stillOurs?: () => boolean;
  /** How long to wait for it to go after SIGKILL (default: not at all). */
  killWaitMs?: number;
}

/** Ends `pid` (module rule): whether SIGKILL was needed, and whether it is gone at the end. */
export async function endProcess(
  pid: number,
  options: EndOptions = {},
): Promise<{ escalated: boolean; gone: boolean }> {
  const gone = options.gone ?? (() => !processRunning(pid));
  if (!signalProcess(pid, 'SIGTERM', options.group)) return { escalated: false, gone: true };
  if (await until(gone, options.graceMs ?? DEFAULT_GRACE_MS))
    return { escalated: false, gone: true };
  if (options.stillOurs?.() ?? true) signalProcess(pid, 'SIGKILL', options.group);
  const killed = options.killWaitMs ? await until(gone, options.killWaitMs) : gone();
  return { escalated: true, gone: killed };
}

/**
 * Ends group `pgid` (whose leader is the process `pgid`): SIGTERM to the group, up to
 * `graceMs` for the leader to finish, then SIGKILL to whatever is left of the group. It does
 * not wait for the killed processes to be reaped: SIGKILL cannot be refused, and a helper
 * whose parent died is reaped by init, on init's schedule.
 */
export async function endGroup(pgid: number, graceMs = DEFAULT_GRACE_MS): Promise<void> {
  if (!groupAlive(pgid)) return;
  await endProcess(pgid, { group: true, graceMs });
  signalProcess(pgid, 'SIGKILL', true);
}
