// Retention (runtime.md §12.6, `baton gc`): what has been finished for longer than a bound is
// removed, each item judged by its own recorded time. This module holds what every stage's
// collector shares (the Removable item, the trash that makes a removal atomic) and the
// queue's collector: a completed handoff by its `completed_at` (a completed batch by its
// newest), a sent original by its file time, a failed original with its `.error` by the
// original's file time. It never looks into `new/`, `in_process/` or an outbox, and it keeps
// a completed copy whose original is still in an outbox (handoffd may not have finished
// that handoff, and would see the copy gone).
//
// Crash contract: an item leaves its place with one rename into `.swarmforge/gc-trash/`
// (then the trash entry is deleted), so a killed gc leaves it whole where it was or gone
// from there; a failed original goes before its `.error`, and an `.error` left without its
// original is an item of its own. The next gc empties the trash first.
import * as fs from 'node:fs';
import { basename, join } from 'node:path';
import { crashPoint } from '../fsx/crash.js';
import { fsyncDir, mkdirSynced, renameSynced } from '../fsx/durable.js';
import { readRoles } from '../handoff/roles.js';
import { gcTrashDirOf, mailboxOf } from '../project/layout.js';
import { entriesOf, isBatchName, itemNamesIn, readItem, type Mailbox } from '../queue/index.js';
import { isoOf } from '../fsx/timestamps.js';

/** What gc may remove, in the order it prints them. */
export const REMOVABLE_KINDS = [
  'completed',
  'sent',
  'failed',
  'run',
  'archive',
  'leaf',
  'library-log',
] as const;

/** One kind of removable item. */
export type RemovableKind = (typeof REMOVABLE_KINDS)[number];

/** One item gc removes (or, with --dry-run, would). */
export interface Removable {
  kind: RemovableKind;
  /** The file or folder, or for a library-log entry the log file. */
  path: string;
  /** The item's recorded time (ISO 8601), the one judged against the bound. */
  at: string;
  /** Removes it atomically (whole or not at all). */
  remove: () => void | Promise<void>;
}

/** Deletes what a killed gc left in the trash; returns the names it deleted. */
export function emptyTrash(root: string): string[] {
  const trash = gcTrashDirOf(root);
  const names = fs.existsSync(trash) ? fs.readdirSync(trash) : [];
  for (const name of names) fs.rmSync(join(trash, name), { recursive: true, force: true });
  return names;
}

let trashed = 0;

/**
 * Removes the file or folder at `path` atomically: one rename into the trash (its folder
 * fsync'd), then the trash entry deleted. False when it was gone already.
 */
export function removeWhole(root: string, path: string): boolean {
  if (!fs.existsSync(path)) return false;
  const trash = gcTrashDirOf(root);
  mkdirSynced(trash);
  trashed += 1;
  const entry = join(trash, `${process.pid}-${trashed}-${basename(path)}`);
  renameSynced(path, entry);
  crashPoint('gc:in-trash');
  fs.rmSync(entry, { recursive: true, force: true });
  fsyncDir(trash);
  crashPoint('gc:removed');
  return true;
}

/** The file time of `path` as ISO 8601, or undefined when it is gone. */
function fileTimeOf(path: string): string | undefined {
  try {
    return isoOf(fs.lstatSync(path).mtime);
  } catch {
    return undefined;
  }
}

/**
 * The newest `completed_at` of the completed item or batch at `path` and the ids it holds, each
 * file read once; undefined when one of them cannot be read or has no valid `completed_at`.
 */
async function completionOf(
  path: string,
  isBatch: boolean,
): Promise<{ at: string; ids: string[] } | undefined> {
  const files = isBatch ? itemNamesIn(path).map((n) => join(path, n)) : [path];
  let at: string | undefined;
  const ids: string[] = [];
  for (const file of files) {
    const headers = (await readItem(file).catch(() => undefined))?.headers;
    const stamp = headers?.completed_at;
    if (stamp === undefined || Number.isNaN(Date.parse(stamp))) return undefined;
    if (at === undefined || Date.parse(stamp) > Date.parse(at)) at = stamp;
    if (headers!.id) ids.push(headers!.id);
  }
  return at === undefined ? undefined : { at, ids };
}

/** The ids of every handoff still in an outbox: their copies are kept. */
async function idsInOutboxes(boxes: Mailbox[]): Promise<Set<string>> {
  const ids = new Set<string>();
  for (const box of boxes)
    for (const name of itemNamesIn(box.outbox)) {
      const id = (await readItem(join(box.outbox, name)).catch(() => undefined))?.headers.id;
      if (id) ids.add(id);
    }
  return ids;
}

async function completedOf(
  root: string,
  box: Mailbox,
  before: number,
  pending: Set<string>,
): Promise<Removable[]> {
  const out: Removable[] = [];
  const items = new Set(itemNamesIn(box.completed));
  for (const entry of entriesOf(box.completed)) {
    const path = join(box.completed, entry.name);
    const isBatch = entry.isDirectory() && isBatchName(entry.name);
    if (!isBatch && !items.has(entry.name)) continue;
    const done = await completionOf(path, isBatch);
    if (done === undefined || Date.parse(done.at) >= before) continue;
    if (done.ids.some((id) => pending.has(id))) continue;
    const at = done.at;
    out.push({ kind: 'completed', path, at, remove: () => void removeWhole(root, path) });
  }
  return out;
}

/** Files of `dir` older than `before` by their file time, as `kind` items. */
function oldFilesIn(
  root: string,
  dir: string,
  kind: RemovableKind,
  before: number,
  keep: (name: string) => boolean = () => false,
): Removable[] {
  const out: Removable[] = [];
  for (const entry of entriesOf(dir)) {
    if (!entry.isFile() || keep(entry.name)) continue;
    const path = join(dir, entry.name);
    const at = fileTimeOf(path);
    if (at === undefined || Date.parse(at) >= before) continue;
    const remove =
      kind === 'failed' && !entry.name.endsWith('.error')
        ? () => {
            removeWhole(root, path);
            removeWhole(root, `${path}.error`);
          }
        : () => void removeWhole(root, path);
    out.push({ kind, path, at, remove });
  }
  return out;
}

/** The queue's removable items: old completed, sent and failed mail of every role. */
export async function mailToRemove(root: string, before: Date): Promise<Removable[]> {
  const boxes = [...readRoles(root).roles.keys()].map((role) => mailboxOf(root, role));
  const pending = await idsInOutboxes(boxes);
  const bound = before.getTime();
  const out: Removable[] = [];
  for (const box of boxes) {
    out.push(...(await completedOf(root, box, bound, pending)));
    out.push(...oldFilesIn(root, box.sent, 'sent', bound));
    // An `.error` goes with its original; one whose original is gone is an item of its own.
    const failedNames = new Set(fs.existsSync(box.failed) ? fs.readdirSync(box.failed) : []);
    const withOriginal = (name: string) =>
      name.endsWith('.error') && failedNames.has(name.slice(0, -'.error'.length));
    out.push(...oldFilesIn(root, box.failed, 'failed', bound, withOriginal));
  }
  return out;
}
