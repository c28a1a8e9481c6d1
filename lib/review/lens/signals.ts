// Ready signals (docs/review.md §1): `<signals>/<bead>.ready` exists while a bead waits for
// its verdicts, written after the bookbag at submit and removed when the second verdict
// lands. A signal is a hint for people and scripts (`ls`); the bookbag is the authority.
import { join } from 'node:path';
import { type ReviewPaths } from '../../project/layout.js';
import {
  mkdirSynced,
  stagePublishWhole,
  type StagedWrite,
  unlinkSynced,
  writeStaged,
} from '../../fsx/durable.js';
import { isoOf } from '../../fsx/timestamps.js';

/** `<signals>/<bead>.ready`. */
export function signalPathOf(paths: ReviewPaths, bead: string): string {
  return join(paths.signals, `${bead}.ready`);
}

/** Writes the bead's ready signal durably. */
export function writeSignal(paths: ReviewPaths, bead: string, now: Date): void {
  writeStaged(stageSignal(paths, bead, now));
}

/** writeSignal in two halves (durable.ts StagedWrite), to be written with other files. */
export function stageSignal(paths: ReviewPaths, bead: string, now: Date): StagedWrite {
  mkdirSynced(paths.signals);
  return stagePublishWhole(signalPathOf(paths, bead), `${bead} ${isoOf(now)}\n`, {
    published: 'review:signal-written',
  });
}

/** Removes the bead's ready signal (nothing when it is gone). */
export function removeSignal(paths: ReviewPaths, bead: string): void {
  unlinkSynced(signalPathOf(paths, bead));
}
