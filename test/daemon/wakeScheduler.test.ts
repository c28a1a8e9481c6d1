// Which roles a pass wakes, with a real tmux server on a private socket (panes run cat,
// so each wake-up shows as one echoed line).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { type Tmux } from '../../lib/adapters/tmux.js';
import { currentRoles, type DaemonState } from '../../lib/daemon/state.js';
import { inboxViewOf, scheduleWakes } from '../../lib/daemon/wakeScheduler.js';
import { WAKE_TEXT } from '../../lib/daemon/waker.js';
import { parseLogLine } from '../../lib/project/daemonRecord.js';
import { acquireLock } from '../../lib/fsx/lock.js';
import { daemonLog, daemonStateFor, startPanes, waitFor } from '../support/daemon.js';
import { copyFixture } from '../support/fixtures.js';
import { itemsIn, makeProject, placeItem, type Project } from '../support/project.js';

describe('lib/daemon/wakeScheduler', function () {
  this.timeout(30_000);
  let p: Project;
  let state: DaemonState;
  let tmux: Tmux;
  let panes: Map<string, string>;
  let kill: () => Promise<void>;
  beforeEach(async () => {
    p = makeProject();
    state = daemonStateFor(p.root);
    ({ tmux, panes, kill } = await startPanes(p.root, ['coder', 'reviewer', 'QA']));
  });
  afterEach(async () => {
    await Promise.allSettled([...state.wakes]);
    state.log.close();
    await kill();
    p.cleanup();
  });

  /**
   * Wake-ups seen in a role's pane: each shows twice, as typed (the terminal's echo) and as
   * printed back by cat. Counted in the pane's text with its line breaks taken out: a second
   * wake-up typed before cat printed the first shares that line (and wraps it).
   */
  const echoed = async (role: string) =>
    ((await tmux.capturePane(panes.get(role)!)).replaceAll('\n', '').split(WAKE_TEXT).length - 1) /
    2;
  const woke = () =>
    daemonLog(p.root)
      .map((l) => parseLogLine(l)!)
      .filter((e) => e.event === 'woke')
      .map((e) => [e.details.role, e.details.target, e.details.reason]);

  it('inboxViewOf counts the items waiting in new/ and sees work in process (a file or a batch)', async () => {
    const now = Date.now();
    assert.deepEqual(await inboxViewOf(state, 'QA', now), { waiting: 0, busy: false });
    await placeItem(p.box('QA').inboxNew, {});
    await placeItem(p.box('QA').inboxNew, {});
    fs.writeFileSync(join(p.box('QA').inboxNew, 'notes.txt'), '');
    assert.deepEqual(await inboxViewOf(state, 'QA', now), { waiting: 2, busy: false });
    fs.mkdirSync(join(p.box('reviewer').inProcess, 'batch_20260101T000000Z_000001'));
    assert.deepEqual(await inboxViewOf(state, 'reviewer', now), { waiting: 0, busy: true });
    await placeItem(p.box('coder').inProcess, {});
    assert.deepEqual(await inboxViewOf(state, 'coder', now), { waiting: 0, busy: true });
  });

  it('wakes the recipients that just received a copy in their own pane, logs each, and skips one with work in process', async () => {
    for (const role of ['reviewer', 'QA', 'coder']) await placeItem(p.box(role).inboxNew, {});
    await placeItem(p.box('QA').inProcess, {});
    await scheduleWakes(state, currentRoles(state), new Set(['reviewer', 'QA']), false, Date.now());
    await Promise.allSettled([...state.wakes]);
    await waitFor('the echoed wake-up', async () => (await echoed('reviewer')) === 1);
    assert.deepEqual(woke(), [['reviewer', panes.get('reviewer'), 'delivery']]);
    assert.deepEqual(
      [await echoed('QA'), await echoed('coder')],
      [0, 0],
      'QA is busy; coder received nothing',
    );
    assert.equal(state.wakes.size, 0, 'finished wake-ups leave the set');
  });

  it('a second delivery within 2 s is deferred, not dropped: due on the pass after the gap', async () => {
    await placeItem(p.box('reviewer').inboxNew, {});
    const t0 = Date.now();
    await scheduleWakes(state, currentRoles(state), new Set(['reviewer']), false, t0);
    await scheduleWakes(state, currentRoles(state), new Set(['reviewer']), false, t0 + 500);
    await Promise.allSettled([...state.wakes]);
    assert.equal(woke().length, 1);
    assert.equal(state.policy.nextDeferred(), t0 + 2000);
    await scheduleWakes(state, currentRoles(state), new Set(), false, t0 + 2000);
    await Promise.allSettled([...state.wakes]);
    assert.deepEqual(
      woke().map((w) => w[2]),
      ['delivery', 'delivery'],
    );
    await waitFor('two echoed wake-ups', async () => (await echoed('reviewer')) === 2);
  });

  it('looks at roles that received nothing only on an all-roles view (re-wakes of stalled recipients)', async () => {
    await placeItem(p.box('coder').inboxNew, {});
    const t0 = Date.now();
    await scheduleWakes(state, currentRoles(state), new Set(), true, t0);
    await scheduleWakes(state, currentRoles(state), new Set(), false, t0 + 61_000);
    await Promise.allSettled([...state.wakes]);
    assert.deepEqual(woke(), [], 'no view at 61 s without allViews');
    await scheduleWakes(state, currentRoles(state), new Set(), true, t0 + 61_000);
    await Promise.allSettled([...state.wakes]);
    assert.deepEqual(woke(), [['coder', panes.get('coder'), 'rewake']]);
  });

  const quarantined = () =>
    daemonLog(p.root)
      .map((l) => parseLogLine(l)!)
      .filter((e) => e.event === 'quarantined')
      .map((e) => e.details);

  it('inboxViewOf never counts an unusable entry of new/: it quarantines it into bad/ at first sight and logs it', async () => {
    const box = p.box('reviewer');
    const good = await placeItem(box.inboxNew, { priority: '50' });
    copyFixture(
      join(box.inboxNew, '00_junk.handoff'),
      'handoffs',
      'unusable',
      'control-bytes.handoff',
    );
    fs.symlinkSync(good, join(box.inboxNew, '01_link.handoff'));
    assert.deepEqual(await inboxViewOf(state, 'reviewer', Date.now()), { waiting: 1, busy: false });
    assert.deepEqual(itemsIn(box.inboxNew), [good.split('/').pop()]);
    assert.deepEqual(fs.readdirSync(box.bad).sort(), [
      '00_junk.handoff',
      '00_junk.handoff.error',
      '01_link.handoff',
      '01_link.handoff.error',
    ]);
    assert.deepEqual(quarantined(), [
      {
        role: 'reviewer',
        name: '00_junk.handoff',
        reason: "unreadable header line '\x1b]0;pwned\x07\x1b[2J\x1b[31mred\u202etxt'",
        to: join(box.bad, '00_junk.handoff'),
      },
      {
        role: 'reviewer',
        name: '01_link.handoff',
        reason: 'is a symlink',
        to: join(box.bad, '01_link.handoff'),
      },
    ]);
    assert.ok(
      daemonLog(p.root).every((line) => !/[\x00-\x1f\x7f\u202e]/.test(line)),
      'log lines carry no control characters',
    );
    assert.deepEqual(fs.readdirSync(box.locks).length > 0, true, 'the inbox lock was taken');
  });

  it('while an agent holds the inbox lock, an unusable entry is neither counted nor moved; a later view moves it', async () => {
    const box = p.box('QA');
    const junk = copyFixture(
      join(box.inboxNew, '00_junk.handoff'),
      'handoffs',
      'unusable',
      'no-id.handoff',
    );
    const release = acquireLock(box.inboxLock);
    try {
      assert.deepEqual(await inboxViewOf(state, 'QA', Date.now()), { waiting: 0, busy: false });
      assert.ok(fs.existsSync(junk), 'not moved without the lock');
    } finally {
      release();
    }
    assert.deepEqual(await inboxViewOf(state, 'QA', Date.now()), { waiting: 0, busy: false });
    assert.equal(fs.existsSync(junk), false);
    assert.equal(fs.readFileSync(join(box.bad, '00_junk.handoff.error'), 'utf8'), 'no id header\n');
  });

  it('a quarantine that fails (bad/ is a symlink) is logged once; the usable items are still counted, nothing is written through the link', async () => {
    const box = p.box('reviewer');
    await placeItem(box.inboxNew, { priority: '50' });
    const junk = copyFixture(
      join(box.inboxNew, '00_junk.handoff'),
      'handoffs',
      'unusable',
      'no-id.handoff',
    );
    const elsewhere = join(p.root, 'elsewhere');
    fs.mkdirSync(elsewhere);
    fs.symlinkSync(elsewhere, box.bad);
    for (let i = 0; i < 2; i++)
      assert.deepEqual(await inboxViewOf(state, 'reviewer', Date.now()), {
        waiting: 1,
        busy: false,
      });
    assert.ok(fs.existsSync(junk));
    assert.deepEqual(fs.readdirSync(elsewhere), []);
    const errors = daemonLog(p.root)
      .map((l) => parseLogLine(l)!)
      .filter((e) => e.event === 'error');
    assert.deepEqual(
      errors.map((e) => [e.details.what, e.details.role, e.details.problem]),
      [['quarantine', 'reviewer', `refusing mailbox folder '${box.bad}': is a symlink`]],
    );
  });

  it('no wake-up and no re-wake for a role whose only mail is unusable', async () => {
    copyFixture(
      join(p.box('coder').inboxNew, '00_junk.handoff'),
      'handoffs',
      'unusable',
      'no-header.handoff',
    );
    await placeItem(p.box('QA').inboxNew, {});
    const t0 = Date.now();
    await scheduleWakes(state, currentRoles(state), new Set(['QA']), true, t0);
    await Promise.allSettled([...state.wakes]);
    await scheduleWakes(state, currentRoles(state), new Set(), true, t0 + 61_000);
    await Promise.allSettled([...state.wakes]);
    assert.deepEqual(
      woke().map((w) => [w[0], w[2]]),
      [
        ['QA', 'delivery'],
        ['QA', 'rewake'],
      ],
    );
    assert.equal(await echoed('coder'), 0);
  });
});
