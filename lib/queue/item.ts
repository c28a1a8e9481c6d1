// Reading and rewriting one queue item. Concurrency contract: readItem is safe at any
// time (a reader sees either the old or the new file, never a torn one, because every
// writer publishes by rename); rewriteItem must be called by the holder of the mailbox
// lock. Symlinks and non-regular files are refused, never followed.
import * as fs from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { crashPoint } from '../fsx/crash.js';
import { fsyncDir, writeFileSynced } from '../fsx/durable.js';
import {
  EnvelopeError,
  parseEnvelope,
  serializeEnvelope,
  type Envelope,
  type Headers,
} from './envelope.js';
import { printable } from '../fsx/printable.js';

/** A readable item: its path, name, headers (with an `id`) and body bytes. */
export interface Item extends Envelope {
  path: string;
  name: string;
  id: string;
}

/** Why an entry that looks like an item cannot be handed out. */
export class UnusableItem extends Error {
  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    super(`${path}: ${reason}`);
  }
}

/** An unusable entry of inbox/new/ that was moved into inbox/bad/ as `badPath` (quarantine.ts). */
export class QuarantinedItem extends UnusableItem {
  constructor(
    path: string,
    reason: string,
    readonly badPath: string,
  ) {
    super(path, reason);
  }
}

/**
 * The stderr line that reports an unusable entry, names and reason made printable:
 * `skipping <path>: <reason>` (left where it is), or `quarantined <path> -> <bad path>:
 * <reason>` (moved aside at its first sight).
 */
export function unusableLine(problem: UnusableItem): string {
  const reason = printable(problem.reason);
  if (problem instanceof QuarantinedItem)
    return `quarantined ${printable(problem.path)} -> ${printable(problem.badPath)}: ${reason}`;
  return `skipping ${printable(problem.path)}: ${reason}`;
}

/**
 * The `size` bytes of an open file (items are never written in place once published); fewer if it
 * shrank.
 */
function readWhole(fd: number, size: number): Buffer {
  const bytes = Buffer.allocUnsafe(size);
  let done = 0;
  while (done < size) {
    const n = fs.readSync(fd, bytes, done, size - done, done);
    if (n === 0) break;
    done += n;
  }
  return done === size ? bytes : bytes.subarray(0, done);
}

/**
 * Reads an item; throws UnusableItem for a symlink, a non-regular file or a header without `id`.
 */
export async function readItem(path: string): Promise<Item> {
  let bytes: Buffer;
  try {
    const fd = fs.openSync(
      path,
      fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK,
    );
    try {
      const stat = fs.fstatSync(fd);
      if (!stat.isFile()) throw new UnusableItem(path, 'not a regular file');
      bytes = readWhole(fd, stat.size);
    } finally {
      fs.closeSync(fd);
    }
  } catch (err) {
    if (err instanceof UnusableItem) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') throw new UnusableItem(path, 'is a symlink');
    throw err;
  }
  let envelope: Envelope;
  try {
    envelope = await parseEnvelope(bytes);
  } catch (err) {
    if (err instanceof EnvelopeError) throw new UnusableItem(path, err.message);
    throw err;
  }
  const id = envelope.headers.id;
  if (!id) throw new UnusableItem(path, 'no id header');
  return { ...envelope, path, name: basename(path), id };
}

/** The temp file an in-place rewrite of `path` goes through (a dot-file readers ignore). */
export function rewriteTempOf(path: string): string {
  return join(dirname(path), `.${basename(path)}.tmp`);
}

/**
 * Who fsyncs the folder of a rewritten item: the rewrite itself, or the caller, which makes
 * more changes in that folder (a move in, a move out) and fsyncs it once before it reports
 * success. Either way the success is durable; only the commits in between are saved.
 */
export type FolderSync = 'rewrite syncs folder' | 'caller syncs folder';

/**
 * Replaces the item's header with `headers` (body bytes kept, legacy files become front
 * matter): temp file written and fsync'd, renamed over the item, directory fsync'd (unless
 * the caller does that, `folderSync`).
 */
export async function rewriteItem(
  item: Item,
  headers: Headers,
  folderSync: FolderSync = 'rewrite syncs folder',
): Promise<Item> {
  const temp = rewriteTempOf(item.path);
  writeFileSynced(temp, await serializeEnvelope(headers, item.body), false);
  crashPoint('rewrite:temp-synced');
  fs.renameSync(temp, item.path);
  crashPoint('rewrite:renamed');
  if (folderSync === 'rewrite syncs folder') fsyncDir(dirname(item.path));
  return { ...item, headers, legacy: false };
}
