// The bridge's part of a handoffd pass (docs/bridge.md §3). Send: a handoff with remote
// recipients leaves the outbox only when its local copies are durable and every remote
// publish is stored by the server; a temporary failure keeps it in the outbox (retried
// after the bridge's backoff, never failed for that reason), a message over the server's
// size limit goes to failed/. Receive: the arrivals queued by the bridge are copied, new/
// is fsync'd, and only then are they acknowledged; the recipients are woken by the pass.
//
// Crash contract: killed after the publishes were stored and before the move to sent/,
// the restarted daemon publishes again with the same Nats-Msg-Id (a duplicate for the
// server within its window, a copy the receiver finds by id after it); the ledger entries
// of the group's remote copies (awaitingReceipts.ts) are written before the move, so a
// handoff in sent/ always has one until its receipts came. Killed after a copy and before
// its acknowledgement, the message is redelivered and found by id; a receipt is put after
// the acknowledgement, and one never put costs the sender one publish again.
import { crashPoint } from '../fsx/crash.js';
import { fsyncDir } from '../fsx/durable.js';
import type { Arrival, Bridge, PublishOutcome } from '../bridge/bridge.js';
import { failHandoff, tooLargeReason, type Copied, type DeliveryScope } from './deliver.js';
import { bridgePathsOf } from '../project/layout.js';
import { recordAwaiting, type AwaitingEntry } from './awaitingReceipts.js';
import { copyArrival, type ArrivalOutcome } from './deliverArrival.js';
import { reportOnce, type DaemonState } from './state.js';

/** The publishes in flight of one copied handoff (all remote recipients). */
const inFlight = new WeakMap<Copied, Promise<PromiseSettledResult<PublishOutcome>[]>>();

/**
 * Starts publishing a copied handoff's remote copies; false when the bridge cannot publish now (it
 * stays in the outbox).
 */
export function startPublishing(bridge: Bridge, copied: Copied): boolean {
  const remote = copied.remote;
  if (!remote) return true;
  if (!bridge.canPublish()) return false;
  const handoff = { id: copied.id, name: copied.name, from: copied.from, bytes: remote.bytes };
  inFlight.set(
    copied,
    Promise.allSettled(remote.roles.map((role) => bridge.publish(role, handoff))),
  );
  return true;
}

/**
 * Waits for the group's publishes; returns the handoffs ready for sent/ (too large ones are moved
 * to failed/, the rest wait in the outbox).
 */
export async function settlePublishes(
  state: DaemonState,
  scope: DeliveryScope,
  group: Copied[],
): Promise<Copied[]> {
  const ready: Copied[] = [];
  const awaiting: AwaitingEntry[] = [];
  for (const copied of group) {
    const publishes = inFlight.get(copied);
    if (!publishes) {
      if (!copied.remote) ready.push(copied);
      continue;
    }
    const results = await publishes;
    const tooLarge = results.find(
      (r): r is PromiseFulfilledResult<PublishOutcome> =>
        r.status === 'fulfilled' && r.value.kind === 'too-large',
    );
    if (tooLarge && tooLarge.value.kind === 'too-large') {
      // Only when the limit was not known before the copies (no server yet): the local
      // recipients keep theirs, and the .error says so.
      const failed = failHandoff(
        scope,
        copied.from,
        copied.name,
        tooLargeReason(tooLarge.value.reason, [...copied.copied, ...copied.already]),
      );
      state.stats.failed += 1;
      state.log.write('failed', { name: copied.name, from: copied.from, reason: failed.reason });
    } else if (results.every((r) => r.status === 'fulfilled')) {
      ready.push(copied);
      awaiting.push(awaitingOf(copied, results));
    } else {
      // It waits in the outbox; its local copies, woken now, are made durable now.
      state.retryDeep.add(`${copied.from}/${copied.name}`);
      for (const dir of copied.newDirs) fsyncDir(dir);
    }
  }
  if (group.some((c) => c.remote)) crashPoint('bridge:publish-stored');
  recordAwaiting(bridgePathsOf(state.root).awaiting, awaiting);
  return ready;
}

