// How an idle teacher waits for mail (docs/review.md §7): a watch on its inbox's new/ folder
// (handoffd links each delivered copy there), a poll as the fallback for notifications the
// file system loses, and the wake-up lines handoffd types into the teacher's pane (read from
// stdin when it is a terminal, so they never reach the pane's shell once the teacher exits).
// Any of them only says "look again": the teacher then asks the queue (ready_for_next), which
// stays the truth.
//
// No lost wake-up: `take()` is called before each look at the queue, and anything that
// happens after it makes the next `wait()` return at once.
import * as fs from 'node:fs';
import { createInterface, type Interface } from 'node:readline';

/** Why a wait ended. */
export type WaitEnd = 'mail' | 'poll' | 'stopped';

/** A watch on one inbox folder (and optionally a terminal's lines). */
export class InboxWatch {
  private pending = false;
  private wakeUp: ((end: WaitEnd) => void) | undefined;
  private watcher: fs.FSWatcher | undefined;
  private lines: Interface | undefined;

  /**
   * Starts watching `dir` (a watch that cannot start or fails leaves the poll); `terminal` lines
   * are wake-ups too.
   */
  constructor(
    dir: string,
    private readonly terminal?: NodeJS.ReadStream,
  ) {
    try {
      this.watcher = fs.watch(dir, { persistent: true }, () => this.poke('mail'));
      this.watcher.on('error', () => this.stopWatching());
    } catch {
      this.watcher = undefined;
    }
    if (terminal) {
      this.lines = createInterface({ input: terminal });
      this.lines.on('line', () => this.poke('mail'));
    }
  }

  private stopWatching(): void {
    this.watcher?.close();
    this.watcher = undefined;
  }

  private poke(end: WaitEnd): void {
    this.pending = true;
    this.wakeUp?.(end);
  }

  /** Forgets what happened so far: call it right before looking at the queue. */
  take(): void {
    this.pending = false;
  }

  /**
   * Resolves at the first sign of mail since the last take(), after `pollMs` at the latest, or when
   * `signal` aborts.
   */
  wait(pollMs: number, signal: AbortSignal): Promise<WaitEnd> {
    if (signal.aborted) return Promise.resolve('stopped');
    if (this.pending) return Promise.resolve('mail');
    return new Promise((resolve) => {
      const done = (end: WaitEnd) => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        this.wakeUp = undefined;
        resolve(end);
      };
      const onAbort = () => done('stopped');
      const timer = setTimeout(() => done('poll'), pollMs);
      signal.addEventListener('abort', onAbort);
      this.wakeUp = done;
    });
  }

  /** Stops watching (and reading the terminal), so nothing keeps the process alive. */
  close(): void {
    this.stopWatching();
    this.lines?.close();
    this.terminal?.pause();
  }
}
