// The monitor view of a project with a hand-written daemon log: no daemon, and no tmux
// unless a test starts a private server.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { formatLogLine } from '../../lib/project/daemonRecord.js';
import { bridgePathsOf, daemonPathsOf } from '../../lib/project/layout.js';
import { acquireLock } from '../../lib/fsx/lock.js';
import { monitorText, monitorView } from '../../lib/swarm/monitor.js';
import { writeRoster } from '../support/bridgeView.js';
import { startPanes, waitFor } from '../support/daemon.js';
import { makeProject, placeItem, type Project } from '../support/project.js';

describe('lib/swarm/monitor', function () {
  this.timeout(20_000);
  let p: Project;
  const now = Date.parse('2026-06-15T15:00:00.000Z');
  const at = (secondsAgo: number) => new Date(now - secondsAgo * 1000);
  let problem = '';
  before(async () => {
    p = makeProject();
    const paths = daemonPathsOf(p.root);
    fs.mkdirSync(paths.dir, { recursive: true });
    problem = formatLogLine(at(30), 'wake-failed', { role: 'QA', reason: 'no tmux socket file' });
    fs.writeFileSync(
      paths.log,
      [
        formatLogLine(at(3600), 'started', { pid: 1, root: p.root }),
        formatLogLine(at(600), 'delivered', {
          id: 'a',
          name: 'a.handoff',
          from: 'coder',
          to: 'reviewer,QA',
        }),
        formatLogLine(at(590), 'woke', { role: 'reviewer', target: '%1', reason: 'delivery' }),
        'a line that is not a log line',
        formatLogLine(at(120), 'error', { what: 'roles.tsv', problem: 'x' }),
        formatLogLine(at(60), 'delivered', {
          id: 'b',
          name: 'b.handoff',
          from: 'QA',
          to: 'reviewer',
        }),
        problem,
        formatLogLine(at(20), 'stopped', { pid: 1 }),
      ].join('\n') + '\n',
    );
    await placeItem(p.box('reviewer').inboxNew, {});
    await placeItem(p.box('reviewer').inboxNew, {});
    const current = await placeItem(p.box('coder').inProcess, { to: 'coder' });
    fs.utimesSync(current, at(75), at(75));
  });
  after(() => p.cleanup());

  it('monitorView: queue counts, last delivery and wake-up per role from the log, no panes, daemon not running', async () => {
    const view = await monitorView(p.root, now);
    assert.equal(view.at, '2026-06-15T15:00:00.000Z');
    assert.deepEqual(view.daemon, {
      running: false,
      pid: null,
      last_pass_at: null,
      passes: 0,
      delivered: 0,
      failed: 0,
      errors: 0,
      last_error: null,
      previous_run: {
        pid: '1',
        started_at: at(3600).toISOString(),
        stopped_at: at(20).toISOString(),
        last_error: problem,
      },
    });
    assert.deepEqual(
      view.roles.map((r) => [r.role, r.pane, r.pane_state, r.last_delivery_at, r.last_wake_at]),
      [
        ['coder', null, 'no pane', null, null],
        ['reviewer', null, 'no pane', at(60).toISOString(), at(590).toISOString()],
        ['QA', null, 'no pane', at(600).toISOString(), null],
      ],
    );
    assert.deepEqual(
      view.roles.map((r) => [r.new, r.in_process, r.in_process_s]),
      [
        [0, 1, 75],
        [2, 0, null],
        [0, 0, null],
      ],
    );
  });

  it('monitorText: NOT RUNNING and how to start it, the previous run and its last problem labelled as such, one aligned row per role, and what is in process', async () => {
    const text = monitorText(await monitorView(p.root, now));
    const lines = text.split('\n');
    assert.equal(lines[0], 'Baton monitor  2026-06-15T15:00:00.000Z');
    assert.equal(lines[1], 'handoffd: NOT RUNNING: start it with baton daemon start');
    assert.equal(lines[2], 'previous run (pid 1): started 1h00m ago, stopped 20s ago');
    assert.equal(lines[3], `previous run's last problem: ${problem}`);
    assert.equal(lines[4], '');
    assert.doesNotMatch(text, /^last problem:/m);
    assert.match(
      text,
      /\nROLE\s+PANE\s+NEW\s+IN_PROCESS\s+DONE\s+FAILED\s+WORKING_FOR\s+LAST_DELIVERY\s+LAST_WAKE\n/,
    );
    assert.match(text, /\ncoder\s+no pane\s+0\s+1\s+0\s+0\s+1m15s\s+-\s+-\n/);
    assert.match(text, /\nreviewer\s+no pane\s+2\s+0\s+0\s+0\s+-\s+1m00s ago\s+9m50s ago\n/);
    assert.match(text, /\nQA\s+no pane\s+0\s+0\s+0\s+0\s+-\s+10m00s ago\s+-\n/);
    const header = lines.find((l) => l.startsWith('ROLE'))!;
    const reviewer = lines.find((l) => l.startsWith('reviewer'))!;
    assert.equal(reviewer.indexOf('no pane'), header.indexOf('PANE'), 'columns are aligned');
    assert.match(text, /\nIn process:\n {2}coder: 50_\S+\.handoff\n$/);
  });

  it('unclaimed through every re-wake: flagged in the view, a line under the table', async () => {
    const q = makeProject();
    try {
      const item = await placeItem(q.box('QA').inboxNew, {});
      fs.utimesSync(item, at(20 * 60 + 5), at(20 * 60 + 5));
      fs.mkdirSync(daemonPathsOf(q.root).dir, { recursive: true });
      fs.writeFileSync(
        daemonPathsOf(q.root).health,
        JSON.stringify({ rewakes_spent: { QA: at(60).toISOString() } }),
      );
      const view = await monitorView(q.root, now);
      assert.deepEqual(
        view.roles.map((r) => [r.role, r.rewakes_spent, r.unclaimed_min]),
        [
          ['coder', false, null],
          ['reviewer', false, null],
          ['QA', true, 20],
        ],
      );
      const lines = monitorText(view).split('\n');
      const qa = lines.findIndex((l) => l.startsWith('QA '));
      assert.deepEqual(lines.slice(qa + 1), [
        '',
        'QA: mail unclaimed for 20 min, re-wakes spent',
        '',
      ]);
    } finally {
      q.cleanup();
    }
  });

  it("with a roster: monitorView has the bridge (env gives the local node) and monitorText its lines after the daemon's, remote roles marked in the table", async () => {
    writeRoster(p.root);
    try {
      const view = await monitorView(p.root, now, { BATON_NODE: 'a' });
      assert.deepEqual(Object.keys(view), ['at', 'daemon', 'bridge', 'roles']);
      assert.deepEqual(view.bridge, {
        node: 'a',
        connected: false,
        last_error: 'handoffd is not running',
        remote_roles: { reviewer: 'b', QA: 'b' },
        pending: {},
        unacked: {},
        stream: null,
      });
      const lines = monitorText(view).split('\n');
      assert.deepEqual(lines.slice(4, 9), [
        'bridge: node a, not connected: handoffd is not running',
        'local role coder on node a: pending -, unacked -',
        'remote role reviewer on node b: pending -, unacked -',
        'remote role QA on node b: pending -, unacked -',
        '',
      ]);
      assert.deepEqual(
        lines.slice(10, 13).map((l) => l.split(/\s{2,}/)[0]),
        ['coder', 'reviewer (on node b)', 'QA (on node b)'],
      );
      assert.equal(lines[11]!.indexOf('no pane'), lines[9]!.indexOf('PANE'), 'columns are aligned');
    } finally {
      fs.rmSync(bridgePathsOf(p.root).roster);
    }
    assert.equal(
      'bridge' in (await monitorView(p.root, now, { BATON_NODE: 'a' })),
      false,
      'no roster, no bridge key',
    );
  });

  it('shows the command of a live pane from panes.tsv and the tmux socket', async () => {
    const panes = await startPanes(p.root, ['coder']);
    try {
      await waitFor(
        'cat in the pane',
        async () => (await monitorView(p.root, now)).roles[0]!.pane_state === 'cat',
      );
      const view = await monitorView(p.root, now);
      assert.deepEqual(
        view.roles.map((r) => [r.pane, r.pane_state]),
        [
          [panes.panes.get('coder'), 'cat'],
          [null, 'no pane'],
          [null, 'no pane'],
        ],
      );
    } finally {
      await panes.kill();
      fs.rmSync(join(p.root, '.swarmforge', 'tmux-socket'));
      fs.rmSync(join(p.root, '.swarmforge', 'panes.tsv'));
    }
  });

  describe('runs in the log', () => {
    let q: Project;
    beforeEach(() => {
      q = makeProject();
      fs.mkdirSync(daemonPathsOf(q.root).dir, { recursive: true });
    });
    afterEach(() => q.cleanup());
    const writeLog = (...lines: string[]) =>
      fs.writeFileSync(daemonPathsOf(q.root).log, lines.map((l) => `${l}\n`).join(''));

    it("a run that ended without logging stopped was killed or crashed: said so, its problem labelled as the previous run's", async () => {
      const failed = formatLogLine(at(100), 'error', { what: 'pass', problem: 'EACCES' });
      writeLog(formatLogLine(at(900), 'started', { pid: 77, root: q.root }), failed);
      const view = await monitorView(q.root, now);
      assert.deepEqual(
        [view.daemon.running, view.daemon.last_error, view.daemon.previous_run],
        [
          false,
          null,
          { pid: '77', started_at: at(900).toISOString(), stopped_at: null, last_error: failed },
        ],
      );
      const lines = monitorText(view).split('\n');
      assert.deepEqual(lines.slice(1, 4), [
        'handoffd: NOT RUNNING: start it with baton daemon start',
        'previous run (pid 77): started 15m00s ago, ended without logging stopped (killed or crashed)',
        `previous run's last problem: ${failed}`,
      ]);
    });

    it("while a daemon runs, only a problem of its own run is its last problem; an earlier run's is not shown", async () => {
      const earlier = formatLogLine(at(900), 'wake-failed', {
        role: 'QA',
        reason: 'no tmux socket file',
      });
      const started = formatLogLine(at(60), 'started', { pid: process.pid, root: q.root });
      writeLog(formatLogLine(at(1000), 'started', { pid: 1, root: q.root }), earlier, started);
      const release = acquireLock(daemonPathsOf(q.root).lock);
      try {
        const quiet = await monitorView(q.root, now);
        assert.deepEqual(
          [
            quiet.daemon.running,
            quiet.daemon.pid,
            quiet.daemon.last_error,
            quiet.daemon.previous_run,
          ],
          [true, process.pid, null, null],
        );
        assert.match(
          monitorText(quiet),
          new RegExp(
            `^handoffd: running \\(pid ${process.pid}\\), last pass -, delivered 0, failed 0, errors 0\n\n`,
            'm',
          ),
        );
        assert.doesNotMatch(monitorText(quiet), /problem/);
        const now2 = formatLogLine(at(5), 'error', { what: 'roles.tsv', problem: 'x' });
        writeLog(
          formatLogLine(at(1000), 'started', { pid: 1, root: q.root }),
          earlier,
          started,
          now2,
        );
        const view = await monitorView(q.root, now);
        assert.equal(view.daemon.last_error, now2);
        assert.equal(monitorText(view).split('\n')[2], `last problem: ${now2}`);
      } finally {
        release();
      }
    });

    it('no log at all: NOT RUNNING, no previous run', async () => {
      const view = await monitorView(q.root, now);
      assert.equal(view.daemon.previous_run, null);
      assert.equal(monitorText(view).split('\n')[2], '');
    });
  });
});
