// Following the durable steps a test's own process takes: every fsync and rename, in order,
// with the real calls still made.
import fsDefault, * as fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';

/**
 * Follows every fsync and rename of this process (the real calls still run), in order:
 * `fsync <path>` and `rename <from> -> <to>`; an fsync on libuv's threads (fs.fsync) counts when
 * it is done. restore() puts the real functions back.
 */
export function followDurability(): { order: string[]; restore: () => void } {
  const order: string[] = [];
  const realFsync = fsDefault.fsyncSync;
  const realFsyncAsync = fsDefault.fsync;
  const realRename = fsDefault.renameSync;
  fsDefault.fsyncSync = (fd: number) => {
    realFsync(fd);
    order.push(`fsync ${fs.readlinkSync(`/proc/self/fd/${fd}`)}`);
  };
  const followedFsync = (fd: number, done: fs.NoParamCallback) => {
    const path = fs.readlinkSync(`/proc/self/fd/${fd}`);
    realFsyncAsync(fd, (err) => {
      if (!err) order.push(`fsync ${path}`);
      done(err);
    });
  };
  fsDefault.fsync = followedFsync as typeof fsDefault.fsync;
  fsDefault.renameSync = (from: fs.PathLike, to: fs.PathLike) => {
    realRename(from, to);
    order.push(`rename ${String(from)} -> ${String(to)}`);
  };
  syncBuiltinESMExports();
  return {
    order,
    restore: () => {
      fsDefault.fsyncSync = realFsync;
      fsDefault.fsync = realFsyncAsync;
      fsDefault.renameSync = realRename;
      syncBuiltinESMExports();
    },
  };
}

/** The fsyncs and renames that `fn` makes (followDurability), with `dir/` taken off each path. */
export async function durableStepsOf(dir: string, fn: () => unknown): Promise<string[]> {
  const followed = followDurability();
  try {
    await fn();
  } finally {
    followed.restore();
  }
  return followed.order.map((step) => step.split(`${dir}/`).join(''));
}
