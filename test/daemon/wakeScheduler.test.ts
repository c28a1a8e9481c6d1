// Which roles a pass wakes, with a real tmux server on a private socket (panes run cat,
// so each wake-up shows as one echoed line).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { type Tmux } from '../../lib/adapters/tmux.js';
import { DaemonLog } from '../../lib/daemon/log.js';
import { currentRoles, newDaemonState, type DaemonState } from '../../lib/daemon/state.js';
import { inboxViewOf, scheduleWakes } from '../../lib/daemon/wakeScheduler.js';
import { WAKE_TEXT } from '../../lib/daemon/waker.js';
import { parseLogLine } from '../../lib/handoff/daemonRecord.js';
import { daemonPathsOf } from '../../lib/handoff/layout.js';
import { daemonLog, startPanes, waitFor } from '../support/daemon.js';
import { makeProject, placeItem, type Project } from '../support/project.js';

describe('lib/daemon/wakeScheduler', function () {
  this.timeout(30_000);
  let p: Project;
  let state: DaemonState;
  let tmux: Tmux;
  let panes: Map<string, string>;
  let kill: () => Promise<void>;
  beforeEach(async () => {
    p = makeProject();
    const paths = daemonPathsOf(p.root);
    fs.mkdirSync(paths.dir, { recursive: true });
    state = newDaemonState({ root: p.root, pollIntervalMs: 1000, rewakeIntervalS: 60 }, paths, new DaemonLog(paths.log), () => undefined, () => false);
    ({ tmux, panes, kill } = await startPanes(p.root, ['coder', 'reviewer', 'QA']));
  });
  afterEach(async () => {
    await Promise.allSettled([...state.wakes]);
    state.log.close();
    await kill();
    p.cleanup();
  });

  /** Wake-ups seen in a role's pane: each shows twice, as typed (the terminal's echo) and as printed back by cat. */
  const echoed = async (role: string) => (await tmux.capturePane(panes.get(role)!)).split('\n').filter((l) => l === WAKE_TEXT).length / 2;
  const woke = () => daemonLog(p.root).map((l) => parseLogLine(l)!).filter((e) => e.event === 'woke').map((e) => [e.details.role, e.details.target, e.details.reason]);

  it('inboxViewOf counts the items waiting in new/ and sees work in process (a file or a batch)', async () => {
    const now = Date.now();
    assert.deepEqual(inboxViewOf(state, 'QA', now), { waiting: 0, busy: false });
    await placeItem(p.box('QA').inboxNew, {});
    await placeItem(p.box('QA').inboxNew, {});
    fs.writeFileSync(join(p.box('QA').inboxNew, 'notes.txt'), '');
    assert.deepEqual(inboxViewOf(state, 'QA', now), { waiting: 2, busy: false });
    fs.mkdirSync(join(p.box('reviewer').inProcess, 'batch_20260101T000000Z_000001'));
    assert.deepEqual(inboxViewOf(state, 'reviewer', now), { waiting: 0, busy: true });
    await placeItem(p.box('coder').inProcess, {});
    assert.deepEqual(inboxViewOf(state, 'coder', now), { waiting: 0, busy: true });
  });

  it('wakes the recipients that just received a copy in their own pane, logs each, and skips one with work in process', async () => {
    for (const role of ['reviewer', 'QA', 'coder']) await placeItem(p.box(role).inboxNew, {});
    await placeItem(p.box('QA').inProcess, {});
    scheduleWakes(state, currentRoles(state), new Set(['reviewer', 'QA']), false, Date.now());
    await Promise.allSettled([...state.wakes]);
    await waitFor('the echoed wake-up', async () => (await echoed('reviewer')) === 1);
    assert.deepEqual(woke(), [['reviewer', panes.get('reviewer'), 'delivery']]);
    assert.deepEqual([await echoed('QA'), await echoed('coder')], [0, 0], 'QA is busy; coder received nothing');
    assert.equal(state.wakes.size, 0, 'finished wake-ups leave the set');
  });

  it('a second delivery within 2 s is deferred, not dropped: due on the pass after the gap', async () => {
    await placeItem(p.box('reviewer').inboxNew, {});
    const t0 = Date.now();
    scheduleWakes(state, currentRoles(state), new Set(['reviewer']), false, t0);
    scheduleWakes(state, currentRoles(state), new Set(['reviewer']), false, t0 + 500);
    await Promise.allSettled([...state.wakes]);
    assert.equal(woke().length, 1);
    assert.equal(state.policy.nextDeferred(), t0 + 2000);
    scheduleWakes(state, currentRoles(state), new Set(), false, t0 + 2000);
    await Promise.allSettled([...state.wakes]);
    assert.deepEqual(woke().map((w) => w[2]), ['delivery', 'delivery']);
    await waitFor('two echoed wake-ups', async () => (await echoed('reviewer')) === 2);
  });

  it('looks at roles that received nothing only on an all-roles view (re-wakes of stalled recipients)', async () => {
    await placeItem(p.box('coder').inboxNew, {});
    const t0 = Date.now();
    scheduleWakes(state, currentRoles(state), new Set(), true, t0);
    scheduleWakes(state, currentRoles(state), new Set(), false, t0 + 61_000);
    await Promise.allSettled([...state.wakes]);
    assert.deepEqual(woke(), [], 'no view at 61 s without allViews');
    scheduleWakes(state, currentRoles(state), new Set(), true, t0 + 61_000);
    await Promise.allSettled([...state.wakes]);
    assert.deepEqual(woke(), [['coder', panes.get('coder'), 'rewake']]);
  });
});
