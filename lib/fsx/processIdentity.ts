// Which process is which, across pid reuse: `<pid> <start-time> <boot-id> <host>` names a
// running process so that a later check can tell it from another process that got the
// same pid (the kernel's start time and the boot id differ). Used by the lock's owner
// line, a run's lease and a leaf's pid record. A process on another host counts as
// running: its liveness cannot be seen from here.
import * as fs from 'node:fs';
import { isCode, readProcessFile, readTextIfPresent as readText } from './absent.js';

let procThere: boolean | undefined;
/** Whether this system has /proc/<pid>/stat (Linux); looked at once. */
function hasProcStat(): boolean {
  procThere ??= fs.existsSync('/proc/self/stat');
  return procThere;
}

// Linux gives the host name as a file (the same name gethostname() returns, per UTS
// namespace): reading it costs a start a fifth of what loading node:os does (every lock taken
// names its host), and node:os is loaded only where there is no such file.
const HOSTNAME_FILE = '/proc/sys/kernel/hostname';

/** This host's name as the system gives it (os.hostname()'s). */
export function systemHostName(): string {
  return (
    readText(HOSTNAME_FILE)?.replace(/\n$/, '') ??
    (process.getBuiltinModule('node:os') as typeof import('node:os')).hostname()
  );
}

/** This host's name as identities record it (white space replaced). */
export function hostName(): string {
  return systemHostName().replace(/\s/g, '_') || '-';
}

/**
 * `<pid> <start-time> <boot-id> <host>` of a running process (host names have no spaces), or
 * undefined when it is not running: a record that identityAlive can later check, so that a
 * reused pid is not mistaken for the process (the lock's owner line, and a leaf's pid record).
 */
export function processIdentityOf(pid: number): string | undefined {
  const start = hasProcStat() ? startTimeOf(pid) : processRunning(pid) ? '-' : undefined;
  return start === undefined ? undefined : `${pid} ${start} ${bootId()} ${hostName()}`;
}

let boot: string | undefined;
/** The kernel's boot id (`-` where there is none); read once, as it cannot change meanwhile. */
export function bootId(): string {
  boot ??= (readText('/proc/sys/kernel/random/boot_id') ?? '-').trim();
  return boot;
}

// This process's own start time, read once: it never changes while the process runs, and
// reading /proc/<pid>/stat of a process with many threads took up to 1.3 ms on each step of
// a controller, which checks that its own lease's holder, itself, still runs (issue 22).
let ownStartTime: string | undefined;

/**
 * The kernel's start time of a running process (clock ticks since boot); undefined if none or a
 * zombie.
 */
export function startTimeOf(pid: number): string | undefined {
  if (pid === process.pid && ownStartTime !== undefined) return ownStartTime;
  const fields = processStatOf(pid);
  const start = fields === undefined || fields[0] === 'Z' ? undefined : fields[19];
  if (pid === process.pid) ownStartTime = start;
  return start;
}

/**
 * The fields of `/proc/<pid>/stat` after the command name (state, ppid, pgrp, session, tty_nr,
 * tpgid, ...), or undefined when the process is gone.
 */
export function processStatOf(pid: number): string[] | undefined {
  const stat = readProcessFile(`/proc/${pid}/stat`);
  // The command name, in parentheses, may hold spaces and parentheses: read after the last.
  return stat === undefined ? undefined : stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** True while process `pid` runs (a zombie not yet reaped by its parent counts as gone). */
export function processRunning(pid: number): boolean {
  if (hasProcStat()) return startTimeOf(pid) !== undefined;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return isCode(err, 'EPERM');
  }
}

/**
 * True when the process an identity line records (an owner line, or processIdentityOf's
 * record) is still running: same pid, start time and boot. A process on another host
 * counts as running, since its liveness cannot be seen from here.
 */
export function identityAlive(owner: string): boolean {
  const [pidText, start, boot, host] = owner.trim().split(' ');
  const pid = Number(pidText);
  if (!Number.isInteger(pid) || pid <= 0) return false;
  if (host !== undefined && host !== hostName()) return true;
  if (hasProcStat()) {
    if (boot !== bootId()) return false;
    const actual = startTimeOf(pid);
    return actual !== undefined && actual === start;
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return isCode(err, 'EPERM');
  }
}
