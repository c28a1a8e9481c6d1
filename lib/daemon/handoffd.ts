// handoffd's main loop (protocol §8): one instance per project; each pass re-reads
// roles.tsv and delivers every complete outbox/*.handoff, lowest name first across all
// senders; file-system notifications start a pass at once and a periodic pass catches
// whatever notifications were dropped. TERM, INT and the `stop` sentinel end the loop
// between deliveries, so the delivery in progress always finishes.
//
// Concurrency contract: the daemon lock (lock.ts in daemon/lock) admits one daemon per
// project; deliveries run one at a time; wake-ups run beside them and never block or
// fail a delivery.
import * as fs from 'node:fs';
import { join } from 'node:path';
import { inProcessOf } from '../queue/claim.js';
import { mkdirSynced } from '../queue/durable.js';
import { STALE_TEMP_MS } from '../queue/inspect.js';
import { acquireLock, LockBusy, type Release } from '../queue/lock.js';
import { byteOrder, itemNamesIn } from '../queue/names.js';
import { mailboxOf } from '../handoff/context.js';
import { readRoles, type Role } from '../handoff/roles.js';
import { deliverHandoff } from './deliver.js';
import { DaemonLog } from './log.js';
import { daemonPathsOf, type DaemonPaths } from './paths.js';
import { WakePolicy } from './wakePolicy.js';
import { wake, wakeTargetOf } from './waker.js';

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
  let kick: () => void = () => undefined;
  const stats = { passes: 0, delivered: 0, failed: 0, errors: 0, started_at: new Date().toISOString(), last_pass_at: '' };

  const reportOnce = (key: string, details: Record<string, string>) => {
    if (reported.has(key)) return;
    reported.add(key);
    stats.errors += 1;
    log.write('error', details);
  };
  const readTable = () => {
    try {
      const table = readRoles(root);
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
    fs.writeFileSync(paths.pid, `${process.pid}\n`, { mode: 0o600 });
    log.write('started', { pid: process.pid, root });

    let firstPass = true;
    while (!stopping) {
      if (fs.existsSync(paths.stop)) break;
      await pass(firstPass);
      firstPass = false;
      if (stopping || fs.existsSync(paths.stop)) break;
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
    release();
  }

  /** Starts a pass when `dir` changes (only for entries named `only`, when given). */
  function watch(dir: string, only?: string): void {
    if (watchers.has(dir)) return;
    try {
      const watcher = fs.watch(dir, (_event, name) => {
        if (!only || name === only) kick();
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
      const box = mailboxOf(root, role);
      watch(box.outbox);
      try {
        for (const name of itemNamesIn(box.outbox)) queue.push({ sender: role, name });
      } catch (err) {
        reportOnce(`outbox:${role}:${(err as Error).message}`, { what: 'outbox', role, problem: (err as Error).message });
      }
    }
    queue.sort((a, b) => byteOrder(a.name, b.name) || byteOrder(a.sender, b.sender));
    const delivered = new Set<string>();
    for (const { sender, name } of queue) {
      // Yield so a TERM/INT handler can run, and honour the stop sentinel, between deliveries.
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (stopping || fs.existsSync(paths.stop)) break;
      const key = `${sender}/${name}`;
      try {
        const result = await deliverHandoff({ root, roles, tmp: paths.tmp }, sender, name, startup || retryDeep.has(key));
        retryDeep.delete(key);
        if (result.kind === 'delivered') {
          stats.delivered += 1;
          log.write('delivered', { id: result.id, name, from: sender, to: [...result.copied, ...result.already].join(',') });
          for (const role of result.copied) delivered.add(role);
        } else {
          stats.failed += 1;
          log.write('failed', { name, from: sender, reason: result.reason });
        }
      } catch (err) {
        retryDeep.add(key);
        reportOnce(`deliver:${key}:${(err as Error).message}`, { what: 'deliver', name, from: sender, problem: (err as Error).message });
      }
    }
    scheduleWakes(roles, delivered);
    stats.passes += 1;
    stats.last_pass_at = new Date().toISOString();
    try {
      fs.writeFileSync(paths.health, JSON.stringify({ pid: process.pid, ...stats }), { mode: 0o600 });
    } catch {
      // health is advisory
    }
  }

  function scheduleWakes(roles: Map<string, Role>, delivered: Set<string>): void {
    const now = Date.now();
    for (const role of roles.values()) {
      const box = mailboxOf(root, role.role);
      const state = inProcessOf(box);
      const view = { waiting: itemNamesIn(box.inboxNew).length, busy: state.files.length + state.batches.length > 0 };
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