/** The ledger entry of a copied handoff whose every remote publish was stored. */
function awaitingOf(
  copied: Copied,
  results: PromiseSettledResult<PublishOutcome>[],
): AwaitingEntry {
  const roles: Record<string, number> = {};
  copied.remote!.roles.forEach((role, i) => {
    const result = results[i];
    if (result?.status === 'fulfilled' && result.value.kind === 'stored')
      roles[role] = result.value.seq;
  });
  return { id: copied.id, from: copied.from, name: copied.name, roles, resends: 0 };
}

/** How long an arrival this node cannot take now waits before its redelivery. */
const DEFER_MS = 5_000;

/**
 * Copies the bridge's arrivals, fsyncs the new/ folders, acknowledges them; returns the roles that
 * received a copy.
 */
export async function receiveArrivals(
  state: DaemonState,
  scope: DeliveryScope,
  bridge: Bridge,
): Promise<Set<string>> {
  const arrivals = bridge.takeArrivals();
  const received = new Set<string>();
  if (arrivals.length === 0) return received;
  const toAck: { arrival: Arrival; id: string; copied: boolean }[] = [];
  const newDirs = new Set<string>();
  for (const arrival of arrivals) {
    const outcome = await copyOrReport(state, scope, arrival);
    if (outcome?.kind !== 'copied' && outcome?.kind !== 'already') continue;
    newDirs.add(outcome.newDir);
    toAck.push({ arrival, id: outcome.id, copied: outcome.kind === 'copied' });
  }
  try {
    for (const dir of newDirs) fsyncDir(dir);
  } catch (err) {
    // Not acknowledged: redelivered after the ack wait, and found by id then.
    reportOnce(state, `receive-fsync:${(err as Error).message}`, {
      what: 'receive',
      problem: (err as Error).message,
    });
    return received;
  }
  crashPoint('bridge:copies-synced');
  await Promise.all(
    toAck.map(async ({ arrival, id, copied }) => {
      try {
        await arrival.ack();
      } catch (err) {
        reportOnce(state, `ack:${id}:${(err as Error).message}`, {
          what: 'ack',
          id,
          role: arrival.role,
          problem: (err as Error).message,
        });
      }
      // Found held or made: the sender stops waiting for this copy.
      bridge.confirm(arrival.role, id);
      if (!copied) return;
      received.add(arrival.role);
      state.stats.delivered += 1;
      state.log.write('received', { id, name: arrival.name ?? '', to: arrival.role });
    }),
  );
  return received;
}

/**
 * One arrival's copy; a refusal is terminated and logged, a deferral given back for later and
 * reported once, an error left for the redelivery.
 */
async function copyOrReport(
  state: DaemonState,
  scope: DeliveryScope,
  arrival: Arrival,
): Promise<ArrivalOutcome | undefined> {
  try {
    const outcome = await copyArrival(scope, arrival.role, arrival.name, arrival.bytes);
    if (outcome.kind === 'refused') {
      arrival.refuse(outcome.reason);
      state.log.write('bridge-refused', {
        role: arrival.role,
        name: arrival.name ?? '',
        problem: outcome.reason,
      });
    } else if (outcome.kind === 'deferred') {
      arrival.retryLater(DEFER_MS);
      reportOnce(state, `defer:${arrival.role}:${outcome.reason}`, {
        what: 'receive',
        role: arrival.role,
        name: arrival.name ?? '',
        problem: outcome.reason,
      });
    }
    return outcome;
  } catch (err) {
    // Not acknowledged: the server redelivers it after the ack wait.
    state.ensured.clear();
    reportOnce(state, `receive:${arrival.role}/${arrival.name}:${(err as Error).message}`, {
      what: 'receive',
      role: arrival.role,
      name: arrival.name ?? '',
      problem: (err as Error).message,
    });
    return undefined;
  }
}
