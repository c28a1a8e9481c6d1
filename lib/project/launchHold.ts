// The hold `baton up` puts on a role's wake-ups while its agent starts (docs/runtime.md
// §12.1): `.swarmforge/launching/<role>.json`, `{until}`, written before the launch line is
// typed and removed once the agent is ready or the wait ends. handoffd wakes no held role;
// a hold whose `until` has passed holds nothing, so an up killed mid-wait can leave no role
// unwakeable for longer than its ready timeout. A missing, unreadable or malformed file
// holds nothing either: the hold only ever delays a wake-up, it never loses one.
import * as fs from 'node:fs';
import { join } from 'node:path';
import { replaceJson } from '../fsx/records.js';
import { mkdirSynced } from '../fsx/durable.js';
import { launchHoldsDirOf } from './layout.js';
import { isoOf } from '../fsx/timestamps.js';

/** `ROOT/.swarmforge/launching/<role>.json`. */
export function launchHoldPathOf(root: string, role: string): string {
  return join(launchHoldsDirOf(root), `${role}.json`);
}

/** Holds the role's wake-ups until `until` (epoch ms) or until released. */
export function holdWakeups(root: string, role: string, until: number): void {
  mkdirSynced(launchHoldsDirOf(root));
  replaceJson(launchHoldPathOf(root, role), { until: isoOf(new Date(until)) });
}

/** Lets the role be woken again (nothing to do when it is not held). */
export function releaseWakeups(root: string, role: string): void {
  fs.rmSync(launchHoldPathOf(root, role), { force: true });
}

/** Lets every held role be woken again (`baton down`, and up taking back what it started). */
export function releaseAllWakeups(root: string): void {
  fs.rmSync(launchHoldsDirOf(root), { recursive: true, force: true });
}

/** True while a hold on the role's wake-ups lasts at `now`. */
export function wakeupsHeld(root: string, role: string, now: number): boolean {
  try {
    const data = JSON.parse(fs.readFileSync(launchHoldPathOf(root, role), 'utf8')) as unknown;
    const until = (data as { until?: unknown } | null)?.until;
    return typeof until === 'string' && Date.parse(until) > now;
  } catch {
    return false;
  }
}
