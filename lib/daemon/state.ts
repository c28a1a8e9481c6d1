// handoffd's state between passes, made explicit so that one pass (pass.ts) and the wake
// scheduling (wakeScheduler.ts) are plain functions of it: the caches that keep a pass
// cheap (role table, mailbox paths, folder listings, checked mailboxes, which waiting
// entries are usable items), what must be retried with the deep search, which errors were
// already logged, the wake policy and the wake-ups in flight, and the counts written to
// health.json with the roles whose re-wakes are spent.
//
// Concurrency contract: one daemon per project (the loop holds the daemon lock) and one
// pass at a time; wake-up jobs only add and remove themselves from `wakes` and write log lines.
import * as fs from 'node:fs';
import { mailboxOf, rolesPathOf, type DaemonPaths } from '../project/layout.js';
import { readRoles, type Role } from '../handoff/roles.js';
import { type Mailbox } from '../queue/index.js';
import type { Bridge } from '../bridge/bridge.js';
import { ListingCache } from './listingCache.js';
import { type DaemonLog } from './log.js';
import { WakePolicy } from './wakePolicy.js';
import { isoOf } from '../fsx/timestamps.js';

/** Options of one daemon run. */
export interface DaemonOptions {
  root: string;
  pollIntervalMs: number;
  rewakeIntervalS: number;
  /** Receives each log line as well (the foreground daemon mirrors to stderr). */
  mirror?: (line: string) => void;
}

/** The counts of health.json. */
export interface DaemonStats {
  passes: number;
  delivered: number;
  failed: number;
  errors: number;
  started_at: string;
  last_pass_at: string;
}

/** Everything a pass reads and updates. */
export interface DaemonState {
  readonly root: string;
  readonly paths: DaemonPaths;
  readonly log: DaemonLog;
  readonly policy: WakePolicy;
  readonly listings: ListingCache;
  readonly boxes: Map<string, Mailbox>;
  /**
   * Recipients whose mailbox folders were checked; cleared after any delivery error and with every
   * all-roles view.
   */
  readonly ensured: Set<string>;
  /**
   * Outbox files (`<sender>/<name>`) that may be partly delivered: their next try searches deep.
   */
  readonly retryDeep: Set<string>;
  /**
   * Per inbox/new/ folder, each name seen there and whether it is a usable item (read once;
   * wakeScheduler.ts).
   */
  readonly newVerdicts: Map<string, Map<string, boolean>>;
  /** Keys of the errors already logged (each is logged once). */
  readonly reported: Set<string>;
  /** Wake-ups in flight (awaited before the daemon exits). */
  readonly wakes: Set<Promise<void>>;
  readonly stats: DaemonStats;
  /**
   * The roles whose re-wakes are spent as health.json last recorded them (JSON of role → ISO
   * time); unset until the first write.
   */
  recordedSpent?: string;
  rolesCache?: { key: string; roles: Map<string, Role> };
  /** When the next pass must look at every role's inbox (for re-wakes), not only at recipients. */
  viewsDueAt: number;
  /**
   * Set by a pass a notification started: the next quiet pass stats every outbox once, so a
   * notification the kernel dropped in a burst (its queue overflows silently) is made up for
   * within a poll interval rather than at the listings' audit.
   */
  outboxAuditDue: boolean;
  readonly viewIntervalMs: number;
  /** Starts another pass at once (a watched outbox changed). */
  readonly notify: () => void;
  /** True once TERM/INT or the stop sentinel asked the daemon to stop. */
  readonly stopRequested: () => boolean;
  /** The bridge to other nodes, when the project has a roster (docs/bridge.md). */
  bridge?: Bridge;
}

/** A fresh state for a daemon run. */
export function newDaemonState(
  options: DaemonOptions,
  paths: DaemonPaths,
  log: DaemonLog,
  notify: () => void,
  stopRequested: () => boolean,
): DaemonState {
  const rewakeMs = options.rewakeIntervalS * 1000;
  return {
    root: options.root,
    paths,
    log,
    notify,
    stopRequested,
    policy: new WakePolicy({ rewakeIntervalMs: rewakeMs }),
    listings: new ListingCache(),
    boxes: new Map(),
    newVerdicts: new Map(),
    ensured: new Set(),
    retryDeep: new Set(),
    reported: new Set(),
    wakes: new Set(),
    stats: {
      passes: 0,
      delivered: 0,
      failed: 0,
      errors: 0,
      started_at: isoOf(new Date()),
      last_pass_at: '',
    },
    viewsDueAt: 0,
    outboxAuditDue: false,
    viewIntervalMs: Math.min(5000, Math.max(options.pollIntervalMs, rewakeMs / 10)),
  };
}

/** The mailbox of a role (memoized: a pass asks for the same paths many times). */
export function boxOf(state: DaemonState, role: string): Mailbox {
  let box = state.boxes.get(role);
  if (!box) {
    box = mailboxOf(state.root, role);
    state.boxes.set(role, box);
  }
  return box;
}

/** Logs an `error` event the first time `key` is seen, and counts it. */
export function reportOnce(state: DaemonState, key: string, details: Record<string, string>): void {
  if (state.reported.has(key)) return;
  state.reported.add(key);
  state.stats.errors += 1;
  state.log.write('error', details);
}

/**
 * The roles of roles.tsv, re-parsed only when the file changes; bad lines and read errors are
 * logged once.
 */
export function currentRoles(state: DaemonState): Map<string, Role> {
  try {
    const stat = fs.statSync(rolesPathOf(state.root));
    const key = `${stat.ino}:${stat.size}:${stat.mtimeMs}`;
    if (state.rolesCache?.key === key) return state.rolesCache.roles;
    const table = readRoles(state.root);
    state.rolesCache = { key, roles: table.roles };
    for (const problem of table.problems)
      reportOnce(state, `roles:${problem}`, { what: 'roles.tsv', problem });
    return table.roles;
  } catch (err) {
    const problem = (err as Error).message;
    reportOnce(state, `roles:${problem}`, { what: 'roles.tsv', problem });
    return new Map<string, Role>();
  }
}
