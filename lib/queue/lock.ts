// A mutual-exclusion lock on a directory of lock files, safe against crashed holders.
//
// Concurrency contract: at most one live process holds a given lock. A holder that dies
// (even by SIGKILL) releases it implicitly: its successor sees that the recorded owner
// is gone and takes over. The lock never depends on timing.
//
// How: the lock is a numbered series of files `lock.<g>`; the highest g is the current
// generation. Its owner line is `<pid> <start-time> <boot-id> <host> <token>`, so a reused
// pid is not mistaken for the owner; a holder on another host (a lock folder on a shared
// file system) is never taken over, since its liveness cannot be seen from here; the
// random token tells two holders with the same pid apart in the lock files. The generation is free when `lock.<g>.released` exists or its
// owner is dead. A taker links a complete owner file to `lock.<g+1>`: link() refuses an
// existing name, so one taker wins each generation. A taker that acted on a stale listing
// can only create a lower generation than one that exists; it sees the higher one when
// it lists again, and backs off. Takers delete generations below their own.
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { isCode, mkdirSynced } from './durable.js';

/** Raised when the lock stays held by a live process beyond the timeout (exit 75). */
export class LockBusy extends Error {
  constructor(readonly dir: string, readonly owner: string) {
    super(`lock busy '${dir}': held by pid ${owner.split(' ')[0]}`);
  }
}

const GENERATION = /^lock\.(\d+)$/;
const sleeper = new Int32Array(new SharedArrayBuffer(4));

function readText(path: string): string | undefined {
  try {
    return fs.readFileSync(path, 'utf8');
  } catch (err) {
    if (isCode(err, 'ENOENT')) return undefined;
    throw err;
  }
}

function hostName(): string {
  return hostname().replace(/\s/g, '_') || '-';
}

/**
 * `<pid> <start-time> <boot-id> <host>` of a running process (host names have no spaces), or
 * undefined when it is not running: a record that identityAlive can later check, so that a
 * reused pid is not mistaken for the process (the lock's owner line, and a leaf's pid record).
 */
export function processIdentityOf(pid: number): string | undefined {
  const start = fs.existsSync('/proc/self/stat') ? startTimeOf(pid) : processRunning(pid) ? '-' : undefined;
  return start === undefined ? undefined : `${pid} ${start} ${bootId()} ${hostName()}`;
}

let selfIdentity: string | undefined;
/** `<pid> <start-time> <boot-id> <host> <token>` of this process. */
function identityOfSelf(): string {
  selfIdentity ??= `${processIdentityOf(process.pid) ?? `${process.pid} - ${bootId()} ${hostName()}`} ${randomBytes(8).toString('hex')}`;
  return selfIdentity;
}

function bootId(): string {
  return (readText('/proc/sys/kernel/random/boot_id') ?? '-').trim();
}

/** The kernel's start time of a running process (clock ticks since boot); undefined if none or a zombie. */
export function startTimeOf(pid: number): string | undefined {
  const stat = readText(`/proc/${pid}/stat`);
  if (stat === undefined) return undefined;
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return fields[0] === 'Z' ? undefined : fields[19];
}

/** True while process `pid` runs (a zombie not yet reaped by its parent counts as gone). */
export function processRunning(pid: number): boolean {
  if (fs.existsSync('/proc/self/stat')) return startTimeOf(pid) !== undefined;
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
  if (fs.existsSync('/proc/self/stat')) {
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

function generations(dir: string): number[] {
  return fs
    .readdirSync(dir)
    .map((name) => GENERATION.exec(name)?.[1])
    .filter((g): g is string => g !== undefined)
    .map(Number);
}

/** Tries once to take the lock; returns the generation taken or the live owner's line. */
function tryTake(dir: string): { taken: number } | { owner: string } | undefined {
  const top = Math.max(0, ...generations(dir));
  if (top > 0 && !fs.existsSync(join(dir, `lock.${top}.released`))) {
    const owner = readText(join(dir, `lock.${top}`));
    if (owner === undefined) return undefined; // replaced under us: list again
    if (identityAlive(owner)) return { owner };
  }
  const mine = top + 1;
  const draft = join(dir, `tmp.${process.pid}.${Math.random().toString(36).slice(2)}`);
  fs.writeFileSync(draft, `${identityOfSelf()}\n`, { mode: 0o600 });
  try {
    fs.linkSync(draft, join(dir, `lock.${mine}`));
  } catch (err) {
    if (isCode(err, 'EEXIST')) return undefined;
    throw err;
  } finally {
    fs.unlinkSync(draft);
  }
  if (Math.max(...generations(dir)) > mine) {
    removeQuietly(join(dir, `lock.${mine}`));
    return undefined;
  }
  for (const g of generations(dir)) {
    if (g < mine) {
      removeQuietly(join(dir, `lock.${g}`));
      removeQuietly(join(dir, `lock.${g}.released`));
    }
  }
  return { taken: mine };
}

function removeQuietly(path: string): void {
  try {
    fs.unlinkSync(path);
  } catch (err) {
    if (!isCode(err, 'ENOENT')) throw err;
  }
}

/** Releases a held lock. */
export type Release = () => void;

/**
 * Takes the lock in `dir` (created 0700 if missing), waiting with backoff while a live process
 * holds it; throws LockBusy after `timeoutMs`.
 */
export function acquireLock(dir: string, timeoutMs = lockTimeoutMs()): Release {
  const deadline = Date.now() + timeoutMs;
  if (!fs.existsSync(dir)) mkdirSynced(dir);
  for (let attempt = 0; ; attempt++) {
    const result = tryTake(dir);
    if (result && 'taken' in result) {
      const released = join(dir, `lock.${result.taken}.released`);
      return () => fs.closeSync(fs.openSync(released, 'w', 0o600));
    }
    if (result && Date.now() > deadline) throw new LockBusy(dir, result.owner);
    if (result) Atomics.wait(sleeper, 0, 0, Math.min(2 + attempt, 25));
  }
}

/** Runs fn while holding the lock in `dir`. */
export async function withLock<T>(dir: string, fn: () => Promise<T> | T): Promise<T> {
  const release = acquireLock(dir);
  try {
    return await fn();
  } finally {
    release();
  }
}

function lockTimeoutMs(): number {
  const fromEnv = Number(process.env.BATON_LOCK_TIMEOUT_MS);
  return Number.isFinite(fromEnv) && fromEnv > 0 ? fromEnv : 30_000;
}

/** The pid of the live process holding the lock in `dir`, or undefined when it is free. */
export function lockHolder(dir: string): number | undefined {
  let gens: number[];
  try {
    gens = generations(dir);
  } catch (err) {
    if (isCode(err, 'ENOENT')) return undefined;
    throw err;
  }
  const top = Math.max(0, ...gens);
  if (top === 0 || fs.existsSync(join(dir, `lock.${top}.released`))) return undefined;
  const owner = readText(join(dir, `lock.${top}`));
  return owner !== undefined && identityAlive(owner) ? Number(owner.split(' ')[0]) : undefined;
}
