// Files and folders that may be absent: ENOENT is an answer, not a failure, wherever a
// missing file means "none" (an unwritten record, an empty folder, a process gone). One
// home for that rule, so no caller spells the error-code check by hand.
import * as fs from 'node:fs';

/** True when err is a Node system error with the given code. */
export function isCode(err: unknown, code: string): boolean {
  return typeof err === 'object' && err !== null && (err as NodeJS.ErrnoException).code === code;
}

/** `fn()`, or `absent` when it fails with ENOENT (any other error is thrown). */
export function ignoreEnoent<T>(fn: () => T, absent: T): T {
  try {
    return fn();
  } catch (err) {
    if (isCode(err, 'ENOENT')) return absent;
    throw err;
  }
}

/** The bytes of `path`, or undefined when there is no such file. */
export function readIfPresent(path: string): Buffer | undefined {
  return ignoreEnoent<Buffer | undefined>(() => fs.readFileSync(path), undefined);
}

/** The UTF-8 text of `path`, or undefined when there is no such file. */
export function readTextIfPresent(path: string): string | undefined {
  return ignoreEnoent<string | undefined>(() => fs.readFileSync(path, 'utf8'), undefined);
}

/**
 * The text of a process's file under /proc (`/proc/<pid>/stat`), or undefined when the process
 * is gone: no such file (ENOENT), or it ended between the open and the read (ESRCH, which a
 * lock's liveness check met when the holder exited at that moment). `path` may be an open
 * file descriptor of one.
 */
export function readProcessFile(path: string | number): string | undefined {
  try {
    return fs.readFileSync(path, 'utf8');
  } catch (err) {
    if (isCode(err, 'ENOENT') || isCode(err, 'ESRCH')) return undefined;
    throw err;
  }
}
