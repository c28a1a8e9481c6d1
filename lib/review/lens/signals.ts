// Ready signals (docs/review.md §1): `<signals>/<bead>.ready` exists while a bead waits for
// its verdicts, written after the bookbag at submit and removed when the second verdict
// lands. A signal is a hint for people and scripts (`ls`); the bookbag is the authority.
import { join } from 'node:path';
import { type ReviewPaths } from '../../project/layout.js';
import { crashPoint } from '../../fsx/crash.js';
import { mkdirSynced, unlinkSynced, publishWhole } from '../../fsx/durable.js';

/** `<signals>/<bead>.ready`. */
export function signalPathOf(paths: ReviewPaths, bead: string): string {
  return join(paths.signals, `${bead}.ready`);
}

/** Writes the bead's ready signal durably. */
export function writeSignal(paths: ReviewPaths, bead: string, now: Date): void {
  mkdirSynced(paths.signals);
  const path = signalPathOf(paths, bead);
  publishWhole(path, `${bead} ${now.toISOString()}\n`);
  crashPoint('review:signal-written');
}

/** Removes the bead's ready signal (nothing when it is gone). */
export function removeSignal(paths: ReviewPaths, bead: string): void {
  unlinkSynced(signalPathOf(paths, bead));
}
