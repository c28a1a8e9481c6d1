// Noticing a file's arrival in a directory as early as possible: fs.watch on the
// directory, with an existsSync poll every few milliseconds as a fallback in case a
// notification is late or lost. Counts which of the two saw each arrival.
import * as fs from 'node:fs';
import { join } from 'node:path';

const POLL_MS = 2;

/** Watches one directory for expected names. */
export class Arrivals {
  byWatch = 0;
  byPoll = 0;
  private readonly watcher: fs.FSWatcher;
  private pending?: { name: string; path: string; seen: (how: 'watch' | 'poll') => void };

  constructor(readonly dir: string) {
    this.watcher = fs.watch(dir, (_event, name) => {
      if (this.pending && name === this.pending.name && fs.existsSync(this.pending.path))
        this.pending.seen('watch');
    });
  }

  /** Resolves when `name` exists in the directory (arm it before the action that causes it); rejects after `timeoutMs`. */
  expect(name: string, timeoutMs = 10_000): Promise<void> {
    if (this.pending) throw new Error(`already waiting for ${this.pending.name}`);
    const path = join(this.dir, name);
    return new Promise<void>((resolve, reject) => {
      const poll = setInterval(() => {
        if (fs.existsSync(path)) seen('poll');
      }, POLL_MS);
      const timer = setTimeout(() => {
        clearInterval(poll);
        this.pending = undefined;
        reject(new Error(`${name} did not arrive in ${this.dir} within ${timeoutMs} ms`));
      }, timeoutMs);
      const seen = (how: 'watch' | 'poll') => {
        clearInterval(poll);
        clearTimeout(timer);
        this.pending = undefined;
        if (how === 'watch') this.byWatch += 1;
        else this.byPoll += 1;
        resolve();
      };
      this.pending = { name, path, seen };
    });
  }

  close(): void {
    this.watcher.close();
  }
}
