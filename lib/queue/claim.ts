// Claiming: moving waiting items from inbox/new/ into inbox/in_process/.
//
// Concurrency contract: every function here must run under the mailbox's inbox lock
// (lock.ts); the daemon only ever adds files to new/, by link, so a file read in new/
// cannot change before it is moved.
//
// Crash contract: a task claim is one rename (new/ → in_process/), then a header stamp;
// a crash between leaves the item in process without `dequeued_at`, which the resume path
// stamps. A batch claim moves its items into a hidden staging directory inside
// in_process/ and publishes it with one rename; a crash before that rename leaves a
// staging directory that rollBackStagedBatches returns to new/ before anything else runs,
// so no reader ever sees half a batch. An unusable entry met in new/ is quarantined into
// inbox/bad/ (quarantine.ts) at that first sight, under the same lock.
import * as fs from 'node:fs';
import { join } from 'node:path';
import { crashPoint } from '../fsx/crash.js';
import { fsyncDir, mkdirSynced } from '../fsx/durable.js';
import { isCode } from '../fsx/absent.js';
import { type Mailbox } from './mailbox.js';
import {
  isBatchName,
  isItemName,
  itemNamesIn,
  entriesOf,
  formatSeq,
  sortByBytes,
} from './names.js';
import { isoOf } from '../fsx/timestamps.js';
import { readItem, rewriteItem, UnusableItem, type FolderSync, type Item } from './item.js';
import { quarantineItem, quarantineUndecodable, undecodableNamesIn } from './quarantine.js';

/** Reports an entry that cannot be handed out (`skipping <path>: <reason>`). */
export type SkipReporter = (problem: UnusableItem) => void;

const STAGING_PREFIX = '.claiming-';

/**
 * The usable items of a folder in queue order; unusable ones are reported and left alone. `names`:
 * the folder's item names in queue order when the caller has just listed it.
 */
export async function readItemsIn(
  dir: string,
  onSkip: SkipReporter,
  limit = Infinity,
  names: string[] = itemNamesIn(dir),
): Promise<Item[]> {
  const items: Item[] = [];
  for (const name of names) {
    if (items.length >= limit) break;
    try {
      items.push(await readItem(join(dir, name)));
    } catch (err) {
      if (!(err instanceof UnusableItem)) throw err;
      onSkip(err);
    }
  }
  return items;
}

/**
 * The usable items waiting in new/ in queue order (at most `limit`); each unusable entry met
 * on the way is quarantined into bad/ and reported. A listed name that opens nothing is an
 * entry whose name is not valid UTF-8 (quarantine.ts): those are quarantined by their raw
 * names, then new/ is read again.
 */
export async function readWaitingItems(
  box: Mailbox,
  onSkip: SkipReporter,
  limit = Infinity,
): Promise<Item[]> {
  const quarantine = (problem: UnusableItem) => onSkip(quarantineItem(box, problem));
  try {
    return await readItemsIn(box.inboxNew, quarantine, limit);
  } catch (err) {
    const undecodable = isCode(err, 'ENOENT') ? undecodableNamesIn(box.inboxNew) : [];
    if (undecodable.length === 0) throw err;
    for (const raw of undecodable) onSkip(quarantineUndecodable(box, raw));
    return readItemsIn(box.inboxNew, quarantine, limit);
  }
}

/**
 * Sets a header if it is missing (a claim or completion cut short by a crash); returns the item.
 * `folderSync`: see rewriteItem.
 */
export async function stampIfMissing(
  item: Item,
  header: string,
  value: string,
  folderSync?: FolderSync,
): Promise<Item> {
  if (item.headers[header]) return item;
  return rewriteItem(item, { ...item.headers, [header]: value }, folderSync);
}

/**
 * Moves one waiting item into in_process/ and stamps `dequeued_at`. The move and the stamp
 * are made durable together: one fsync of in_process/ after both (then new/), rather than one
 * after each.
 */
