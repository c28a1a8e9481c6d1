// `baton status`: per role, how many items sit in each folder and how long the oldest
// waiting item and the work in process have been there; and whether handoffd runs (a
// killed daemon leaves its files behind, so only the live holder of its lock counts).
// With a roster, the bridge too (bridgeView.ts): the link, and remote roles marked, since
// their mailbox here is not where their mail lands. A role whose mail has waited through
// every re-wake of handoffd (health.json records it) and is still unclaimed is flagged,
// with the minutes its oldest waiting item has waited: status, the monitor and doctor say
// so in one line (unclaimedLine). Reads only; takes no lock.
import * as fs from 'node:fs';
import { join } from 'node:path';
import { completedItemPaths, inProcessOf, itemNamesIn, type Mailbox } from '../queue/index.js';
import { roleLabel, type BridgeView } from './bridgeView.js';
import { DAEMON_NOT_RUNNING, rewakesSpentOf, type DaemonStatus } from '../project/daemonRecord.js';
import { mailboxOf } from '../project/layout.js';
import { readRoles } from '../handoff/roles.js';

/** One role's line of `baton status`. */
export interface RoleStatus {
  role: string;
  mode: string;
  outbox: number;
  new: number;
  in_process: number;
  completed: number;
  failed: number;
  /** Seconds since the oldest item in new/ arrived, or null. */
  oldest_waiting_s: number | null;
  /** Seconds since the work in process was claimed, or null. */
  in_process_s: number | null;
  /** Path of the item or batch in process, or null. */
  in_process_path: string | null;
  /**
   * True when handoffd spent its re-wakes on this role and its mail is still unclaimed: items
   * waiting, nothing in process.
   */
  rewakes_spent: boolean;
  /** With rewakes_spent, whole minutes since the oldest waiting item arrived; else null. */
  unclaimed_min: number | null;
}

function mtimeOf(path: string): number | undefined {
  try {
    return fs.lstatSync(path).mtimeMs;
  } catch {
    return undefined;
  }
}

/**
 * How many items are in process in a mailbox (a batch counts its items), and the path of the file
 * or batch in process.
 */
export function inProcessCount(box: Mailbox): { count: number; current: string | null } {
  const state = inProcessOf(box);
  const batchItems = state.batches.reduce(
    (n, b) => n + itemNamesIn(join(box.inProcess, b)).length,
    0,
  );
  const current = state.files[0] ?? state.batches[0];
  return {
    count: state.files.length + batchItems,
    current: current === undefined ? null : join(box.inProcess, current),
  };
}

/** The status of every role in roles.tsv at instant `now` (ms). */
export function statusOf(root: string, now = Date.now()): RoleStatus[] {
  const ages = (ms: number | undefined) =>
    ms === undefined ? null : Math.max(0, Math.round((now - ms) / 1000));
  const spent = rewakesSpentOf(root);
  return [...readRoles(root).roles.values()].map((role) => {
    const box = mailboxOf(root, role.role);
    const waiting = itemNamesIn(box.inboxNew).map((n) => mtimeOf(join(box.inboxNew, n)) ?? now);
    const inProcess = inProcessCount(box);
    const unclaimed = spent.has(role.role) && waiting.length > 0 && inProcess.current === null;
    return {
      role: role.role,
      mode: role.mode,
      outbox: itemNamesIn(box.outbox).length,
      new: waiting.length,
      in_process: inProcess.count,
      completed: completedItemPaths(box).length,
      failed: itemNamesIn(box.failed).length,
      oldest_waiting_s: waiting.length ? ages(Math.min(...waiting)) : null,
      in_process_s: inProcess.current ? ages(mtimeOf(inProcess.current)) : null,
      in_process_path: inProcess.current,
      rewakes_spent: unclaimed,
      unclaimed_min: unclaimed
        ? Math.floor(Math.max(0, now - Math.min(...waiting)) / 60_000)
        : null,
    };
  });
}

/** What status, the monitor and doctor say of a role whose re-wakes are spent. */
export function unclaimedLine(role: string, minutes: number): string {
  return `${role}: mail unclaimed for ${minutes} min, re-wakes spent`;
}

/** One unclaimedLine per flagged row, each with its newline; empty when none is flagged. */
export function unclaimedText(rows: RoleStatus[]): string {
  return rows
    .filter((r) => r.rewakes_spent)
    .map((r) => `${unclaimedLine(r.role, r.unclaimed_min ?? 0)}\n`)
    .join('');
}

/** Seconds as a short human duration (`45s`, `3m12s`, `2h05m`, `3d04h`). */
export function humanDuration(s: number | null): string {
  if (s === null) return '-';
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  if (s < 86400)
    return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
  return `${Math.floor(s / 86400)}d${String(Math.floor((s % 86400) / 3600)).padStart(2, '0')}h`;
}

/**
 * The status as an aligned text table; with a bridge view, a remote role's name says its node
 * (`reviewer (on node b)`).
 */
export function statusTable(rows: RoleStatus[], bridge?: BridgeView): string {
  const header = [
    'ROLE',
    'MODE',
    'OUTBOX',
    'NEW',
    'IN_PROCESS',
    'COMPLETED',
    'FAILED',
    'OLDEST_WAITING',
    'IN_PROCESS_FOR',
  ];
  const body = rows.map((r) => [
    roleLabel(r.role, bridge),
    r.mode,
    String(r.outbox),
    String(r.new),
    String(r.in_process),
    String(r.completed),
    String(r.failed),
    humanDuration(r.oldest_waiting_s),
    humanDuration(r.in_process_s),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => row[i]!.length)));
  return (
    [header, ...body]
      .map((row) =>
        row
          .map((c, i) => c.padEnd(widths[i]!))
          .join('  ')
          .trimEnd(),
      )
      .join('\n') + '\n'
  );
}

/** Whole seconds from the time `at` to `now` (ms), never negative. */
function secondsSince(at: string, now: number): number {
  return Math.max(0, Math.round((now - Date.parse(at)) / 1000));
}

/**
 * The line `baton status` ends with: handoffd's pid and last pass, or that it is not running and
 * how to start it.
 */
export function daemonLine(daemon: DaemonStatus, now = Date.now()): string {
  if (!daemon.running) return `${DAEMON_NOT_RUNNING}\n`;
  const lastPass =
    daemon.last_pass_at === null
      ? 'none yet'
      : `${humanDuration(secondsSince(daemon.last_pass_at, now))} ago`;
  return `handoffd: running (pid ${daemon.pid}), last pass ${lastPass}\n`;
}
