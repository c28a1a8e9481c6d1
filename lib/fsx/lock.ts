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
// random token tells two holders with the same pid apart in the lock files. The generation is free
// when `lock.<g>.released` exists or its
// owner is dead. A taker links a complete owner file to `lock.<g+1>`: link() refuses an
// existing name, so one taker wins each generation. A taker that acted on a stale listing
// can only create a lower generation than one that exists; it sees the higher one when
// it lists again, and backs off. Takers delete generations below their own.
import * as fs from 'node:fs';
import { dirname, join } from 'node:path';
import { ignoreEnoent, isCode, readTextIfPresent as readText } from './absent.js';
import { childPathOf } from './childPaths.js';
import { makeFolderIfMissing, mkdirSynced } from './durable.js';
import { fileModeIn, keepSharedMode } from './sharedFolders.js';
import { bootId, hostName, identityAlive, processIdentityOf } from './processIdentity.js';

let selfIdentity: string | undefined;
/**
 * 16 hex digits telling this process apart from another with the same pid. Uniqueness, not
 * secrecy: Math.random, since node:crypto would cost every locking command its load.
 */
function uniqueToken(): string {
  const word = () =>
    Math.floor(Math.random() * 0x100000000)
      .toString(16)
      .padStart(8, '0');
  return word() + word();
}

/** `<pid> <start-time> <boot-id> <host> <token>` of this process. */
function identityOfSelf(): string {
  selfIdentity ??=
    `${processIdentityOf(process.pid) ?? `${process.pid} - ${bootId()} ${hostName()}`} ` +
    `${uniqueToken()}`;
  return selfIdentity;
}

/** Raised when the lock stays held by a live process beyond the timeout (exit 75). */
export class LockBusy extends Error {
  constructor(
    readonly dir: string,
    readonly owner: string,
  ) {
    super(`lock busy '${dir}': held by pid ${owner.split(' ')[0]}`);
  }
}

const GENERATION = /^lock\.(\d+)$/;
const sleeper = new Int32Array(new SharedArrayBuffer(4));

function generations(dir: string): number[] {
  return fs
    .readdirSync(dir)
    .map((name) => GENERATION.exec(name)?.[1])
    .filter((g): g is string => g !== undefined)
    .map(Number);
}

/** Lock folders where this process has released a generation. */
const releasedHere = new Set<string>();

/**
 * This process's own owner file of the free generation `top` in `dir` (its entries' paths by
 * `at`), when it is one: a process that takes a lock again links that file as its next
 * generation instead of writing a new one. Its content, the owner line with this process's
 * random token, is checked, so a file of another process (a folder removed and made again) is
 * never taken for one of ours.
 */
function ownFreeOwnerFile(
  dir: string,
  at: (name: string) => string,
  top: number,
): string | undefined {
  if (top === 0 || !releasedHere.has(dir)) return undefined;
  const path = at(`lock.${top}`);
  return readText(path) === `${identityOfSelf()}\n` ? path : undefined;
}

/** Tries once to take the lock; returns the generation taken or the live owner's line. */
function tryTake(dir: string, mode: number): { taken: number } | { owner: string } | undefined {
  const at = childPathOf(dir);
  const top = Math.max(0, ...generations(dir));
  if (top > 0 && !fs.existsSync(at(`lock.${top}.released`))) {
    const owner = readText(at(`lock.${top}`));
    if (owner === undefined) return undefined; // replaced under us: list again
    if (identityAlive(owner)) return { owner };
  }
  const mine = top + 1;
  // A new inode can wait on the file system's journal after an fsync (markReleased); a
  // controller or teacher takes the same locks again and again.
  const own = ownFreeOwnerFile(dir, at, top);
  const draft = own ?? at(`tmp.${process.pid}.${Math.random().toString(36).slice(2)}`);
  if (own === undefined) {
    fs.writeFileSync(draft, `${identityOfSelf()}\n`, { mode });
    keepSharedMode(draft, mode);
  }
  try {
    fs.linkSync(draft, at(`lock.${mine}`));
  } catch (err) {
    // EEXIST: another taker won this generation; ENOENT: our old file went with its generation.
    if (isCode(err, 'EEXIST') || (own !== undefined && isCode(err, 'ENOENT'))) return undefined;
    throw err;
  } finally {
    if (own === undefined) fs.unlinkSync(draft);
  }
  // One listing decides and cleans: a generation below ours made after it is a stale taker's,
  // which sees ours when it lists and removes its own.
  const after = generations(dir);
  if (Math.max(...after) > mine) {
    removeQuietly(at(`lock.${mine}`));
    return undefined;
  }
  for (const g of after) {
    if (g < mine) {
      removeQuietly(at(`lock.${g}`));
      removeQuietly(at(`lock.${g}.released`));
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
 * Makes a lock's folder, its missing parents durably (other state lives under them) but the
 * folder itself without an fsync of its parent: after a power loss no process holds the lock,
 * so losing the folder loses nothing. One fsync fewer for each new folder (each new bead has one).
 */
function makeLockFolder(dir: string): void {
  mkdirSynced(dirname(dir));
  makeFolderIfMissing(dir);
}

/**
 * Takes the lock in `dir` (created 0700, or shared like its parent, if missing), waiting with
 * backoff while a live process holds it; throws LockBusy after `timeoutMs`.
 */
export function acquireLock(dir: string, timeoutMs = lockTimeoutMs()): Release {
  const deadline = Date.now() + timeoutMs;
  if (!fs.existsSync(dir)) makeLockFolder(dir);
  // Others read the owner line: in a shared mailbox, an agent of another user and handoffd.
  const mode = fileModeIn(dir);
  for (let attempt = 0; ; attempt++) {
    const result = tryTake(dir, mode);
    if (result && 'taken' in result) {
      const held = join(dir, `lock.${result.taken}`);
      return () => {
        markReleased(held, `${held}.released`);
        releasedHere.add(dir);
      };
    }
    if (result && Date.now() > deadline) throw new LockBusy(dir, result.owner);
    if (result) Atomics.wait(sleeper, 0, 0, Math.min(2 + attempt, 25));
  }
}

/**
 * Marks a held generation free: `lock.<g>.released` made as a second name of the owner file.
 * Only its existence counts. A link, not a new file: creating an inode can wait on the file
 * system's journal (0.5 ms after an fsync on ext4, where a link takes 0.03 ms), and every
 * command that locks releases once.
 */
function markReleased(held: string, released: string): void {
  try {
    fs.linkSync(held, released);
  } catch (err) {
    if (isCode(err, 'EEXIST')) return;
    // The owner file is gone (removed by hand): an empty marker says the same.
    if (isCode(err, 'ENOENT')) fs.closeSync(fs.openSync(released, 'w', 0o600));
    else throw err;
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
  const gens = ignoreEnoent<number[] | undefined>(() => generations(dir), undefined);
  if (gens === undefined) return undefined;
  const top = Math.max(0, ...gens);
  const at = childPathOf(dir);
  if (top === 0 || fs.existsSync(at(`lock.${top}.released`))) return undefined;
  const owner = readText(at(`lock.${top}`));
  return owner !== undefined && identityAlive(owner) ? Number(owner.split(' ')[0]) : undefined;
}
