// handoffd's main loop (protocol §8): one instance per project; each pass re-reads
// roles.tsv and delivers every complete outbox/*.handoff, lowest name first across all
// senders; file-system notifications start a pass at once and a periodic pass catches
// whatever notifications were dropped. TERM, INT and the `stop` sentinel end the loop
// between handoffs; the handoffs already copied are then finished (moved to sent/) first.
//
// Concurrency contract: the daemon lock (lock.ts in daemon/lock) admits one daemon per
// project; handoffs are copied one at a time and finished in groups (deliver.ts);
// wake-ups run beside them and never block or fail a delivery.
import * as fs from 'node:fs';
import { join } from 'node:path';
import { mkdirSynced } from '../queue/durable.js';
import { type Mailbox } from '../queue/mailbox.js';
import { STALE_TEMP_MS } from '../queue/inspect.js';
import { acquireLock, LockBusy, type Release } from '../queue/lock.js';
import { isBatchName, isItemName } from '../queue/names.js';
import { mailboxOf } from '../handoff/context.js';
import { readRoles, rolesPathOf, type Role } from '../handoff/roles.js';
import { copyHandoff, finishHandoffs, type Copied } from './deliver.js';
import { ListingCache } from './listingCache.js';
import { DaemonLog } from './log.js';
import { daemonPathsOf, type DaemonPaths } from './paths.js';
import { WakePolicy } from './wakePolicy.js';
import { wake, wakeTargetOf } from './waker.js';

/**
 * Copied handoffs finished together (their new/, sent/ and outbox/ fsyncs shared). A lone
 * handoff is a group of one; a backlog moves to sent/ in groups of this size.
 */
const GROUP_SIZE = 64;

/** Options of one daemon run. */
export interface DaemonOptions {
  root: string;
  pollIntervalMs: number;
  rewakeIntervalS: number;
  /** Receives each log line as well (the foreground daemon mirrors to stderr). */
  mirror?: (line: string) => void;
}

/** Refusal to start: another daemon holds the project. */
export class AlreadyRunning extends Error {
  constructor(readonly pid: string) {
    super(`handoffd: already running as pid ${pid}`);
  }
}

function removeStaleTemps(root: string, roles: Role[], paths: DaemonPaths, now: number): void {
  fs.rmSync(paths.tmp, { recursive: true, force: true });
  mkdirSynced(paths.tmp);
  for (const role of roles) {
    const tmpDir = mailboxOf(root, role.role).outboxTmp;
    for (const name of fs.existsSync(tmpDir) ? fs.readdirSync(tmpDir) : []) {
      const path = join(tmpDir, name);
      try {
        if (now - fs.lstatSync(path).mtimeMs > STALE_TEMP_MS) fs.rmSync(path, { force: true });
      } catch {
        // gone meanwhile
      }
    }
  }
}

