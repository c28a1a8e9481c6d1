// `baton review wait` (docs/review.md §6): returns when both verdicts of a bead are
// recorded, watching the bookbag's folder for the write and polling as a fallback
// (notifications can be lost); on timeout it returns what is there. Defaults come from
// HANDOFF_TIMEOUT (120 s) and HANDOFF_POLL_INTERVAL (5 s), read at call time.
import * as fs from 'node:fs';
import { basename, dirname } from 'node:path';
import { reviewPathsOf } from '../../project/layout.js';
import { type Bookbag } from '../bookbag/bookbag.js';
import { bookbagPathOf, readBookbag } from '../bookbag/store.js';

/** How long to wait and how often to look. */
export interface WaitOptions {
  timeoutMs?: number;
  pollMs?: number;
  env?: NodeJS.ProcessEnv;
}

/** The bookbag when both verdicts are in (complete), or as it was at the timeout. */
export interface WaitOutcome {
  bag: Bookbag;
  complete: boolean;
}

function secondsFrom(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const value = Number(env[name]);
  return Number.isFinite(value) && value > 0 ? value * 1000 : fallback;
}

/** Waits for both verdicts of `bead`. */
export async function waitForVerdicts(
  root: string,
  bead: string,
  options: WaitOptions = {},
): Promise<WaitOutcome> {
  const env = options.env ?? process.env;
  const path = bookbagPathOf(reviewPathsOf(root, env), bead);
  const timeoutMs = options.timeoutMs ?? secondsFrom(env, 'HANDOFF_TIMEOUT', 120_000);
  const pollMs = options.pollMs ?? secondsFrom(env, 'HANDOFF_POLL_INTERVAL', 5_000);
  const deadline = Date.now() + timeoutMs;
  let wake = () => undefined as void;
  let watcher: fs.FSWatcher | undefined;
  try {
    watcher = fs.watch(dirname(path), (_event, name) => {
      if (name === basename(path)) wake();
    });
  } catch {
    // polling alone
  }
  try {
    for (;;) {
      const bag = readBookbag(path);
      if (bag.cto_verdict && bag.coo_verdict) return { bag, complete: true };
      const left = deadline - Date.now();
      if (left <= 0) return { bag, complete: false };
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(pollMs, left));
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  } finally {
    watcher?.close();
  }
}
