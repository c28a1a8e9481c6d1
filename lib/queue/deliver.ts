// Delivery primitives (qmail style): a copy is written to a temp file, fsync'd, then
// linked into new/ (link refuses an existing name, so a copy is never overwritten); the
// caller fsyncs new/ before the original leaves the outbox (once for a group of copies).
// Originals leave the outbox by one rename into sent/ or failed/, keeping both files on a
// name clash.
//
// Concurrency contract: one deliverer per project (handoffd holds its lock); receivers
// only ever remove files from new/, so a name seen taken stays decided for this call.
import * as fs from 'node:fs';
import { dirname, join } from 'node:path';
import { crashPoint } from '../fsx/crash.js';
import { fsyncDir, mkdirSynced, writeFileSynced } from '../fsx/durable.js';
import { isCode } from '../fsx/absent.js';
import { fileModeIn, keepSharedMode } from '../fsx/sharedFolders.js';
import { type Mailbox } from './mailbox.js';
import { entriesOf, isBatchName, itemNamesIn, tsidOf } from './names.js';

/**
 * Writes `bytes` through `tempPath` into `newDir/name`; false if that name already exists
 * there. The link is not yet durable: the caller fsyncs `newDir` before it moves the original.
 */
export function deliverCopy(
  tempPath: string,
  bytes: Uint8Array,
  newDir: string,
  name: string,
): boolean {
  // The temp is in the daemon's own folder: the copy takes the mode of the inbox it joins
  // (group-readable in a shared project, for an agent of another user).
  const mode = fileModeIn(newDir);
  writeFileSynced(tempPath, bytes, false, mode);
  keepSharedMode(tempPath, mode);
  crashPoint('deliver:copy-synced');
  try {
    fs.linkSync(tempPath, join(newDir, name));
  } catch (err) {
    if (!isCode(err, 'EEXIST')) throw err;
    fs.unlinkSync(tempPath);
    return false;
  }
  crashPoint('deliver:linked');
  fs.unlinkSync(tempPath);
  return true;
}

/**
 * Every path in a recipient's inbox where an item named `name` could be: new/,
 * in_process/ (and its batch and staging directories), completed/, and, when `deep`,
 * completed/'s batch directories (one stat each: kept off the hot path).
 */
export function copyPlaces(box: Mailbox, name: string, deep: boolean): string[] {
  const places = [join(box.inboxNew, name), join(box.inProcess, name), join(box.completed, name)];
  for (const entry of entriesOf(box.inProcess)) {
    if (entry.isDirectory()) places.push(join(box.inProcess, entry.name, name));
  }
  if (deep) {
    for (const entry of entriesOf(box.completed)) {
      if (entry.isDirectory() && isBatchName(entry.name))
        places.push(join(box.completed, entry.name, name));
    }
  }
  return places.filter((p) => fs.lstatSync(p, { throwIfNoEntry: false }) !== undefined);
}

/**
 * How a search lists folders: item names and entry names (a caller may cache them; default: read
 * the folder).
 */
export interface FolderLister {
  itemNames: (dir: string) => string[];
  entryNames: (dir: string) => string[];
}

const READ_FOLDERS: FolderLister = {
  itemNames: itemNamesIn,
  entryNames: (dir) => entriesOf(dir).map((e) => e.name),
};

/**
 * A day: completed batches claimed this long before a handoff was made are not searched for it on
 * the hot path (clock steps allowed for).
 */
const BATCH_MARGIN_MS = 86_400_000;

/**
 * Every path in a recipient's inbox whose item name carries `id` (Baton's names are
 * `<priority>_<id>_to_...`): new/, in_process/ and its batch and staging directories,
 * completed/ and its batch directories. The caller confirms each by its id header. This
 * finds a copy held under another name than the one delivered now (an outbox file copied
 * under a new name, a handoff published again after the server forgot its message ids),
 * which copyPlaces, by name, cannot. Not `deep`: a completed batch claimed more than a day
 * before the id's own time cannot hold it and is not listed (the search stays off a
 * growing completed/ on the hot path).
 */
export function idPlaces(
  box: Mailbox,
  id: string,
  deep: boolean,
  lister: FolderLister = READ_FOLDERS,
): string[] {
  const dirs = [box.inboxNew, box.inProcess];
  for (const entry of entriesOf(box.inProcess))
    if (entry.isDirectory()) dirs.push(join(box.inProcess, entry.name));
  dirs.push(box.completed);
  const since = deep ? undefined : batchNameFloorOf(id);
  for (const name of lister.entryNames(box.completed)) {
    if (isBatchName(name) && (since === undefined || name >= since))
      dirs.push(join(box.completed, name));
  }
  const places: string[] = [];
  for (const dir of dirs) {
    const names =
      dir === box.inboxNew || dir === box.completed ? lister.itemNames(dir) : itemNamesIn(dir);
    for (const name of names) if (name.includes(id)) places.push(join(dir, name));
  }
  return places;
}

/**
 * `batch_<tsid>` a day before the time in `id` (`<tsid>_<seq>_from_<sender>`), or undefined when
 * the id carries no time.
 */
function batchNameFloorOf(id: string): string | undefined {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z_/.exec(id);
  if (!m) return undefined;
  const at = Date.UTC(
    Number(m[1]),
    Number(m[2]) - 1,
    Number(m[3]),
    Number(m[4]),
    Number(m[5]),
    Number(m[6]),
  );
  if (Number.isNaN(at)) return undefined;
  return `batch_${tsidOf(new Date(at - BATCH_MARGIN_MS))}`;
}

/**
 * `dir/name`, or `dir/<stem>.<N>.handoff` with the smallest N that is free. Any entry takes
 * a name, a dangling symlink too (a rename onto it would replace it).
 */
export function freeNameIn(dir: string, name: string): string {
  const stem = name.endsWith('.handoff') ? name.slice(0, -'.handoff'.length) : name;
  const suffix = name.endsWith('.handoff') ? '.handoff' : '';
  const taken = (path: string) => fs.lstatSync(path, { throwIfNoEntry: false }) !== undefined;
  let target = join(dir, name);
  for (let n = 1; taken(target); n++) target = join(dir, `${stem}.${n}${suffix}`);
  return target;
}

/**
 * Renames a file to `target` (from freeNameIn), creating its folder if missing; the caller fsyncs
 * both folders.
 */
export function renameInto(from: string, target: string): void {
  mkdirSynced(dirname(target));
  fs.renameSync(from, target);
  crashPoint('deliver:original-moved');
}

/** Moves a file to `target` (from freeNameIn), then fsyncs both directories. */
export function moveOriginal(from: string, target: string): void {
  renameInto(from, target);
  fsyncDir(dirname(target));
  fsyncDir(dirname(from));
}
