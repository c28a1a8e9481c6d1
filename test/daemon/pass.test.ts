// One daemon pass in process on a real project: queue order, delivery in groups, refusals,
// errors retried deep, a stop between handoffs, and what the pass records.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { GROUP_SIZE, outboxQueue, runPass } from '../../lib/daemon/pass.js';
import { currentRoles, type DaemonState } from '../../lib/daemon/state.js';
import { parseLogLine } from '../../lib/project/daemonRecord.js';
import { daemonLog, daemonStateFor, waitFor } from '../support/daemon.js';
import { itemsIn, makeProject, placeItem, type Project } from '../support/project.js';
import { spyOnStats } from '../support/fsSpy.js';

describe('lib/daemon/pass', function () {
  this.timeout(60_000);
  let p: Project;
  let state: DaemonState;
  let notified: number;
  let stop: () => boolean;
  let seq = 0;
  beforeEach(() => {
    p = makeProject();
    notified = 0;
    stop = () => false;
    state = daemonStateFor(p.root, {
      notify: () => (notified += 1),
      stopRequested: () => stop(),
    });
  });
  afterEach(async () => {
    await Promise.allSettled([...state.wakes]);
    state.log.close();
    p.cleanup();
  });

  const queue = async (from: string, to: string, priority = '50') => {
    seq += 1;
    const id = `20260615T140531Z_${String(seq).padStart(6, '0')}_from_${from}`;
    const name = `${priority}_${id}_to_${to.replace(/,/g, '_')}.handoff`;
    await placeItem(p.box(from).outbox, { id, from, to, recipient: '', priority }, 'body\n', name);
    return name;
  };
  const events = (event: string) =>
    daemonLog(p.root)
      .map((l) => parseLogLine(l)!)
      .filter((e) => e.event === event);

  it("outboxQueue: every role's outbox items, lowest name first across senders (sender breaks a tie)", async () => {
    const late = await queue('coder', 'QA', '60');
    const early = await queue('QA', 'coder', '10');
    const middle = await queue('reviewer', 'QA', '30');
    fs.writeFileSync(`${p.box('coder').outbox}/notes.txt`, 'not a handoff');
    fs.copyFileSync(`${p.box('coder').outbox}/${late}`, `${p.box('reviewer').outbox}/${late}`);
    assert.deepEqual(outboxQueue(state, currentRoles(state)), [
      { sender: 'QA', name: early },
      { sender: 'reviewer', name: middle },
      { sender: 'coder', name: late },
      { sender: 'reviewer', name: late },
    ]);
  });

  it('outboxQueue: each outbox is watched, a change starts a pass, and only the outbox that changed is looked at again', async () => {
    assert.deepEqual(outboxQueue(state, currentRoles(state)), []);
    const stats = spyOnStats(p.root);
    try {
      assert.equal(notified, 0);
      const name = await queue('QA', 'coder');
      await waitFor('the outbox watch to report the handoff', () => notified > 0);
      assert.deepEqual(outboxQueue(state, currentRoles(state)), [{ sender: 'QA', name }]);
      assert.deepEqual(
        stats.paths.filter((path) => path.endsWith('/outbox')),
        [p.box('QA').outbox],
        'the unchanged outboxes of coder and reviewer are not stat-ed',
      );
    } finally {
      stats.restore();
    }
  });

  it('outboxQueue: an unreadable outbox is logged once and the other roles are still listed', async () => {
    const name = await queue('coder', 'QA');
    fs.rmSync(p.box('QA').outbox, { recursive: true });
    fs.writeFileSync(p.box('QA').outbox, 'not a folder');
    for (let i = 0; i < 2; i++)
      assert.deepEqual(outboxQueue(state, currentRoles(state)), [{ sender: 'coder', name }]);
    assert.deepEqual(
      events('error').map((e) => [e.details.what, e.details.role]),
      [['outbox', 'QA']],
    );
  });

  it('a quiet pass after one a notification started stats every outbox once (for a dropped notification), the next quiet pass none', async () => {
    await runPass(state, false, true); // the watches start
    await runPass(state, false); // as after a notification
    const spy = spyOnStats(p.root);
    const outboxesStated = (from: number) =>
      spy.paths
        .slice(from)
        .filter((path) => path.endsWith('/outbox'))
        .sort();
    try {
      await runPass(state, false, true);
      assert.deepEqual(
        outboxesStated(0),
        ['coder', 'reviewer', 'QA'].map((r) => p.box(r).outbox).sort(),
      );
      const before = spy.paths.length;
      await runPass(state, false, true);
      assert.deepEqual(outboxesStated(before), [], 'the audit is done once');
    } finally {
      spy.restore();
    }
    state.listings.close();
  });

  it('runPass delivers a backlog larger than a group, each handoff logged once, and records the pass in health.json', async () => {
    const names: string[] = [];
    for (let i = 0; i < GROUP_SIZE + 6; i++) names.push(await queue('coder', 'reviewer'));
    const refused = await queue('coder', 'ghost');
    await runPass(state, false);
    assert.deepEqual(itemsIn(p.box('reviewer').inboxNew), names);
    assert.deepEqual(itemsIn(p.box('coder').sent), names);
    assert.deepEqual(itemsIn(p.box('coder').failed), [refused]);
    assert.deepEqual(
      events('delivered').map((e) => e.details.name),
      names,
    );
    assert.deepEqual(
      events('failed').map((e) => [e.details.name, e.details.reason]),
      [[refused, 'unknown recipient ghost']],
    );
    assert.deepEqual(
      [state.stats.delivered, state.stats.failed, state.stats.passes],
      [names.length, 1, 1],
    );
    const health = JSON.parse(fs.readFileSync(state.paths.health, 'utf8')) as {
      pid: number;
      delivered: number;
      passes: number;
    };
    assert.deepEqual([health.pid, health.delivered, health.passes], [process.pid, names.length, 1]);
  });

  it('a quiet pass (no notification since the last) stats no mailbox folder, yet a watched change is delivered', async () => {
    const folder = (path: string) => /\/(outbox|new|in_process)$/.test(path);
    const spy = spyOnStats(p.root);
    try {
      state.viewsDueAt = 0;
      await runPass(state, false, true); // the watches start, each folder is listed once
      assert.ok(spy.paths.some(folder));
      const before = spy.paths.length;
      state.viewsDueAt = 0; // every role's inbox looked at too
      await runPass(state, false, true);
      assert.deepEqual(
        spy.paths.slice(before).filter(folder),
        [],
        'a quiet pass trusts the watches of the outboxes and inboxes',
      );
      state.viewsDueAt = 0;
      await runPass(state, false);
      assert.ok(
        spy.paths.slice(before).some((path) => /\/(new|in_process)$/.test(path)),
        'a pass after a notification stats the inboxes it looks at for wake-ups',
      );
    } finally {
      spy.restore();
    }
    const name = await queue('coder', 'QA');
    const deadline = Date.now() + 5000;
    while (itemsIn(p.box('QA').inboxNew).length === 0) {
      assert.ok(Date.now() < deadline, 'the watch reported the new handoff to a quiet pass');
      await new Promise((resolve) => setTimeout(resolve, 5));
      await runPass(state, false, true);
    }
    assert.deepEqual(itemsIn(p.box('QA').inboxNew), [name]);
    state.listings.close();
  });

  it('runPass writes health.json after a pass that changed something and every 5th pass, not after every idle pass', async () => {
    const passesInHealth = () =>
      (JSON.parse(fs.readFileSync(state.paths.health, 'utf8')) as { passes: number }).passes;
    const seen: number[] = [];
    for (let i = 0; i < 6; i++) {
      await runPass(state, false);
      seen.push(passesInHealth());
    }
    assert.deepEqual(seen, [1, 1, 1, 1, 1, 6]);
    await queue('coder', 'QA');
    await waitFor('the outbox watch to report the handoff', () => notified > 0);
    await runPass(state, false);
    assert.equal(passesInHealth(), 7, 'a pass that delivered');
  });

  it('runPass records spent roles in health.json at once, whole; drops one claimed', async () => {
    const health = () =>
      JSON.parse(fs.readFileSync(state.paths.health, 'utf8')) as {
        passes: number;
        rewakes_spent: Record<string, string>;
      };
    const item = await placeItem(p.box('reviewer').inboxNew, {});
    await runPass(state, false);
    assert.deepEqual(health().rewakes_spent, {});
    // The policy told of the next 15 minutes: three re-wakes (none typed), and the last
    // one's doubled interval gone by without a claim.
    const t0 = Date.now();
    const idle = { waiting: 1, busy: false };
    for (const t of [60, 180, 420, 900])
      state.policy.decide('reviewer', idle, false, t0 + t * 1000);
    state.viewsDueAt = 0;
    await runPass(state, false);
    assert.deepEqual(Object.keys(health().rewakes_spent), ['reviewer']);
    assert.equal(health().passes, 2, 'written at once, not at the 5th pass');
    assert.equal(fs.existsSync(`${state.paths.health}.tmp`), false);
    fs.renameSync(item, `${p.box('reviewer').inProcess}/${item.split('/').pop()}`);
    state.viewsDueAt = 0;
    await runPass(state, false);
    assert.deepEqual(health().rewakes_spent, {}, 'claimed: the mark goes');
    assert.equal(health().passes, 3);
  });

  it('a stop requested between handoffs ends the pass after the handoff in progress, which is finished', async () => {
    const names = [
      await queue('coder', 'reviewer', '10'),
      await queue('coder', 'reviewer', '20'),
      await queue('coder', 'reviewer', '30'),
    ];
    stop = () => itemsIn(p.box('reviewer').inboxNew).length > 0;
    await runPass(state, false);
    assert.deepEqual(itemsIn(p.box('reviewer').inboxNew), names.slice(0, 1));
    assert.deepEqual(
      itemsIn(p.box('coder').sent),
      names.slice(0, 1),
      'the copied handoff is finished before the pass ends',
    );
    assert.deepEqual(itemsIn(p.box('coder').outbox), names.slice(1));
  });

  it('a delivery error is logged once and the handoff retried with the deep search until it goes through', async () => {
    const name = await queue('coder', 'QA');
    fs.rmSync(p.box('QA').inboxNew, { recursive: true });
    fs.symlinkSync(p.box('coder').inboxNew, p.box('QA').inboxNew);
    await runPass(state, false);
    await runPass(state, false);
    assert.deepEqual([...state.retryDeep], [`coder/${name}`]);
    assert.equal(events('error').length, 1);
    assert.match(events('error')[0]!.details.problem!, /symlink/);
    assert.deepEqual(itemsIn(p.box('coder').outbox), [name]);
    fs.rmSync(p.box('QA').inboxNew);
    await runPass(state, false);
    assert.deepEqual(itemsIn(p.box('QA').inboxNew), [name]);
    assert.deepEqual([...state.retryDeep], []);
  });

  it('wakes each recipient that just received a copy (a wake-up failure is logged, never fails the delivery)', async () => {
    await queue('coder', 'reviewer,QA');
    await runPass(state, false);
    await Promise.allSettled([...state.wakes]);
    assert.deepEqual(
      events('wake-failed')
        .map((e) => [e.details.role, e.details.reason])
        .sort(),
      [
        ['QA', 'no tmux socket file'],
        ['reviewer', 'no tmux socket file'],
      ],
    );
    assert.equal(state.stats.delivered, 1);
  });
});
