// handoffd's main loop (protocol §8): one instance per project (the daemon lock), a pass
// at start-up and then whenever a watched folder changes, with a periodic pass as the
// fallback for lost notifications and to fire deferred wake-ups on time. TERM, INT and the
// `stop` sentinel end the loop between handoffs (pass.ts finishes the handoffs already
// copied first); then the wake-ups in flight settle and the pid and stop files go.
//
// Concurrency contract: the daemon lock admits one daemon per project; a second one is
// refused before it touches anything (DaemonAlreadyRunning). Start-up order (§8.2): stale
// temp files removed, signal handlers installed, `started` logged, the pid file last.
import * as fs from 'node:fs';
import { join } from 'node:path';
import { daemonPathsOf } from '../project/layout.js';
import { mkdirSynced } from '../fsx/durable.js';
import { acquireLock, LockBusy, type Release } from '../fsx/lock.js';
import { removeStaleOutboxTemps } from '../queue/index.js';
import { DaemonAlreadyRunning } from './alreadyRunning.js';
import { startBridgeOf } from './bridgeStart.js';
import { FolderWatchers } from './folderWatchers.js';
import { DaemonLog } from './log.js';
import { refillSpareFiles, startSpareFiles } from '../fsx/spareFiles.js';
import { runPass } from './pass.js';
import {
  boxOf,
  currentRoles,
  newDaemonState,
  type DaemonOptions,
  type DaemonState,
} from './state.js';

/**
 * What ends a wait between passes early: a notification (another pass at once) or a stop request.
 */
class LoopSignal {
  /** Set by every notification; a pass that ran while it was set is followed at once by another. */
  dirty = false;
  stopping = false;
  private kick: () => void = () => undefined;

  notify(): void {
    this.dirty = true;
    this.kick();
  }

  stop(): void {
    this.stopping = true;
    this.kick();
  }

  /** Waits `ms`, or less when notified or stopped meanwhile; true when that ended it. */
  async sleep(ms: number): Promise<boolean> {
    const kicked = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), ms);
      this.kick = () => {
        clearTimeout(timer);
        resolve(true);
      };
    });
    this.kick = () => undefined;
    return kicked;
  }
}

function takeDaemonLock(lock: string): Release {
  try {
    return acquireLock(lock, 1);
  } catch (err) {
    if (err instanceof LockBusy) throw new DaemonAlreadyRunning(Number(err.owner.split(' ')[0]));
    throw err;
  }
}

/** Removes the daemon's own leftover temp files and every outbox/tmp file older than 36 h. */
function removeLeftovers(state: DaemonState): void {
  fs.rmSync(state.paths.tmp, { recursive: true, force: true });
  mkdirSynced(state.paths.tmp);
  const now = Date.now();
  for (const role of currentRoles(state).keys()) removeStaleOutboxTemps(boxOf(state, role), now);
}

/** Spare files for the copies' temp files (lib/fsx/spareFiles.ts): one per copy of a burst. */
const SPARES = 4;

async function loop(state: DaemonState, signal: LoopSignal, pollIntervalMs: number): Promise<void> {
  let quiet = false;
  for (let startup = true; !state.stopRequested(); startup = false) {
    signal.dirty = false;
    await runPass(state, startup, quiet);
    if (state.stopRequested()) return;
    quiet = false;
    if (signal.dirty) continue;
    // Made while nothing waits: the next copies need no new inode (lib/fsx/spareFiles.ts).
    refillSpareFiles();
    const deferred = state.policy.nextDeferred();
    // A pass after a wait that no notification ended is quiet: nothing watched changed.
    quiet = !(await signal.sleep(
      deferred === undefined
        ? pollIntervalMs
        : Math.min(pollIntervalMs, Math.max(0, deferred - Date.now())),
    ));
  }
}

/**
 * Runs the daemon until TERM/INT/stop; throws DaemonAlreadyRunning when another one holds the
 * project.
 */
export async function runHandoffd(options: DaemonOptions): Promise<void> {
  const paths = daemonPathsOf(options.root);
  mkdirSynced(paths.dir);
  const release = takeDaemonLock(paths.lock);
  const log = new DaemonLog(paths.log, options.mirror);
  const signal = new LoopSignal();
  const watchers = new FolderWatchers(() => signal.notify());
  const state = newDaemonState(
    options,
    paths,
    log,
    () => signal.notify(),
    () => signal.stopping || fs.existsSync(paths.stop),
  );
  const onSignal = () => signal.stop();
  let stopSpares: (() => void) | undefined;
  try {
    fs.rmSync(paths.stop, { force: true });
    removeLeftovers(state);
    stopSpares = startSpareFiles(join(paths.tmp, 'spares'), SPARES);
    state.bridge = await startBridgeOf(options.root, log, () => signal.notify());
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
    watchers.watch(paths.dir, 'stop');
    log.write('started', { pid: process.pid, root: options.root });
    // The pid file comes last: once it exists, TERM and the stop sentinel are honoured.
    fs.writeFileSync(paths.pid, `${process.pid}\n`, { mode: 0o600 });
    await loop(state, signal, options.pollIntervalMs);
    await Promise.allSettled([...state.wakes]);
  } finally {
    stopSpares?.();
    await state.bridge?.close();
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
    watchers.close();
    state.listings.close();
    fs.rmSync(paths.pid, { force: true });
    fs.rmSync(paths.stop, { force: true });
    log.write('stopped', { pid: process.pid });
    log.close();
    release();
  }
}
