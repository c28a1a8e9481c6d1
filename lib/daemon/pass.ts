// One pass of handoffd over an explicit DaemonState (protocol §8): re-read roles.tsv, list
// every role's complete outbox/*.handoff, deliver them lowest name first across all
// senders, then schedule the wake-ups and record the pass. Handoffs are copied one at a
// time and finished in groups of up to GROUP_SIZE (deliver.ts). Between handoffs the pass
// yields, so a TERM/INT handler can run, and stops early when a stop was requested; the
// handoffs already copied are finished first.
//
// Crash contract: see deliver.ts. A handoff whose copy or finish failed (or that was present
// at start-up) may be partly delivered: its next try searches deep for earlier copies.
import * as fs from 'node:fs';
import { fsyncDir, publishWhole } from '../fsx/durable.js';
import { type Role } from '../handoff/roles.js';
import { bridgePathsOf } from '../project/layout.js';
import { checkAwaitingWhenDue } from './awaitingReceipts.js';
import { receiveArrivals, settlePublishes, startPublishing } from './bridgePass.js';
import { copyHandoff, finishHandoffs, type Copied, type DeliveryScope } from './deliver.js';
import { boxOf, currentRoles, reportOnce, type DaemonState } from './state.js';
import { scheduleWakes } from './wakeScheduler.js';
import { isoOf } from '../fsx/timestamps.js';

/**
 * Copied handoffs finished together (their new/, sent/ and outbox/ fsyncs shared). A lone
 * handoff is a group of one; a backlog moves to sent/ in groups of this size.
 */
export const GROUP_SIZE = 64;

/** One outbox file waiting for delivery. */
export interface Queued {
  sender: string;
  name: string;
}

/**
 * Runs one pass; `startup` makes every delivery search deep (the files may be partly delivered by a
 * killed daemon). `quiet`: no notification came since the last pass (the poll timer's pass), so
 * the inboxes' watches are trusted for the wake-ups instead of a stat of each (listingCache.ts).
 */
export async function runPass(state: DaemonState, startup: boolean, quiet = false): Promise<void> {
  const roles = currentRoles(state);
  const changedBefore = state.stats.delivered + state.stats.failed;
  const scope = scopeOf(state, roles);
  const received = state.bridge
    ? await receiveArrivals(state, scope, state.bridge)
    : new Set<string>();
  if (state.bridge)
    checkAwaitingWhenDue(state, state.bridge, bridgePathsOf(state.root).awaiting, Date.now());
  const audit = quiet && state.outboxAuditDue;
  state.outboxAuditDue = !quiet;
  const queue = outboxQueue(state, roles, audit);
  const delivered = await deliverQueue(state, scope, queue, startup);
  for (const role of received) delivered.add(role);
  const now = Date.now();
  const allViews = now >= state.viewsDueAt;
  if (allViews) {
    state.viewsDueAt = now + state.viewIntervalMs;
    state.ensured.clear();
  }
  await scheduleWakes(state, roles, delivered, allViews, now, quiet);
  state.log.refresh();
  recordPass(state, state.stats.delivered + state.stats.failed !== changedBefore, now);
}

/**
 * Every role's complete outbox files in delivery order (name, then sender). Each outbox is
 * watched, its changes start a pass (state.notify), and only an outbox whose watch reported a
 * change is listed again: a handoff's pass does not stat every role's outbox. `audit`: every
 * outbox is stat'ed (the stat rule, listingCache.ts), for a notification that was dropped.
 */
export function outboxQueue(state: DaemonState, roles: Map<string, Role>, audit = false): Queued[] {
  const queue: Queued[] = [];
  const now = Date.now();
  for (const role of roles.keys()) {
    const box = boxOf(state, role);
    try {
      const names = audit
        ? state.listings.itemNames(box.outbox, now)
        : state.listings.watchedItemNames(box.outbox, now, state.notify);
      for (const name of names) queue.push({ sender: role, name });
    } catch (err) {
      const problem = (err as Error).message;
      reportOnce(state, `outbox:${role}:${problem}`, { what: 'outbox', role, problem });
    }
  }
  // Names Baton writes are ASCII, where string order is byte order.
  return queue.sort((a, b) =>
    a.name < b.name ? -1 : a.name > b.name ? 1 : a.sender < b.sender ? -1 : 1,
  );
}

/** The delivery scope of a pass (with the bridge's view of remote roles when there is one). */
function scopeOf(state: DaemonState, roles: Map<string, Role>): DeliveryScope {
  const scope: DeliveryScope = {
    root: state.root,
    roles,
    tmp: state.paths.tmp,
    ensured: state.ensured,
    boxOf: (role) => boxOf(state, role),
    lister: state.listings,
  };
  const bridge = state.bridge;
  if (bridge)
    Object.assign(scope, {
      isRemote: (role: string) => bridge.isRemote(role),
      tooLargeForBridge: bridge.tooLarge.bind(bridge),
    });
  return scope;
}

