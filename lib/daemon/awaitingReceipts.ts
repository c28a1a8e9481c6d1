// The sender's ledger of remote copies not yet confirmed (docs/bridge.md §3, receipts).
// The server's acknowledgement of a publish is not the end of a handoff's journey: a
// nats-server 2.9 cluster whose servers are SIGKILLed and restarted was seen (the cluster
// soak, under load) to lose messages it had stored, or to drop them unacknowledged by
// anyone, after its replicas disagreed. So the receiving node puts a receipt per copy it
// made or found held (bridge.ts, confirm), and the sender keeps one ledger entry per
// handoff with remote recipients, `.swarmforge/bridge/awaiting/<id>`, until every remote
// role's receipt is there. An entry older than the confirmation delay is checked: each
// unconfirmed role's message is looked for at the sequence number the server gave it;
// still there, it waits for its node; vanished without a receipt, the handoff is published
// again from sent/ under a new message id (the receiver's check by id keeps one copy).
//
// Crash contract: the entries of a group are written, and their folder fsync'd, before the
// group's originals move to sent/ (crash point `bridge:awaiting-written`); a kill before
// leaves the originals in the outbox (published again, found by id). An entry rewritten or
// removed is not fsync'd: one that comes back after a crash is checked again, which costs a
// look at the server and, at worst, a publish the receiver finds by id; so does a kill after
// a copy was published again and before its entry says so (crash point `bridge:resent`).
import * as fs from 'node:fs';
import { join } from 'node:path';
import { isCode } from '../fsx/absent.js';
import { crashPoint } from '../fsx/crash.js';
import { fsyncDir, mkdirSynced } from '../fsx/durable.js';
import type { Bridge } from '../bridge/bridge.js';
import { boxOf, reportOnce, type DaemonState } from './state.js';

/**
 * A copy published this many times again, vanished each time without a receipt, is given up
 * (logged; the original stays in sent/): its node takes it and never confirms, as a node that
 * refuses it would (a refused message is terminated, and so gone from the server).
 */
const MAX_RESENDS = 10;

/** One handoff whose remote copies await their receipts. */
export interface AwaitingEntry {
  id: string;
  from: string;
  /** Its name in the sender's sent/ (the outbox name). */
  name: string;
  /** Per remote role not yet confirmed, the sequence number of its message on the server. */
  roles: Record<string, number>;
  /** How many times a vanished copy was published again (each under a new message id). */
  resends: number;
}

/** Writes the entries of a group and fsyncs their folder (before the originals move to sent/). */
export function recordAwaiting(dir: string, entries: AwaitingEntry[]): void {
  if (entries.length === 0) return;
  mkdirSynced(dir);
  // Written in place: one torn by a kill here belongs to a handoff still in its outbox,
  // which is published again and given a whole entry.
  for (const entry of entries)
    fs.writeFileSync(join(dir, entry.id), `${JSON.stringify(entry)}\n`, { mode: 0o600 });
  fsyncDir(dir);
  crashPoint('bridge:awaiting-written');
}

function writeEntry(dir: string, entry: AwaitingEntry): void {
  const temp = join(dir, `.${entry.id}.tmp`);
  fs.writeFileSync(temp, `${JSON.stringify(entry)}\n`, { mode: 0o600 });
  fs.renameSync(temp, join(dir, entry.id));
}

/** When each daemon's ledger is checked next, and whether a check runs now. */
const checks = new WeakMap<DaemonState, { nextAt: number; running: boolean }>();

/**
 * Starts a check of the ledger in the background when one is due (every third of the
 * confirmation delay, at least every 10 s) and none runs.
 */
export function checkAwaitingWhenDue(
  state: DaemonState,
  bridge: Bridge,
  dir: string,
  now: number,
): void {
  const check = checks.get(state) ?? { nextAt: 0, running: false };
  checks.set(state, check);
  if (check.running || now < check.nextAt || !bridge.canPublish(now)) return;
  check.running = true;
  check.nextAt = now + Math.min(10_000, Math.max(1_000, bridge.settings.confirmAfterMs / 3));
  void checkAwaiting(state, bridge, dir, now).finally(() => {
    check.running = false;
  });
}

/** Checks every entry older than the confirmation delay (see the header). */
export async function checkAwaiting(
  state: DaemonState,
  bridge: Bridge,
  dir: string,
  now: number,
): Promise<void> {
  let names: string[];
  try {
    names = fs.readdirSync(dir).filter((n) => !n.startsWith('.'));
  } catch (err) {
    if (isCode(err, 'ENOENT')) return;
    throw err;
  }
  for (const name of names) {
    const path = join(dir, name);
    try {
      if (now - fs.statSync(path).mtimeMs < bridge.settings.confirmAfterMs) continue;
      await checkEntry(
        state,
        bridge,
        dir,
        JSON.parse(fs.readFileSync(path, 'utf8')) as AwaitingEntry,
      );
    } catch (err) {
      if (isCode(err, 'ENOENT')) continue;
      if (err instanceof SyntaxError) {
        // Torn by a power loss (its rewrites are not fsync'd): nothing left to check by.
        fs.rmSync(path, { force: true });
        state.log.write('error', {
          what: 'receipt',
          id: name,
          problem: 'unreadable entry removed',
        });
        continue;
      }
      // Not connected, a timeout: the entry stays and is checked again.
      reportOnce(state, `awaiting:${name}:${(err as Error).message}`, {
        what: 'receipt',
        id: name,
        problem: (err as Error).message,
      });
    }
  }
}

async function checkEntry(
  state: DaemonState,
  bridge: Bridge,
  dir: string,
  entry: AwaitingEntry,
): Promise<void> {
  const roles: Record<string, number> = {};
  let resends = entry.resends;
  for (const [role, seq] of Object.entries(entry.roles)) {
    const found = await bridge.confirmationOf(role, entry.id, seq);
    if (found === 'confirmed') continue;
    if (found === 'waiting') {
      roles[role] = seq;
      continue;
    }
    if (resends >= MAX_RESENDS) {
      state.log.write('error', {
        what: 'resend',
        id: entry.id,
        role,
        problem: `published ${resends} times again and never confirmed: given up (in sent/)`,
      });
      continue;
    }
    const bytes = originalOf(state, entry);
    if (!bytes) {
      state.log.write('error', {
        what: 'resend',
        id: entry.id,
        role,
        problem: `vanished from the server and '${entry.name}' is not in sent/ any more`,
      });
      continue;
    }
    resends += 1;
    const handoff = { id: entry.id, name: entry.name, from: entry.from, bytes };
    const outcome = await bridge.publish(role, handoff, resends);
    if (outcome.kind !== 'stored') continue;
    crashPoint('bridge:resent');
    roles[role] = outcome.seq;
    state.log.write('bridge-resent', { id: entry.id, name: entry.name, to: role });
  }
  if (Object.keys(roles).length === 0) fs.rmSync(join(dir, entry.id), { force: true });
  // Rewritten even when unchanged: its time is when it is checked next.
  else writeEntry(dir, { ...entry, roles, resends });
}

/** The original's bytes in the sender's sent/, or undefined when it is not there. */
function originalOf(state: DaemonState, entry: AwaitingEntry): Uint8Array | undefined {
  try {
    return fs.readFileSync(join(boxOf(state, entry.from).sent, entry.name));
  } catch (err) {
    if (isCode(err, 'ENOENT')) return undefined;
    throw err;
  }
}
