// A lock held by another live process (test/support/lockHolder.ts run with `hold`), for
// tests of what must wait for it and give up: the holder is started, awaited until it
// says HELD, and killed by its own pid when the test is done.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';

/** A running holder of one lock. */
export interface HeldLock {
  pid: number;
  /** Kills the holder (SIGKILL) and waits for its exit. */
  stop: () => Promise<void>;
}

/** Starts a process that takes the lock in `dir` and keeps it until stopped. */
export async function holdLockElsewhere(dir: string): Promise<HeldLock> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join('test', 'support', 'lockHolder.ts'), 'hold', dir],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const exit = once(child, 'exit');
  let said = '';
  const held = new Promise<void>((resolve) =>
    child.stdout.on('data', (b: Buffer) => {
      said += b.toString();
      if (said.includes('HELD')) resolve();
    }),
  );
  await Promise.race([
    held,
    exit.then(([code]) =>
      Promise.reject(new Error(`lock holder exited ${String(code)} before HELD`)),
    ),
  ]);
  return {
    pid: child.pid!,
    stop: async () => {
      child.kill('SIGKILL');
      await exit;
    },
  };
}