/** Delivers the queue (until a stop is requested); returns the roles that received a copy. */
async function deliverQueue(
  state: DaemonState,
  scope: DeliveryScope,
  queue: Queued[],
  startup: boolean,
): Promise<Set<string>> {
  const delivered = new Set<string>();
  let group: Copied[] = [];
  for (const [index, { sender, name }] of queue.entries()) {
    if (index > 0) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (state.stopRequested()) break;
    }
    const copied = await copyOne(state, scope, sender, name, startup);
    if (copied && state.bridge && !startPublishing(state.bridge, copied)) {
      // The bridge cannot publish now: the local copies are made (their recipients are
      // woken), the original waits in the outbox.
      state.retryDeep.add(`${sender}/${name}`);
      for (const dir of copied.newDirs) fsyncDir(dir);
      for (const role of copied.copied) delivered.add(role);
      continue;
    }
    if (copied) group.push(copied);
    if (group.length >= GROUP_SIZE) group = await finishGroup(state, scope, group, delivered);
  }
  // Also after a stop: the copies made are finished before the daemon exits.
  if (group.length > 0) await finishGroup(state, scope, group, delivered);
  return delivered;
}

/**
 * Delivery steps 1–2 of one handoff; logs a refusal; returns the handoff when its copies are made.
 */
async function copyOne(
  state: DaemonState,
  scope: DeliveryScope,
  sender: string,
  name: string,
  startup: boolean,
): Promise<Copied | undefined> {
  const key = `${sender}/${name}`;
  try {
    const result = await copyHandoff(scope, sender, name, startup || state.retryDeep.has(key));
    if (result.kind === 'copied') return result;
    state.listings.forget(boxOf(state, sender).outbox);
    state.retryDeep.delete(key);
    state.stats.failed += 1;
    state.log.write('failed', { name, from: sender, reason: result.reason });
  } catch (err) {
    state.retryDeep.add(key);
    state.ensured.clear();
    reportOnce(state, `deliver:${key}:${(err as Error).message}`, {
      what: 'deliver',
      name,
      from: sender,
      problem: (err as Error).message,
    });
  }
  return undefined;
}

/**
 * Delivery step 3 for a group (finishHandoffs, after its remote publishes are stored), logged per
 * handoff; returns the next, empty group.
 */
async function finishGroup(
  state: DaemonState,
  scope: DeliveryScope,
  group: Copied[],
  delivered: Set<string>,
): Promise<Copied[]> {
  // Copies in new/ are worth a wake-up even if a remote publish keeps their original in the outbox.
  if (state.bridge) for (const c of group) for (const role of c.copied) delivered.add(role);
  const ready = state.bridge ? await settlePublishes(state, scope, group) : group;
  // The originals leave their outboxes now: the next pass may list them before their watch says so.
  for (const c of group) state.listings.forget(boxOf(state, c.from).outbox);
  try {
    for (const result of finishHandoffs(scope, ready)) {
      state.retryDeep.delete(`${result.from}/${result.name}`);
      state.stats.delivered += 1;
      state.log.write('delivered', {
        id: result.id,
        name: result.name,
        from: result.from,
        to: [...result.copied, ...result.already, ...(result.remote ?? [])].join(','),
      });
      for (const role of result.copied) delivered.add(role);
    }
  } catch (err) {
    // Any of the group may be partly done: each is retried with the deep search.
    for (const c of group) state.retryDeep.add(`${c.from}/${c.name}`);
    state.ensured.clear();
    const first = group[0]!;
    reportOnce(state, `deliver:${first.from}/${first.name}:${(err as Error).message}`, {
      what: 'deliver',
      name: first.name,
      from: first.from,
      problem: (err as Error).message,
    });
  }
  return [];
}

/**
 * Counts the pass; writes health.json after a pass that delivered or failed something, every 5th
 * pass, and whenever the roles whose re-wakes are spent change. Each write replaces the file whole
 * (a temp file renamed over it), so a reader never sees half of one. The counts are advisory; a
 * change of the spent roles is fsync'd before the rename, since status, monitor and doctor report
 * those from this file alone.
 */
function recordPass(state: DaemonState, changed: boolean, now: number): void {
  state.stats.passes += 1;
  state.stats.last_pass_at = isoOf(new Date(now));
  const spent = Object.fromEntries(
    [...state.policy.rewakesSpent()].map(([role, at]) => [role, isoOf(new Date(at))]),
  );
  const spentKey = JSON.stringify(spent);
  const spentChanged = spentKey !== state.recordedSpent;
  if (!changed && !spentChanged && state.stats.passes % 5 !== 1) return;
  const text = JSON.stringify({ pid: process.pid, ...state.stats, rewakes_spent: spent });
  const temp = `${state.paths.health}.tmp`;
  try {
    if (spentChanged) publishWhole(state.paths.health, text, temp);
    else {
      fs.writeFileSync(temp, text, { mode: 0o600 });
      fs.renameSync(temp, state.paths.health);
    }
    state.recordedSpent = spentKey;
  } catch {
    // the counts are advisory; a spent change not written is tried again after the next pass
  }
}
