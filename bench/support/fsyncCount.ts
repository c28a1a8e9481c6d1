// Counting fsync calls made by an action (library code included): node:fs is patched
// for the duration and the ESM named exports resynced, so `fs.fsyncSync` seen through
// `import * as fs` in lib/ hits the counter too. Never used inside a timed region.
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';

/** How many times `fn` called fs.fsyncSync. */
export async function countFsyncs(fn: () => Promise<unknown> | unknown): Promise<number> {
  const original = fs.fsyncSync;
  let count = 0;
  fs.fsyncSync = (fd: number) => {
    count += 1;
    original(fd);
  };
  syncBuiltinESMExports();
  try {
    await fn();
  } finally {
    fs.fsyncSync = original;
    syncBuiltinESMExports();
  }
  return count;
}
