// Black-box tests of the launcher (`baton up` / `baton down`), the monitor and the demo,
// with real git worktrees, a real tmux server and the scripted agent.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { join, resolve } from 'node:path';
import { waitFor } from '../support/daemon.js';
import { fixtureText } from '../support/fixtures.js';
import {
  git,
  itemsIn,
  makeProject,
  noteDraft,
  runBin,
  runBinAsync,
  writeDraft,
} from '../support/project.js';

/** coder → reviewer → qa (batch) → coder, each a scripted agent. */
const CONF = fixtureText('conf', 'scripted-pipeline.conf');

/** True while the process runs (a zombie not yet reaped counts as gone). */
function running(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z /.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

function processesMentioning(text: string): string[] {
  const out = execFileSync('ps', ['-eo', 'pid,args'], { encoding: 'utf8' });
  return out.split('\n').filter((l) => l.includes(text) && !l.includes('ps -eo'));
}

describe('baton up / down / monitor / demo (built bin)', function () {
  this.timeout(120_000);

  it('up starts worktrees, panes, daemon and agents that move work end to end; down leaves nothing running', async () => {
    const p = makeProject(CONF);
    let socket = '';
    try {
      const up = runBin('baton', ['up'], { cwd: p.root });
      assert.equal(up.code, 0, up.stderr);
      assert.match(
        up.stdout,
        new RegExp(
          '^SWARM UP: session baton-\\S+\\nDAEMON: pid \\d+\\n' +
            'PANE: coder %\\d+\\nPANE: reviewer %\\d+\\nPANE: qa %\\d+\\n' +
            // Baton's scripted agents are ready once launched (runtime.md §12.1).
            'READY: coder \\(baton-program, \\d+\\.\\d s\\)\\n' +
            'READY: reviewer \\(baton-program, \\d+\\.\\d s\\)\\n' +
            'READY: qa \\(baton-program, \\d+\\.\\d s\\)\\nATTACH: baton attach',
        ),
      );
      socket = fs.readFileSync(join(p.root, '.swarmforge', 'tmux-socket'), 'utf8').trim();
      const panes = fs.readFileSync(join(p.root, '.swarmforge', 'panes.tsv'), 'utf8');
      assert.match(panes, /^coder\t%\d+\nreviewer\t%\d+\nqa\t%\d+\n$/);
      for (const wt of ['review', 'qa'])
        assert.ok(fs.existsSync(join(p.root, '.worktrees', wt, '.git')), wt);
      assert.match(git(p.root, 'worktree', 'list'), /\.worktrees\/review/);
      assert.doesNotMatch(
        git(p.root, 'status', '--porcelain', '--untracked-files=all'),
        /\.swarmforge|\.worktrees/,
        '.swarmforge/ and .worktrees/ are excluded from git',
      );
      const again = runBin('baton', ['up'], { cwd: p.root });
      assert.equal(again.code, 2);
      assert.match(again.stderr, /already up/);

      const draft = writeDraft(p.root, noteDraft('coder', 'task-1'), 'seed.txt');
      assert.equal(runBin('swarm_handoff', [draft], { role: 'coder', cwd: p.root }).code, 0);
      await waitFor(
        'the task to come back from qa',
        () => itemsIn(p.box('coder').completed).length === 2,
        60_000,
      );
      assert.equal(itemsIn(p.box('reviewer').completed).length, 1);

      const monitor = runBin('baton', ['monitor', '--once', '--json'], { cwd: p.root });
      assert.equal(monitor.code, 0, monitor.stderr);
      const view = JSON.parse(monitor.stdout) as {
        daemon: { running: boolean; delivered: number };
        roles: {
          role: string;
          pane_state: string;
          completed: number;
          last_delivery_at: string | null;
        }[];
      };
      assert.equal(view.daemon.running, true);
      assert.ok(view.daemon.delivered >= 4);
      assert.deepEqual(
        view.roles.map((r) => r.role),
        ['coder', 'reviewer', 'qa'],
      );
      assert.ok(
        view.roles.every((r) => r.pane_state === 'node'),
        JSON.stringify(view.roles),
      );
      assert.ok(view.roles.every((r) => r.last_delivery_at !== null));
      const text = runBin('baton', ['monitor', '--once'], { cwd: p.root });
      assert.match(text.stdout, /handoffd: running \(pid \d+\)/);
      assert.match(text.stdout, /\ncoder\s+node\s+0\s+0\s+2\s/);

      const down = runBin('baton', ['down'], { cwd: p.root });
      assert.equal(down.code, 0, down.stderr);
      assert.match(down.stdout, /^SWARM DOWN: daemon pid \d+ stopped\n$/);
      assert.equal(fs.existsSync(socket), false);
      assert.equal(fs.existsSync(join(p.root, '.swarmforge', 'panes.tsv')), false);
      assert.ok(fs.existsSync(join(p.root, '.swarmforge', 'roles.tsv')));
      assert.ok(fs.existsSync(join(p.root, '.worktrees', 'review')));
      await waitFor('no process left', () => processesMentioning(p.root).length === 0, 10_000);
      const status = runBin('baton', ['daemon', 'status'], { cwd: p.root });
      assert.deepEqual([status.code, status.stdout], [3, 'DAEMON NOT RUNNING\n']);
    } finally {
      runBin('baton', ['daemon', 'stop', '--timeout', '2'], { cwd: p.root });
      if (socket) spawnSync('tmux', ['-S', socket, 'kill-server'], { stdio: 'ignore' });
      p.cleanup();
    }
  });

  it("refuses to start when a role's agent is not on PATH, before anything starts", () => {
    const p = makeProject('window coder no-such-agent-xyz master\n');
    try {
      const r = runBin('baton', ['up'], { cwd: p.root });
      assert.deepEqual(
        [r.code, r.stderr],
        [1, "baton: agent 'no-such-agent-xyz' of role coder is not on PATH\n"],
      );
      assert.equal(fs.existsSync(join(p.root, '.swarmforge', 'tmux-socket')), false);
      assert.equal(fs.existsSync(join(p.root, '.swarmforge', 'daemon', 'handoffd.pid')), false);
    } finally {
      p.cleanup();
    }
  });

  it('daemon start / status / stop', async () => {
    const p = makeProject();
    try {
      const start = runBin('baton', ['daemon', 'start'], { cwd: p.root });
      assert.equal(start.code, 0, start.stderr);
      const pid = Number(/^DAEMON STARTED: pid (\d+)\n$/.exec(start.stdout)![1]);
      const status = runBin('baton', ['daemon', 'status', '--json'], { cwd: p.root });
      assert.equal((JSON.parse(status.stdout) as { pid: number }).pid, pid);
      const again = runBin('baton', ['daemon', 'start'], { cwd: p.root });
      assert.equal(again.code, 1);
      assert.match(again.stderr, new RegExp(`already running as pid ${pid}`));
      const stop = runBin('baton', ['daemon', 'stop'], { cwd: p.root });
      assert.equal(stop.stdout, `DAEMON STOPPED: pid ${pid}\n`);
      await waitFor('the daemon process to be gone', () => !running(pid), 10_000);
      assert.equal(
        runBin('baton', ['daemon', 'stop'], { cwd: p.root }).stdout,
        'DAEMON NOT RUNNING\n',
      );
    } finally {
      runBin('baton', ['daemon', 'stop', '--timeout', '2'], { cwd: p.root });
      p.cleanup();
    }
  });

  it('the demo pushes tasks end to end, prints the timeline and leaves nothing behind', async () => {
    const before = new Set(fs.readdirSync('/tmp').filter((n) => n.startsWith('baton-demo-')));
    const r = await runBinAsync('baton', ['demo', '--tasks', '2'], { cwd: process.cwd() });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /progress: coder 4\/4 {2}reviewer 2\/2 {2}qa 2\/2\n/);
    assert.match(r.stdout, /Handoff timeline \(created → enqueued → dequeued → completed\):/);
    assert.equal(
      r.stdout.split('\n').filter((l) => /^(coder|reviewer|qa)\s+\S.*ms$/.test(l)).length,
      8,
    );
    assert.match(
      r.stdout,
      /8 handoffs completed; 2 tasks went coder → reviewer → qa → coder in \d+ ms\./,
    );
    const project = /^Demo project: (\S+)$/m.exec(r.stdout)![1]!;
    assert.equal(fs.existsSync(project), false);
    assert.deepEqual(
      fs.readdirSync('/tmp').filter((n) => n.startsWith('baton-demo-') && !before.has(n)),
      [],
    );
    assert.deepEqual(processesMentioning(project), []);
  });

  it('the review demo: two teachers review two tasks end to end, one accepted, one failed with its finding; summary with verdicts, scores and timings', async () => {
    const r = await runBinAsync('baton', ['demo', '--review'], { cwd: process.cwd() });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /progress: coder 4\/4 {2}teacher-cto 2\/2 {2}teacher-coo 2\/2\n/);
    for (const lens of ['cto', 'coo'])
      assert.match(
        r.stdout,
        new RegExp(
          `\\nTEACHER: ${lens} as teacher-${lens} .*, persona ${resolve('personas')}/teacher-${lens}\\.md\\n`,
        ),
        'the shipped persona files',
      );
    assert.match(
      r.stdout,
      /Review summary \(times from submit\):\nBEAD +TASK +CTO +COO +ACCEPTED +CTO VERDICT +COO VERDICT +RESULT READ\n/,
    );
    const rows = r.stdout
      .split('\n')
      .filter((l) => /^coder-general-[0-9a-f]{8} /.test(l))
      .map((l) =>
        l
          .split(/ {2,}| (?=\d+ ms)/)
          .map((c) => c.trim())
          .filter(Boolean),
      );
    const byTask = Object.fromEntries(rows.map((cells) => [cells[1], cells.slice(2, 5)]));
    assert.deepEqual(byTask, {
      'task-1': ['PASS 100', 'PASS 100', 'yes'],
      'task-2': ['FAIL 88', 'PASS 100', 'no'],
    });
    for (const cells of rows)
      assert.equal(cells.slice(5).filter((c) => /^\d+ ms$/.test(c)).length, 3, cells.join('|'));
    assert.match(
      r.stdout,
      /\n {2}finding: cto HIGH security: the session token is written to the log\n/,
    );
    assert.match(
      r.stdout,
      /\n2 beads reviewed by a CTO and a COO teacher: 1 accepted, 1 failed; every result reached coder; scored and disposed in \d+ ms\.\n/,
    );
    const project = /^Demo project: (\S+)$/m.exec(r.stdout)![1]!;
    assert.equal(fs.existsSync(project), false);
    assert.deepEqual(processesMentioning(project), []);
  });

  it('the run demo: the controller drives a run through a failed and a clean review cycle to the approval gate; approved; history and artifact hashes printed', async () => {
    const r = await runBinAsync('baton', ['demo', '--run'], { cwd: process.cwd() });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    // The demo polls the status, so a loaded machine may skip a short state; what it shows keeps the run's order and ends at the gate, then COMPLETED.
    const order = [
      'run: ACTIVE/IDLE cycle 1',
      'run: ACTIVE/STAGE_ACTIVE cycle 1',
      'run: ACTIVE/REVIEW_PENDING cycle 1',
      'run: ACTIVE/FINDINGS_PENDING cycle 1',
      'run: ACTIVE/REVIEW_PENDING cycle 2',
      'run: WAITING_FOR_HUMAN_APPROVAL/APPROVAL_PENDING cycle 2',
      'run: COMPLETED/DONE cycle 2',
    ];
    const states = r.stdout
      .split('\n')
      .filter((l) => l.startsWith('run: '))
      .map((l) => l.split('  ').slice(0, 2).join(' '));
    assert.deepEqual(
      states.map((st) => order.indexOf(st)),
      [...states.map((st) => order.indexOf(st))].sort((a, b) => a - b),
      states.join(' | '),
    );
    assert.ok(
      states.every((st) => order.includes(st)),
      states.join(' | '),
    );
    assert.deepEqual(states.slice(-2), order.slice(-2));
    const actions = r.stdout
      .split('\n')
      .filter((l) => /^ {2}\+ *\d+ ms {2}/.test(l))
      .map((l) => l.split(/\s+/)[4]);
    assert.deepEqual(actions, [
      'start',
      'lease',
      'stage-start',
      'acceptance',
      'checkpoint',
      'review',
      'resolve-review',
      'acceptance',
      'review',
      'approve',
    ]);
    // Cycle 1: acceptance, work, two lanes, validation, resolution, the cycle's findings;
    // cycle 2: acceptance, two lanes.
    assert.equal(r.stdout.split('\n').filter((l) => /^ {2}[0-9a-f]{16} {2}/.test(l)).length, 10);
    assert.match(r.stdout, /COMPLETED in \d+ ms: one review cycle with an Important finding/);
    const project = /^Demo project: (\S+)$/m.exec(r.stdout)![1]!;
    assert.equal(fs.existsSync(project), false);
    assert.deepEqual(processesMentioning(project), []);
  });

  it('the demo refuses a --tasks that is not a whole number of at least 1 before starting anything', () => {
    const r = runBin('baton', ['demo', '--review', '--tasks', '0'], { cwd: process.cwd() });
    assert.deepEqual([r.code, r.stdout], [1, '']);
    assert.match(r.stderr, /--tasks must be a whole number of at least 1/);
  });
});
