// Completing: moving the item or batch in process into inbox/completed/.
//
// Concurrency contract: run under the mailbox's inbox lock.
//
// Crash contract: `completed_at` is stamped in place first (each stamp an atomic
// rewrite), then the item or the whole batch directory moves with one rename. A crash
// before the rename leaves the work in process, partly stamped; the retry reuses the
// `completed_at` already written, so a batch carries one completion time.
//
// findCompleted answers a repeated completion (`done_with_current <id>` of work already
// finished): it only reads.
import { lstatSync } from 'node:fs';
import { basename, join } from 'node:path';
import { crashPoint } from '../fsx/crash.js';
import { fsyncDir, mkdirSynced, renameSynced } from '../fsx/durable.js';
import { type Mailbox } from './mailbox.js';
import { entriesOf, isBatchName, itemNamesIn, nameHoldsId } from './names.js';
import { isoOf } from '../fsx/timestamps.js';
import { stampIfMissing } from './claim.js';
import { readItem, UnusableItem, type Item } from './item.js';

/**
 * Stamps `completed_at` on every item (one value, reusing one already written). Their folder is
 * not fsync'd here: the caller fsyncs it, and what the move publishes, before it reports.
 */
async function stampCompleted(items: Item[], now: Date): Promise<Item[]> {
  const completedAt = items.map((i) => i.headers.completed_at).find(Boolean) ?? isoOf(now);
  const stamped: Item[] = [];
  for (const item of items)
    stamped.push(await stampIfMissing(item, 'completed_at', completedAt, 'caller syncs folder'));
  crashPoint('finish:stamped');
  return stamped;
}

/**
 * Completes the single item in process; returns its path in completed/. The stamp needs no
 * fsync of in_process/ of its own: the moved entry in completed/ names the stamped file, and
 * both folders are fsync'd after the move.
 */
export async function finishItem(box: Mailbox, item: Item, now: Date): Promise<string> {
  await stampCompleted([item], now);
  mkdirSynced(box.completed);
  const target = join(box.completed, item.name);
  renameSynced(item.path, target);
  crashPoint('finish:moved');
  return target;
}

/** Completes a batch in process; returns the batch's directory in completed/. */
export async function finishBatch(
  box: Mailbox,
  batchDir: string,
  batchName: string,
  items: Item[],
  now: Date,
): Promise<string> {
  await stampCompleted(items, now);
  // The stamped entries, once for the batch: moving its folder does not make them durable.
  fsyncDir(batchDir);
  mkdirSynced(box.completed);
  const target = join(box.completed, batchName);
  renameSynced(batchDir, target);
  crashPoint('finish:moved');
  return target;
}

/** Paths of every completed item of a mailbox, in completed/ and its batch directories. */
export function completedItemPaths(box: Mailbox): string[] {
  const paths = itemNamesIn(box.completed).map((n) => join(box.completed, n));
  for (const entry of entriesOf(box.completed)) {
    if (entry.isDirectory() && isBatchName(entry.name)) {
      paths.push(
        ...itemNamesIn(join(box.completed, entry.name)).map((n) =>
          join(box.completed, entry.name, n),
        ),
      );
    }
  }
  return paths;
}

/**
 * Where the completed work that `id` names is: a batch directory in completed/ (by its
 * name), or a completed item (in completed/ or a completed batch) by its file name or its
 * id. An id is looked for in the names that hold it the way Baton names files
 * (`<priority>_<id>_to_...`) and confirmed by the item's header; undefined when none matches.
 */
export async function findCompleted(box: Mailbox, id: string): Promise<string | undefined> {
  if (
    isBatchName(id) &&
    !id.includes('/') &&
    lstatSync(join(box.completed, id), { throwIfNoEntry: false })?.isDirectory()
  )
    return join(box.completed, id);
  for (const path of completedItemPaths(box)) {
    const name = basename(path);
    if (name === id) return path;
    if (!nameHoldsId(name, id)) continue;
    try {
      if ((await readItem(path)).id === id) return path;
    } catch (err) {
      if (!(err instanceof UnusableItem)) throw err;
    }
  }
  return undefined;
}
