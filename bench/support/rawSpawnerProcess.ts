// Starting and stopping a raw spawner child (bench/support/rawSpawner.ts), and waiting until
// the reviewer it spawned for a file has exited, so the next timing starts from idle.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

/** A running raw spawner. */
export interface RawSpawner {
  /** Resolves once the reviewer spawned for file `name` has exited. */
  exited: (name: string) => Promise<void>;
  stop: () => Promise<void>;
}

/** Starts a raw spawner watching `dir` that runs `argv` per file; resolves once it watches. */
export async function startRawSpawner(dir: string, argv: string[]): Promise<RawSpawner> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(import.meta.dirname, 'rawSpawner.ts'), dir, ...argv],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const gone = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const finished = new Set<string>();
  const waiting = new Map<string, () => void>();
  let watching: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (watching = resolve));
  createInterface({ input: child.stdout! }).on('line', (line) => {
    if (line === 'ready') return watching();
    const name = line.replace(/^exited /, '');
    finished.add(name);
    waiting.get(name)?.();
  });
  const died = () => gone.then(() => Promise.reject(new Error('the raw spawner exited')));
  await Promise.race([ready, died()]);
  return {
    exited: (name) =>
      finished.has(name)
        ? Promise.resolve()
        : Promise.race([new Promise<void>((resolve) => waiting.set(name, resolve)), died()]),
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await gone;
    },
  };
}
