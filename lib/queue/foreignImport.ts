// Importing an item from a foreign queue folder (the SwarmForge reference scripts' mailbox
// of a worktree) into one side of a mailbox, exactly once by id.
//
// Concurrency contract: the caller holds the lock of the side it imports into: the inbox
// lock for inbox/new/ (so no claim or completion moves a copy between the search for the
// id and the link, and no second importer decides the same id is absent), the outbox lock
// for outbox/ (so two importers, or an importer and a send, take turns). handoffd moves outbox
// items on to sent/ or failed/ without that lock: the search looks in that order and starts
// again when an item it listed has moved, so it cannot miss one. Nobody else writes the
// foreign folder while an import runs.
//
// Crash contract: the copy is written to a temp file of fixed name and fsync'd, linked into
// the target folder (link never overwrites), the folder fsync'd, and only then is the
// original renamed to `<name>.imported` in its own folder (fsync'd). Readers take only
// `*.handoff` files as items, so a marked original is never read again. A kill at any step
// leaves either the original unmarked (the retry finds the id already in the mailbox and
// only marks it, or copies it anew) or marked with its copy durable: one copy either way.
// The retry also removes a temp file left by the kill.
import * as fs from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { crashPoint } from '../fsx/crash.js';
import { copyPlaces, deliverCopy } from './deliver.js';
import { fsyncDir, renameSynced } from '../fsx/durable.js';
import { isCode } from '../fsx/absent.js';
import { readItem, UnusableItem, type Item } from './item.js';
import { type Mailbox } from './mailbox.js';
import { itemNamesIn } from './names.js';

/** The side of a mailbox an item is imported into: inbox/new/ or outbox/. */
export type ImportSide = 'inbox' | 'outbox';

/**
 * What importForeignItem did: copied now, found the id already there, refused a name taken by
 * another item, or found the original gone.
 */
export type ForeignImport =
  | { kind: 'copied'; path: string }
  | { kind: 'present'; path: string }
  | { kind: 'clash'; path: string }
  | { kind: 'gone' };

/**
 * The suffix that marks an imported original (not `.handoff`, so no reader takes it as an item).
 */
export const IMPORTED_SUFFIX = '.imported';

/** The folder an imported item is linked into. */
export function importFolderOf(box: Mailbox, side: ImportSide): string {
  return side === 'inbox' ? box.inboxNew : box.outbox;
}

/**
 * The fixed temp file of an import (a dot-file in new/, or in outbox/tmp/; both count as temp
 * files).
 */
export function importTempOf(box: Mailbox, side: ImportSide, name: string): string {
  return side === 'inbox'
    ? join(box.inboxNew, `.${name}.import.tmp`)
    : join(box.outboxTmp, `${name}.import.tmp`);
}

/**
 * Every path of the outbox side where an item named `name` could be: outbox/, then sent/ and
 * failed/ (with their `.N` clash names).
 */
function outboxSidePlaces(box: Mailbox, name: string): string[] {
  const stem = name.slice(0, -'.handoff'.length);
  const isVariant = (n: string) =>
    n === name || (n.startsWith(`${stem}.`) && /^\d+\.handoff$/.test(n.slice(stem.length + 1)));
  const outbox = fs.existsSync(join(box.outbox, name)) ? [join(box.outbox, name)] : [];
  return [
    ...outbox,
    ...[box.sent, box.failed].flatMap((dir) =>
      itemNamesIn(dir)
        .filter(isVariant)
        .map((n) => join(dir, n)),
    ),
  ];
}

/**
 * Where the mailbox already holds `item`'s id (`present`), or an item that blocks its name
 * (`clash`: another id, or an unusable file, at a place the copy would collide with), or
 * undefined. On the outbox side only the name in outbox/ itself collides: sent/ and failed/
 * keep both files.
 */
export async function findImportedCopy(
  box: Mailbox,
  side: ImportSide,
  item: Item,
): Promise<ForeignImport | undefined> {
  search: for (;;) {
    let clash: string | undefined;
    for (const place of side === 'inbox'
      ? copyPlaces(box, item.name, true)
      : outboxSidePlaces(box, item.name)) {
      const found = await readItem(place).then(
        (other) => other.id,
        (err: unknown) => err,
      );
      if (isCode(found, 'ENOENT')) continue search; // moved on since the listing: look again
      if (found === item.id) return { kind: 'present', path: place };
      if (typeof found !== 'string' && !(found instanceof UnusableItem)) throw found;
      if (side === 'inbox' || dirname(place) === box.outbox) clash ??= place;
    }
    return clash === undefined ? undefined : { kind: 'clash', path: clash };
  }
}

/** Reads a file's bytes without following a symlink. */
function bytesOf(path: string): Buffer {
  const fd = fs.openSync(path, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
  try {
    return fs.readFileSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

function removeTemp(path: string): void {
  try {
    fs.unlinkSync(path);
  } catch (err) {
    if (!isCode(err, 'ENOENT')) throw err;
  }
}

/**
 * Renames an imported original to `<name>.imported` (or `<name>.<N>.imported` if taken) in its
 * folder; returns the new path.
 */
export function markImported(path: string): string {
  let target = `${path}${IMPORTED_SUFFIX}`;
  for (let n = 1; fs.existsSync(target); n++)
    target = join(dirname(path), `${basename(path)}.${n}${IMPORTED_SUFFIX}`);
  renameSynced(path, target);
  return target;
}

/**
 * Copies the foreign item into the mailbox side, its bytes unchanged under its own name,
 * unless the mailbox already holds its id; then marks the original. A name clash leaves
 * the original as it is. The caller holds the side's lock (see the contract above).
 */
export async function importForeignItem(
  box: Mailbox,
  side: ImportSide,
  item: Item,
): Promise<ForeignImport> {
  if (!fs.existsSync(item.path)) return { kind: 'gone' };
  const temp = importTempOf(box, side, item.name);
  const found = await findImportedCopy(box, side, item);
  if (found) {
    removeTemp(temp);
    if (found.kind === 'present') markImported(item.path);
    return found;
  }
  const folder = importFolderOf(box, side);
  const target = join(folder, item.name);
  if (!deliverCopy(temp, bytesOf(item.path), folder, item.name))
    return { kind: 'clash', path: target };
  crashPoint('import:copied');
  fsyncDir(folder);
  crashPoint('import:copy-synced');
  markImported(item.path);
  crashPoint('import:marked');
  return { kind: 'copied', path: target };
}
