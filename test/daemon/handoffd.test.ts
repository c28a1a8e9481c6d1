// runHandoffd in-process (protocol §8): started without awaiting, stopped by the `stop`
// sentinel (its SIGTERM/SIGINT handlers belong to the test process while it runs).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { DaemonAlreadyRunning } from '../../lib/daemon/alreadyRunning.js';
import { runHandoffd } from '../../lib/daemon/handoffd.js';
import { type DaemonOptions } from '../../lib/daemon/state.js';
import { parseLogLine, runningDaemon } from '../../lib/project/daemonRecord.js';
import { daemonPathsOf } from '../../lib/project/layout.js';
import { afterPasses, daemonLog, waitFor } from '../support/daemon.js';
import { itemsIn, makeProject, placeItem, type Project } from '../support/project.js';

describe('lib/daemon/handoffd', function () {
  this.timeout(30_000);
  let p: Project;
  let running: Promise<void> | undefined;
  let seq = 0;
  beforeEach(() => {
    p = makeProject();
  });
  afterEach(async () => {
    if (running) {
      fs.writeFileSync(daemonPathsOf(p.root).stop, '');
      await running.catch(() => undefined);
      running = undefined;
    }
    p.cleanup();
  });

  const paths = () => daemonPathsOf(p.root);
  const start = async (options: Partial<DaemonOptions> = {}) => {
    running = runHandoffd({ root: p.root, pollIntervalMs: 50, rewakeIntervalS: 60, ...options });
    await waitFor(
      'the pid file',
      () =>
        fs.existsSync(paths().pid) && fs.readFileSync(paths().pid, 'utf8') === `${process.pid}\n`,
    );
  };
  const stop = async () => {
    fs.writeFileSync(paths().stop, '');
    await running!;
    running = undefined;
  };
  const events = (event: string) =>
    daemonLog(p.root)
      .map((l) => parseLogLine(l)!)
      .filter((e) => e.event === event);
  const queue = async (from: string, to: string, priority = '50') => {
    seq += 1;
    const id = `20260615T140531Z_${String(seq).padStart(6, '0')}_from_${from}`;
    const name = `${priority}_${id}_to_${to.replace(/,/g, '_')}.handoff`;
    await placeItem(p.box(from).outbox, { id, from, to, recipient: '', priority }, 'body\n', name);
    return { id, name };
  };

  it('delivers, logs and stops on the stop sentinel: resolves, pid and stop files removed, handlers and lock released', async () => {
    const listeners = () => [process.listenerCount('SIGTERM'), process.listenerCount('SIGINT')];
    const before = listeners();
    const mirrored: string[] = [];
    await start({ mirror: (line) => mirrored.push(line) });
    assert.deepEqual(
      listeners(),
      [before[0]! + 1, before[1]! + 1],
      'TERM and INT handlers are installed before the pid file',
    );
    assert.equal(runningDaemon(p.root), process.pid);
    const { id, name } = await queue('coder', 'reviewer');
    await waitFor(
      'the delivery',
      () =>
        itemsIn(p.box('reviewer').inboxNew).includes(name) &&
        itemsIn(p.box('coder').sent).includes(name),
    );
    await waitFor('the wake-up attempt', () => events('wake-failed').length === 1);
    await stop();
    assert.equal(fs.existsSync(paths().pid), false);
    assert.equal(fs.existsSync(paths().stop), false);
    assert.deepEqual(listeners(), before);
    assert.equal(runningDaemon(p.root), undefined);
    const log = daemonLog(p.root);
    assert.deepEqual(mirrored, log, 'every log line is mirrored');
    assert.deepEqual(
      log.map((l) => parseLogLine(l)!.event),
      ['started', 'delivered', 'wake-failed', 'stopped'],
    );
    assert.deepEqual(events('started')[0]!.details, { pid: String(process.pid), root: p.root });
    assert.deepEqual(events('delivered')[0]!.details, { id, name, from: 'coder', to: 'reviewer' });
    assert.deepEqual(events('wake-failed')[0]!.details, {
      role: 'reviewer',
      reason: 'no tmux socket file',
    });
    assert.deepEqual(events('stopped')[0]!.details, { pid: String(process.pid) });
    const health = JSON.parse(fs.readFileSync(paths().health, 'utf8')) as {
      pid: number;
      delivered: number;
      failed: number;
      passes: number;
    };
    assert.deepEqual([health.pid, health.delivered, health.failed], [process.pid, 1, 0]);
    assert.ok(health.passes >= 1);
  });

  /** Calls `fn` once, when the first copy appears in `role`'s new/ (this process's event loop, as the daemon yields between handoffs). */
  const onFirstCopy = (role: string, fn: () => void): fs.FSWatcher => {
    let fired = false;
    const watcher = fs.watch(p.box(role).inboxNew, (_event, name) => {
      if (fired || !name?.endsWith('.handoff')) return;
      fired = true;
      fn();
    });
    return watcher;
  };

  it('the stop sentinel ends the run after the handoff in progress, finishing it and leaving the rest of the outbox for the next run', async () => {
    const names = [
      (await queue('coder', 'reviewer', '10')).name,
      (await queue('coder', 'reviewer', '20')).name,
      (await queue('coder', 'reviewer', '30')).name,
    ];
    // The sentinel appears as the first copy of one pass's three is linked.
    const watcher = onFirstCopy('reviewer', () => fs.writeFileSync(paths().stop, ''));
    running = runHandoffd({ root: p.root, pollIntervalMs: 50, rewakeIntervalS: 60 });
    await running;
    running = undefined;
    watcher.close();
    assert.deepEqual(itemsIn(p.box('coder').sent), names.slice(0, 1));
    assert.deepEqual(itemsIn(p.box('reviewer').inboxNew), names.slice(0, 1));
    assert.deepEqual(itemsIn(p.box('coder').outbox), names.slice(1));
    assert.deepEqual(
      events('delivered').map((e) => e.details.name),
      names.slice(0, 1),
    );
    assert.equal(fs.existsSync(paths().stop), false);
    assert.equal(events('stopped').length, 1);
  });

  it('TERM ends the run between handoffs, finishing those copied and leaving the rest of the outbox for the next run', async () => {
    const names: string[] = [];
    for (const priority of ['10', '20', '30', '40', '50', '60'])
      names.push((await queue('coder', 'reviewer', priority)).name);
    // A real SIGTERM to this process as the first copy of one pass's six is linked; the
    // daemon's handler is installed (the started line comes after it), so the signal cannot
    // end the test process. Node reads the signal on a later turn of the event loop than
    // the file event, so the daemon may copy one more handoff before it sees it.
    const watcher = onFirstCopy('reviewer', () => process.kill(process.pid, 'SIGTERM'));
    running = runHandoffd({ root: p.root, pollIntervalMs: 50, rewakeIntervalS: 60 });
    await running;
    running = undefined;
    watcher.close();
    const sent = itemsIn(p.box('coder').sent);
    assert.ok(sent.length >= 1 && sent.length <= 2, `stopped after ${sent.length} handoffs`);
    assert.deepEqual(sent, names.slice(0, sent.length));
    assert.deepEqual(
      itemsIn(p.box('reviewer').inboxNew),
      sent,
      'every handoff copied was also finished',
    );
    assert.deepEqual(itemsIn(p.box('coder').outbox), names.slice(sent.length));
    assert.equal(fs.existsSync(paths().pid), false);
  });

  it('refuses a second daemon while one runs (DaemonAlreadyRunning, naming the pid) and leaves the first untouched', async () => {
    await start();
    await assert.rejects(
      runHandoffd({ root: p.root, pollIntervalMs: 50, rewakeIntervalS: 60 }),
      (err: unknown) => {
        assert.ok(err instanceof DaemonAlreadyRunning);
        assert.equal(err.pid, process.pid);
        assert.equal(err.message, `handoffd: already running as pid ${process.pid}`);
        return true;
      },
    );
    assert.equal(fs.readFileSync(paths().pid, 'utf8'), `${process.pid}\n`);
    assert.deepEqual(events('stopped'), []);
    assert.equal(events('started').length, 1);
    const { name } = await queue('coder', 'QA');
    await waitFor('the first daemon still delivers', () =>
      itemsIn(p.box('QA').inboxNew).includes(name),
    );
    await stop();
  });

  it('removes its leftover temp files and outbox/tmp files older than 36 h at start-up, keeping fresh ones', async () => {
    fs.mkdirSync(paths().tmp, { recursive: true });
    fs.writeFileSync(join(paths().tmp, 'reviewer.50_x.handoff'), 'half a copy');
    const hours = (h: number) => new Date(Date.now() - h * 3600_000);
    const temps = {
      old: join(p.box('coder').outboxTmp, 'old.handoff.tmp'),
      older: join(p.box('QA').outboxTmp, 'older.tmp'),
      recent: join(p.box('coder').outboxTmp, 'recent.handoff.tmp'),
      fresh: join(p.box('reviewer').outboxTmp, 'fresh.tmp'),
    };
    for (const path of Object.values(temps)) fs.writeFileSync(path, 'partial');
    fs.utimesSync(temps.old, hours(37), hours(37));
    fs.utimesSync(temps.older, hours(24 * 10), hours(24 * 10));
    fs.utimesSync(temps.recent, hours(35), hours(35));
    await start();
    // Only the folder of the spare files this run makes (lib/fsx/spareFiles.ts) is there.
    assert.deepEqual(fs.readdirSync(paths().tmp), ['spares']);
    assert.deepEqual(
      Object.entries(temps)
        .filter(([, path]) => fs.existsSync(path))
        .map(([k]) => k),
      ['recent', 'fresh'],
    );
  });

  it('delivers files present at start-up lowest name first across senders, searching completed batches for copies', async () => {
    const late = await queue('coder', 'reviewer', '60');
    const early = await queue('QA', 'reviewer', '40');
    const batch = join(p.box('reviewer').completed, 'batch_20260101T000000Z_000001');
    fs.mkdirSync(batch);
    fs.copyFileSync(join(p.box('coder').outbox, late.name), join(batch, late.name));
    await start();
    await waitFor(
      'both originals sent',
      () => itemsIn(p.box('coder').sent).length === 1 && itemsIn(p.box('QA').sent).length === 1,
    );
    assert.deepEqual(
      events('delivered').map((e) => [e.details.name, e.details.to]),
      [
        [early.name, 'reviewer'],
        [late.name, 'reviewer'],
      ],
    );
    assert.deepEqual(
      itemsIn(p.box('reviewer').inboxNew),
      [early.name],
      'the copy already in a completed batch is not delivered again',
    );
  });

  it('notices a new outbox file at once (file-system notification), without waiting for the periodic pass', async () => {
    await start({ pollIntervalMs: 600_000 });
    await waitFor('the first pass', () => fs.existsSync(paths().health));
    const { name } = await queue('coder', 'reviewer');
    await waitFor('the delivery', () => itemsIn(p.box('reviewer').inboxNew).includes(name), 5_000);
    await stop(); // the stop sentinel is noticed at once too (the pass interval is 10 minutes)
  });

  it('makes spare files while idle and writes the next copy into one (no new inode on the way)', async () => {
    await start({ pollIntervalMs: 600_000 });
    const spares = () =>
      new Map(
        fs
          .readdirSync(join(paths().tmp, 'spares'))
          .map((n) => [fs.statSync(join(paths().tmp, 'spares', n)).ino, n]),
      );
    await waitFor('the spares', () => spares().size === 4);
    const before = spares();
    const { name } = await queue('coder', 'reviewer');
    const copy = join(p.box('reviewer').inboxNew, name);
    await waitFor('the delivery', () => fs.existsSync(copy), 5_000);
    assert.ok(before.has(fs.statSync(copy).ino), 'the copy is not one of the spares');
    await waitFor('the spare used made again', () => spares().size === 4);
    await stop();
    assert.deepEqual(fs.readdirSync(paths().tmp), [], 'the spares are left behind');
  });

  it("logs an unreadable outbox once and keeps delivering the other roles' mail", async () => {
    fs.rmSync(p.box('QA').outbox, { recursive: true });
    fs.writeFileSync(p.box('QA').outbox, 'not a folder');
    await start();
    const { name } = await queue('coder', 'reviewer');
    await waitFor('the delivery', () => itemsIn(p.box('reviewer').inboxNew).includes(name));
    await afterPasses(p.root, 3);
    const errors = events('error');
    assert.equal(errors.length, 1);
    assert.deepEqual([errors[0]!.details.what, errors[0]!.details.role], ['outbox', 'QA']);
    assert.match(errors[0]!.details.problem!, /ENOTDIR/);
    await stop();
  });
});
