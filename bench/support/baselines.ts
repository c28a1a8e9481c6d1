// The raw baselines: the fewest file-system steps that still do the job durably, written
// with plain node:fs and no library code, so each ratio says what the library adds.
import * as fs from 'node:fs';
import { join } from 'node:path';

const { O_RDONLY, O_DIRECTORY, O_CREAT, O_EXCL, O_WRONLY } = fs.constants;

/** fsyncs a directory (its entries become durable). */
export function rawFsyncDir(dir: string): void {
  const fd = fs.openSync(dir, O_RDONLY | O_DIRECTORY);
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** The handoff names in `dir`, sorted: readdir, filter, sort. */
export function rawListing(dir: string): string[] {
  return fs
    .readdirSync(dir)
    .filter((n) => n.endsWith('.handoff'))
    .sort();
}

/** The minimal durable claim: readdir, sort, rename the first item, fsync both directories; its name. */
export function rawClaim(newDir: string, inProcessDir: string): string {
  const first = rawListing(newDir)[0];
  if (first === undefined) throw new Error(`raw claim: nothing waiting in ${newDir}`);
  fs.renameSync(join(newDir, first), join(inProcessDir, first));
  rawFsyncDir(inProcessDir);
  rawFsyncDir(newDir);
  return first;
}

/** Creates `path` (refusing an existing one) with `bytes`, and fsyncs it. */
function rawWriteSynced(path: string, bytes: Buffer): void {
  const fd = fs.openSync(path, O_CREAT | O_EXCL | O_WRONLY, 0o600);
  try {
    fs.writeFileSync(fd, bytes);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** The minimal durable publish: write the bytes to tmp/, fsync, rename into dir, fsync dir. */
export function rawPublish(tmpDir: string, dir: string, name: string, bytes: Buffer): string {
  const temp = join(tmpDir, `${name}.tmp`);
  rawWriteSynced(temp, bytes);
  const target = join(dir, name);
  fs.renameSync(temp, target);
  rawFsyncDir(dir);
  return target;
}

/**
 * The minimal durable delivery of `outbox/<name>` (handoffd's file steps without its
 * checks, header rewrite, log or wake-ups): for each recipient, copy the bytes through a
 * temp file (fsync), link into its new/ and fsync new/; then rename the original into
 * `sent` and fsync both directories. Routing is given, not read from the header.
 */
export function rawDeliver(
  outbox: string,
  name: string,
  sent: string,
  newDirs: string[],
  tmpDir: string,
): void {
  const original = join(outbox, name);
  const bytes = fs.readFileSync(original);
  for (const [i, newDir] of newDirs.entries()) {
    const temp = join(tmpDir, `${i}.${name}`);
    rawWriteSynced(temp, bytes);
    fs.linkSync(temp, join(newDir, name));
    rawFsyncDir(newDir);
    fs.unlinkSync(temp);
  }
  fs.renameSync(original, join(sent, name));
  rawFsyncDir(sent);
  rawFsyncDir(outbox);
}

/** Delivers every `*.handoff` in `outbox`, lowest name first, with rawDeliver; the names delivered. */
export function rawDeliverAll(
  outbox: string,
  sent: string,
  newDirs: string[],
  tmpDir: string,
): string[] {
  const names = rawListing(outbox);
  for (const name of names) rawDeliver(outbox, name, sent, newDirs, tmpDir);
  return names;
}
