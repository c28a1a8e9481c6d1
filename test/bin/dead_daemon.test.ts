// A handoffd killed with SIGKILL leaves its pid file, log and health.json behind. The built
// bins must not take those for a running daemon: baton status and the monitor say it is not
// running (and how to start it), the monitor shows the killed run's last problem as that
// run's, doctor reports the mail waiting in outboxes, and swarm_handoff still queues but
// warns on stderr.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { daemonPathsOf } from '../../lib/project/layout.js';
import {
  daemonLog,
  startHandoffd,
  stopHandoffd,
  waitFor,
  type DaemonChild,
} from '../support/daemon.js';
import {
  itemsIn,
  makeProject,
  noteDraft,
  runBin,
  writeDraft,
  type Project,
} from '../support/project.js';

const NOT_RUNNING = 'handoffd is not running: start it with baton daemon start';

describe('a dead handoffd is visible (built bins)', function () {
  this.timeout(60_000);
  let p: Project;
  let daemon: DaemonChild;
  let pid: number;
  let problem: string;

  before(async () => {
    p = makeProject();
    daemon = await startHandoffd(p.root, ['--poll-interval', '100']);
    pid = daemon.child.pid!;
  });
  after(async () => {
    if (daemon.child.exitCode === null && daemon.child.signalCode === null)
      await stopHandoffd(p.root, daemon);
    p.cleanup();
  });

  it('while it runs: status names its pid, swarm_handoff queues without a warning', async () => {
    const sent = runBin('swarm_handoff', [writeDraft(p.root, noteDraft('reviewer'))], {
      role: 'coder',
      cwd: p.root,
    });
    assert.deepEqual([sent.code, sent.stderr], [0, '']);
    await waitFor(
      'the delivery and its failed wake-up (no tmux here) logged',
      () =>
        daemonLog(p.root).some((l) => / wake-failed /.test(l)) &&
        itemsIn(p.box('coder').outbox).length === 0,
    );
    problem = daemonLog(p.root).find((l) => / wake-failed /.test(l))!;
    await waitFor('health.json written', () => fs.existsSync(daemonPathsOf(p.root).health));
    const status = runBin('baton', ['status'], { cwd: p.root });
    assert.match(
      status.stdout,
      new RegExp(`\\n\\nhandoffd: running \\(pid ${pid}\\), last pass \\d+s ago\\n$`),
    );
  });

  describe('after kill -9', () => {
    before(async () => {
      process.kill(pid, 'SIGKILL');
      await daemon.exited;
      assert.ok(fs.existsSync(daemonPathsOf(p.root).pid), 'the pid file is left behind');
    });

    it('baton status ends with a line saying handoffd is not running and how to start it; --json has a daemon object', () => {
      const text = runBin('baton', ['status'], { cwd: p.root });
      assert.equal(text.code, 0, text.stderr);
      assert.ok(text.stdout.endsWith(`\n\n${NOT_RUNNING}\n`), text.stdout);
      const json = JSON.parse(runBin('baton', ['status', '--json'], { cwd: p.root }).stdout) as {
        daemon: { running: boolean; pid: number | null; last_pass_at: string | null };
      };
      assert.equal(json.daemon.running, false);
      assert.equal(json.daemon.pid, null);
      assert.match(json.daemon.last_pass_at ?? '', /^\d{4}-\d\d-\d\dT/);
    });

    it('swarm_handoff still queues (exit 0, stdout unchanged) and adds exactly one stderr line', () => {
      const sent = runBin('swarm_handoff', [writeDraft(p.root, noteDraft('reviewer'))], {
        role: 'coder',
        cwd: p.root,
      });
      assert.equal(sent.code, 0);
      assert.match(sent.stdout, /^HANDOFF QUEUED: \S+\/coder\/outbox\/50_\S+\.handoff\n$/);
      assert.equal(sent.stderr, `${NOT_RUNNING}\n`);
      assert.equal(itemsIn(p.box('coder').outbox).length, 1);
    });

    it('baton doctor reports the outbox mail nothing delivers, with the fix', () => {
      const r = runBin('baton', ['doctor'], { cwd: p.root });
      assert.deepEqual(
        [r.code, r.stdout],
        [
          2,
          `PROBLEM: ${p.box('coder').outbox}: 1 handoff waiting for delivery, and handoffd is not running\n  fix: start handoffd: baton daemon start (or baton up)\n`,
        ],
      );
    });

    it("the monitor says it is not running and shows the killed run's last problem as that run's, not as current (text and --json)", () => {
      const text = runBin('baton', ['monitor', '--once'], { cwd: p.root });
      assert.equal(text.code, 0, text.stderr);
      const lines = text.stdout.split('\n');
      assert.equal(lines[1], 'handoffd: NOT RUNNING: start it with baton daemon start');
      assert.match(
        lines[2]!,
        new RegExp(
          `^previous run \\(pid ${pid}\\): started \\S+ ago, ended without logging stopped \\(killed or crashed\\)$`,
        ),
      );
      assert.equal(lines[3], `previous run's last problem: ${problem}`);
      assert.doesNotMatch(text.stdout, /^last problem:/m);
      const view = JSON.parse(
        runBin('baton', ['monitor', '--once', '--json'], { cwd: p.root }).stdout,
      ) as {
        daemon: {
          running: boolean;
          pid: number | null;
          last_error: string | null;
          previous_run: { pid: string; stopped_at: string | null; last_error: string | null };
        };
      };
      assert.deepEqual(
        [view.daemon.running, view.daemon.pid, view.daemon.last_error],
        [false, null, null],
      );
      assert.deepEqual(
        [
          view.daemon.previous_run.pid,
          view.daemon.previous_run.stopped_at,
          view.daemon.previous_run.last_error,
        ],
        [String(pid), null, problem],
      );
    });
  });
});
