// Temp files, and when one counts as left behind by a crash. A temp entry is anything in
// a mailbox's outbox/tmp/ (the senders' partial writes and their send journal), and, in
// any other mailbox folder, a name writers give their temp files: `*.tmp` (rewrites,
// counters, .error files being written), `*.draft` (send journal) and `tmp.<pid>.*` (lock
// drafts). No step of the protocol keeps one longer than a call, so one older than 36 h is
// a crash's leftover: handoffd removes those of outbox/tmp/ at start-up, `baton doctor`
// reports every one and `--fix` removes them.
//
// Concurrency contract: none needed. A writer's temp file is at most seconds old when its
// writer publishes or drops it; only files far older than any live call are removed.
import * as fs from 'node:fs';
import { join } from 'node:path';
import { type Mailbox } from './mailbox.js';

/** How old a temp file must be before it counts as left behind by a crash. */
export const STALE_TEMP_MS = 36 * 3600 * 1000;

/** True for names writers give their temp files (in any mailbox folder). */
export function isTempName(name: string): boolean {
  return name.endsWith('.tmp') || name.endsWith('.draft') || /^tmp\.\d+\./.test(name);
}

/**
 * True for an entry of `dir` that is a temp file of the mailbox: anything in outbox/tmp/, else a
 * temp name.
 */
export function isTempEntry(box: Mailbox, dir: string, name: string): boolean {
  return dir === box.outboxTmp || isTempName(name);
}

/** True when a temp file last changed at `mtimeMs` is a crash's leftover at instant `now`. */
export function isStaleTemp(mtimeMs: number, now: number): boolean {
  return now - mtimeMs > STALE_TEMP_MS;
}

/**
 * Removes the stale entries of the mailbox's outbox/tmp/ (handoffd at start-up); returns their
 * paths.
 */
export function removeStaleOutboxTemps(box: Mailbox, now: number): string[] {
  const removed: string[] = [];
  let names: string[];
  try {
    names = fs.readdirSync(box.outboxTmp);
  } catch {
    return removed;
  }
  for (const name of names) {
    const path = join(box.outboxTmp, name);
    try {
      if (!isStaleTemp(fs.lstatSync(path).mtimeMs, now)) continue;
      fs.rmSync(path, { force: true });
      removed.push(path);
    } catch {
      // gone meanwhile
    }
  }
  return removed;
}
