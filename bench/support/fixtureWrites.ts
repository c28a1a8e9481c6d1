// Untimed fixture writes: what a figure sets up between timed runs must be on disk before
// the next timing starts, so no timed action pays to flush the set-up's writes.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import { dirname } from 'node:path';
import { rawFsyncDir } from './baselines.js';

/** Writes `bytes` to `path` (replacing it) and fsyncs the file and its directory. */
export function placeSynced(path: string, bytes: Buffer | string): void {
  const fd = fs.openSync(path, 'w', 0o600);
  try {
    fs.writeFileSync(fd, bytes);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  rawFsyncDir(dirname(path));
}

/** Flushes everything written while building fixtures (`sync`), so timings start clean. */
export function settle(): void {
  execFileSync('sync');
}
