// Which roles a pass wakes (protocol §8.1): it looks at the inboxes of the roles that just
// received a copy or have a deferred wake-up due, and every few seconds at all of them
// (re-wakes need minutes, not every pass); WakePolicy decides for each. A wake-up runs
// beside the passes, is logged (`woke` or `wake-failed`), and never fails or delays a delivery.
//
// Only usable items count as mail waiting. The first time a name shows up in new/, its
// item is read once (the verdict is kept while the name stays there); an unusable entry is
// never counted, so it never causes a wake-up or a re-wake. The daemon quarantines it at
// that first sight (lib/queue/quarantine.ts) under the role's inbox lock, which it tries
// once and never waits for: while an agent holds the lock the entry is tried again on a
// later view, unless the agent's own call has quarantined it by then. A view that fails
// (an unreadable folder) is logged once and that role is left alone for this pass.
import { join } from 'node:path';
import { type Role } from '../handoff/roles.js';
import { isCode } from '../fsx/absent.js';
import {
  isBatchName,
  isItemName,
  type Item,
  type Mailbox,
  quarantineItem,
  readItem,
  UnusableItem,
} from '../queue/index.js';
import { acquireLock, LockBusy, type Release } from '../fsx/lock.js';
import { wakeupsHeld } from '../project/launchHold.js';
import { boxOf, reportOnce, type DaemonState } from './state.js';
import { type InboxView } from './wakePolicy.js';
import { wake, wakeTargetOf } from './waker.js';

/**
 * What the daemon sees of a role's inbox: usable items waiting in new/ (unusable ones are
 * quarantined), and whether anything is in process. `fresh` (all but a quiet pass's views of
 * roles it did not deliver to): the folders are listed the stat way, not trusted to their
 * watch, which may not have reported a change made a moment ago.
 */
export async function inboxViewOf(
  state: DaemonState,
  role: string,
  now: number,
  fresh = true,
): Promise<InboxView> {
  const box = boxOf(state, role);
  const entries = fresh ? state.listings.entryNames : state.listings.watchedEntryNames;
  const inProcess = entries
    .call(state.listings, box.inProcess, now)
    .filter((n) => isItemName(n) || isBatchName(n));
  return { waiting: await usableWaiting(state, role, box, now, fresh), busy: inProcess.length > 0 };
}

/**
 * Decides and starts the wake-ups after a pass that delivered to `delivered`; `allViews` looks at
 * every role.
 */
export async function scheduleWakes(
  state: DaemonState,
  roles: Map<string, Role>,
  delivered: Set<string>,
  allViews: boolean,
  now: number,
  quiet = false,
): Promise<void> {
  const due = state.policy.deferredDue(now);
  for (const role of roles.values()) {
    if (!allViews && !delivered.has(role.role) && !due.has(role.role)) continue;
    let view: InboxView;
    try {
      view = await inboxViewOf(state, role.role, now, !quiet || delivered.has(role.role));
    } catch (err) {
      const problem = (err as Error).message;
      reportOnce(state, `inbox:${role.role}:${problem}`, {
        what: 'inbox',
        role: role.role,
        problem,
      });
      continue;
    }
    const held = () => wakeupsHeld(state.root, role.role, now);
    const reason = state.policy.decide(role.role, view, delivered.has(role.role), now, held);
    if (reason) startWake(state, role, reason, now);
  }
}

/**
 * How many entries of new/ are usable items; reads each name once, quarantines the unusable ones.
 */
async function usableWaiting(
  state: DaemonState,
  role: string,
  box: Mailbox,
  now: number,
  fresh: boolean,
): Promise<number> {
  const names = fresh
    ? state.listings.itemNames(box.inboxNew, now)
    : state.listings.watchedItemNames(box.inboxNew, now);
  if (names.length === 0) {
    state.newVerdicts.delete(box.inboxNew);
    return 0;
  }
  const seen = state.newVerdicts.get(box.inboxNew);
  const verdicts = new Map<string, boolean>();
  for (const name of names) {
    const verdict = seen?.get(name) ?? (await verdictAt(join(box.inboxNew, name)));
    if (verdict !== undefined) verdicts.set(name, verdict);
  }
  state.newVerdicts.set(box.inboxNew, verdicts);
  const unusable = names.filter((name) => verdicts.get(name) === false);
  if (unusable.length > 0) await quarantineUnusable(state, role, box, unusable, verdicts);
  return names.filter((name) => verdicts.get(name) === true).length;
}

/**
 * The item at `path`, the UnusableItem that reading it raises, or undefined when it has gone
 * meanwhile (claimed).
 */
async function readOrProblem(path: string): Promise<Item | UnusableItem | undefined> {
  try {
    return await readItem(path);
  } catch (err) {
    if (err instanceof UnusableItem) return err;
    if (isCode(err, 'ENOENT')) return undefined;
    throw err;
  }
}

/** True for a usable item at `path`, false for an unusable entry, undefined when it has gone. */
async function verdictAt(path: string): Promise<boolean | undefined> {
  const found = await readOrProblem(path);
  return found === undefined ? undefined : !(found instanceof UnusableItem);
}

/**
 * Quarantines unusable entries of new/ under the role's inbox lock (tried once: a busy lock
 * means a later view); logs each. A failure (a bad/ that is a symlink, a lock folder that
 * cannot be written) is logged once and leaves the entry uncounted: the usable items of the
 * role are still counted and woken for.
 */
async function quarantineUnusable(
  state: DaemonState,
  role: string,
  box: Mailbox,
  names: string[],
  verdicts: Map<string, boolean>,
): Promise<void> {
  let release: Release | undefined;
  try {
    release = acquireLock(box.inboxLock, 0);
    for (const name of names) {
      // Read again under the lock: an agent may have moved it meanwhile, or a person mended it.
      const found = await readOrProblem(join(box.inboxNew, name));
      verdicts.delete(name);
      if (found === undefined) continue;
      if (!(found instanceof UnusableItem)) {
        verdicts.set(name, true);
        continue;
      }
      verdicts.set(name, false);
      const moved = quarantineItem(box, found);
      verdicts.delete(name);
      state.log.write('quarantined', { role, name, reason: moved.reason, to: moved.badPath });
    }
  } catch (err) {
    if (err instanceof LockBusy) return;
    const problem = (err as Error).message;
    reportOnce(state, `quarantine:${role}:${problem}`, { what: 'quarantine', role, problem });
  } finally {
    release?.();
  }
}

/**
 * Types the wake-up decided at `decidedAt` into the role's pane in the background (one that
 * succeeds lifts the role's spent mark); the job removes itself from `state.wakes` when done.
 */
function startWake(state: DaemonState, role: Role, reason: string, decidedAt: number): void {
  const job = (async () => {
    try {
      const target = wakeTargetOf(state.root, role.role, role.session);
      await wake(target);
      state.policy.wakeSucceeded(role.role, decidedAt);
      state.log.write('woke', { role: role.role, target: target.target, reason });
    } catch (err) {
      state.log.write('wake-failed', {
        role: role.role,
        reason: (err as Error).message.split('\n')[0]!,
      });
    }
  })();
  state.wakes.add(job);
  void job.finally(() => state.wakes.delete(job));
}