/** Runs the daemon until TERM/INT/stop; resolves with the exit code. */
export async function runHandoffd(options: DaemonOptions): Promise<number> {
  const { root } = options;
  const paths = daemonPathsOf(root);
  mkdirSynced(paths.dir);
  let release: Release;
  try {
    release = acquireLock(paths.lock, 1);
  } catch (err) {
    if (err instanceof LockBusy) throw new AlreadyRunning(err.owner.split(' ')[0]!);
    throw err;
  }
  const log = new DaemonLog(paths.log, options.mirror);
  const watchers = new Map<string, fs.FSWatcher>();
  const wakes = new Set<Promise<void>>();
  const policy = new WakePolicy({ rewakeIntervalMs: options.rewakeIntervalS * 1000 });
  const reported = new Set<string>();
  const retryDeep = new Set<string>();
  let stopping = false;
  /** Set by every notification; a pass that ran while it was set is followed at once by another. */
  let dirty = false;
  let kick: () => void = () => undefined;
  const notify = () => {
    dirty = true;
    kick();
  };
  /** When the next pass must look at every role's inbox (for re-wakes), not only at recipients. */
  let viewsDueAt = 0;
  const viewIntervalMs = Math.min(5000, Math.max(options.pollIntervalMs, (options.rewakeIntervalS * 1000) / 10));
  let rolesCache: { key: string; roles: Map<string, Role> } | undefined;
  const listings = new ListingCache();
  const boxes = new Map<string, Mailbox>();
  const boxOf = (role: string) => boxes.get(role) ?? boxes.set(role, mailboxOf(root, role)).get(role)!;
  /**
   * Recipients whose mailbox folders were checked (created if missing, symlinks refused).
   * Checked again after any delivery error and with every all-roles view (at most 5 s).
   */
  const ensured = new Set<string>();
  const stats = { passes: 0, delivered: 0, failed: 0, errors: 0, started_at: new Date().toISOString(), last_pass_at: '' };

  const reportOnce = (key: string, details: Record<string, string>) => {
    if (reported.has(key)) return;
    reported.add(key);
    stats.errors += 1;
    log.write('error', details);
  };
  const readTable = () => {
    try {
      const stat = fs.statSync(rolesPathOf(root));
      const key = `${stat.ino}:${stat.size}:${stat.mtimeMs}`;
      if (rolesCache?.key === key) return rolesCache.roles;
      const table = readRoles(root);
      rolesCache = { key, roles: table.roles };
      for (const problem of table.problems) reportOnce(`roles:${problem}`, { what: 'roles.tsv', problem });
      return table.roles;
    } catch (err) {
      reportOnce(`roles:${(err as Error).message}`, { what: 'roles.tsv', problem: (err as Error).message });
      return new Map<string, Role>();
    }
  };

  try {
    fs.rmSync(paths.stop, { force: true });
    removeStaleTemps(root, [...readTable().values()], paths, Date.now());
    const onSignal = () => {
      stopping = true;
      kick();
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
    watch(paths.dir, 'stop');
    log.write('started', { pid: process.pid, root });
    // The pid file comes last: once it exists, TERM and the stop sentinel are honoured.
    fs.writeFileSync(paths.pid, `${process.pid}\n`, { mode: 0o600 });

    let firstPass = true;
    while (!stopping) {
      if (fs.existsSync(paths.stop)) break;
      dirty = false;
      await pass(firstPass);
      firstPass = false;
      if (stopping || fs.existsSync(paths.stop)) break;
      if (dirty) continue;
      const deferred = policy.nextDeferred();
      const wait = deferred === undefined ? options.pollIntervalMs : Math.min(options.pollIntervalMs, Math.max(0, deferred - Date.now()));
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, wait);
        kick = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      kick = () => undefined;
    }
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
    await Promise.allSettled([...wakes]);
    return 0;
  } finally {
    for (const watcher of watchers.values()) watcher.close();
    fs.rmSync(paths.pid, { force: true });
    fs.rmSync(paths.stop, { force: true });
    log.write('stopped', { pid: process.pid });
    log.close();
    release();
  }

  /** Starts a pass when `dir` changes (only for entries named `only`, when given). */
  function watch(dir: string, only?: string): void {
    if (watchers.has(dir)) return;
    try {
      const watcher = fs.watch(dir, (_event, name) => {
        if (!only || name === only) notify();
      });
      watcher.on('error', () => {
        watcher.close();
        watchers.delete(dir);
      });
      watchers.set(dir, watcher);
    } catch {
      // the periodic pass covers a folder that cannot be watched
    }
  }

  async function pass(startup: boolean): Promise<void> {
    const roles = readTable();
    const queue: { sender: string; name: string }[] = [];
    for (const role of roles.keys()) {
      const box = boxOf(role);
      watch(box.outbox);
      try {
        for (const name of listings.itemNames(box.outbox)) queue.push({ sender: role, name });
      } catch (err) {
        reportOnce(`outbox:${role}:${(err as Error).message}`, { what: 'outbox', role, problem: (err as Error).message });
      }
    }
    // Names Baton writes are ASCII, where string order is byte order.
    queue.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.sender < b.sender ? -1 : 1));
    const delivered = new Set<string>();
    const scope = { root, roles, tmp: paths.tmp, ensured, boxOf };
    const before = stats.delivered + stats.failed;
    let group: Copied[] = [];
    const finishGroup = () => {
      try {
        for (const result of finishHandoffs(scope, group)) {
          retryDeep.delete(`${result.from}/${result.name}`);
          stats.delivered += 1;
          log.write('delivered', { id: result.id, name: result.name, from: result.from, to: [...result.copied, ...result.already].join(',') });
          for (const role of result.copied) delivered.add(role);
        }
      } catch (err) {
        // Any of the group may be partly done: each is retried with the deep search.
        for (const c of group) retryDeep.add(`${c.from}/${c.name}`);
        ensured.clear();
        const first = group[0]!;
        reportOnce(`deliver:${first.from}/${first.name}:${(err as Error).message}`, { what: 'deliver', name: first.name, from: first.from, problem: (err as Error).message });
      }
      group = [];
    };
    for (const [index, { sender, name }] of queue.entries()) {
      // Between handoffs, yield so a TERM/INT handler can run, and honour the stop sentinel.
      if (index > 0) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        if (stopping || fs.existsSync(paths.stop)) break;
      }
      const key = `${sender}/${name}`;
      try {
        const result = await copyHandoff(scope, sender, name, startup || retryDeep.has(key));
        if (result.kind === 'copied') group.push(result);
        else {
          retryDeep.delete(key);
          stats.failed += 1;
          log.write('failed', { name, from: sender, reason: result.reason });
        }
      } catch (err) {
        retryDeep.add(key);
        ensured.clear();
        reportOnce(`deliver:${key}:${(err as Error).message}`, { what: 'deliver', name, from: sender, problem: (err as Error).message });
      }
      if (group.length >= GROUP_SIZE) finishGroup();
    }
    // Also after a stop: the copies made are finished before the daemon exits.
    if (group.length > 0) finishGroup();
    const now = Date.now();
    const allViews = now >= viewsDueAt;
    if (allViews) {
      viewsDueAt = now + viewIntervalMs;
      ensured.clear();
    }
    scheduleWakes(roles, delivered, allViews, now);
    log.refresh();
    stats.passes += 1;
    stats.last_pass_at = new Date(now).toISOString();
    // health.json is advisory: written after passes that delivered, and every 5th pass.
    if (stats.delivered + stats.failed === before && stats.passes % 5 !== 1) return;
    try {
      fs.writeFileSync(paths.health, JSON.stringify({ pid: process.pid, ...stats }), { mode: 0o600 });
    } catch {
      // health is advisory
    }
  }

  /**
   * Looks at the inboxes of the roles that just received a copy or have a deferred wake-up
   * due, and every few seconds at all of them (re-wakes need minutes, not every pass).
   */
  function scheduleWakes(roles: Map<string, Role>, delivered: Set<string>, allViews: boolean, now: number): void {
    const due = policy.deferredDue(now);
    for (const role of roles.values()) {
      if (!allViews && !delivered.has(role.role) && !due.has(role.role)) continue;
      const box = boxOf(role.role);
      const inProcess = listings.entryNames(box.inProcess, now).filter((n) => isItemName(n) || isBatchName(n));
      const view = { waiting: listings.itemNames(box.inboxNew, now).length, busy: inProcess.length > 0 };
      const reason = policy.decide(role.role, view, delivered.has(role.role), now);
      if (!reason) continue;
      const job = (async () => {
        try {
          const target = wakeTargetOf(root, role.role, role.session);
          await wake(target);
          log.write('woke', { role: role.role, target: target.target, reason });
        } catch (err) {
          log.write('wake-failed', { role: role.role, reason: (err as Error).message.split('\n')[0]! });
        }
      })();
      wakes.add(job);
      void job.finally(() => wakes.delete(job));
    }
  }
}
