// Starting and stopping the raw watcher child (bench/support/rawWatcher.ts) and following what it
// reports, so a timing can wait until it has finished a delivery.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

/** A running raw watcher. */
export interface RawWatcher {
  child: ChildProcess;
  /** Resolves once the watcher reports `name` delivered (its fsyncs done). */
  delivered: (name: string) => Promise<void>;
  stop: () => Promise<void>;
}

/** Starts the raw watcher on `outbox` and waits until it is watching. */
export async function startRawWatcher(
  outbox: string,
  sent: string,
  tmp: string,
  newDirs: string[],
): Promise<RawWatcher> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(import.meta.dirname, 'rawWatcher.ts'), outbox, sent, tmp, ...newDirs],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const done = new Set<string>();
  const waiters = new Map<string, () => void>();
  let stderr = '';
  let ready: () => void = () => undefined;
  const started = new Promise<void>((resolve) => (ready = resolve));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  let buffered = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      if (line === 'ready') ready();
      else if (line.startsWith('delivered ')) {
        const name = line.slice('delivered '.length);
        done.add(name);
        waiters.get(name)?.();
      }
    }
  });
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  await Promise.race([
    started,
    exited.then(() => Promise.reject(new Error(`raw watcher exited: ${stderr}`))),
  ]);
  return {
    child,
    delivered: (name) =>
      done.has(name)
        ? Promise.resolve()
        : Promise.race([
            new Promise<void>((resolve) => waiters.set(name, resolve)),
            exited.then(() => Promise.reject(new Error(`raw watcher exited: ${stderr}`))),
          ]),
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