export async function claimItem(box: Mailbox, item: Item, now: Date): Promise<Item> {
  mkdirSynced(box.inProcess);
  const target = join(box.inProcess, item.name);
  fs.renameSync(item.path, target);
  crashPoint('claim:moved');
  const claimed = await stampIfMissing(
    { ...item, path: target },
    'dequeued_at',
    isoOf(now),
    'caller syncs folder',
  );
  fsyncDir(box.inProcess);
  fsyncDir(box.inboxNew);
  crashPoint('claim:synced');
  return claimed;
}

/** `batch_<tsid>_<NNNNNN>` with the smallest N not taken in in_process/ or completed/. */
export function uniqueBatchName(box: Mailbox, tsid: string): string {
  for (let n = 1; ; n++) {
    const name = `batch_${tsid}_${formatSeq(n)}`;
    const taken = [box.inProcess, box.completed].some(
      (dir) => pathTaken(join(dir, name)) || pathTaken(join(dir, STAGING_PREFIX + name)),
    );
    if (!taken) return name;
  }
}

/** Claims the given waiting items as one batch directory, published with a single rename. */
export async function claimBatch(
  box: Mailbox,
  items: Item[],
  batchName: string,
  now: Date,
): Promise<{ dir: string; items: Item[] }> {
  const staging = join(box.inProcess, STAGING_PREFIX + batchName);
  mkdirSynced(staging);
  crashPoint('batch:staging-created');
  for (const item of items) {
    fs.renameSync(item.path, join(staging, item.name));
    crashPoint('batch:item-staged');
  }
  fsyncDir(staging);
  fsyncDir(box.inboxNew);
  crashPoint('batch:staged-synced');
  const dir = join(box.inProcess, batchName);
  fs.renameSync(staging, dir);
  crashPoint('batch:published');
  const dequeuedAt = isoOf(now);
  const claimed: Item[] = [];
  for (const item of items) {
    const path = join(dir, item.name);
    claimed.push(
      await stampIfMissing({ ...item, path }, 'dequeued_at', dequeuedAt, 'caller syncs folder'),
    );
  }
  // The stamps, then the batch's publication: each folder fsync'd once.
  fsyncDir(dir);
  fsyncDir(box.inProcess);
  return { dir, items: claimed };
}

/**
 * Returns the items of any batch claim interrupted before it was published to new/; returns
 * in_process/'s entries as they are then (its one listing, listed again only after a roll-back).
 */
export function rollBackStagedBatches(box: Mailbox): fs.Dirent[] {
  const entries = entriesOf(box.inProcess);
  let rolledBack = false;
  for (const entry of entries) {
    if (!entry.name.startsWith(STAGING_PREFIX) || !entry.isDirectory()) continue;
    const staging = join(box.inProcess, entry.name);
    for (const name of itemNamesIn(staging))
      fs.renameSync(join(staging, name), join(box.inboxNew, name));
    fsyncDir(box.inboxNew);
    fsyncDir(staging);
    fs.rmSync(staging, { recursive: true, force: true });
    fsyncDir(box.inProcess);
    rolledBack = true;
  }
  return rolledBack ? entriesOf(box.inProcess) : entries;
}

/** What in_process/ holds: item file names and batch directory names, each sorted. */
export interface InProcess {
  files: string[];
  batches: string[];
}

/**
 * Lists in_process/ (item files by name, batch directories by name) with one directory read, or
 * from its `entries` when the caller has just read them.
 */
export function inProcessOf(box: Mailbox, entries = entriesOf(box.inProcess)): InProcess {
  return {
    files: sortByBytes(entries.filter((e) => isItemName(e.name)).map((e) => e.name)),
    batches: entries
      .filter((e) => isBatchName(e.name) && e.isDirectory())
      .map((e) => e.name)
      .sort(),
  };
}

/** True when `path` exists (any type, symlinks not followed). */
export function pathTaken(path: string): boolean {
  try {
    fs.lstatSync(path);
    return true;
  } catch (err) {
    if (isCode(err, 'ENOENT')) return false;
    throw err;
  }
}
