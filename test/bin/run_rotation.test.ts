// Black-box: reviewer rotation (docs/runtime.md §12.3) on the built bins in a real swarm:
// `baton run up` with the interactive stand-in (test/support/interactiveAgent.mjs, linked
// as `claude`, so rotation is on by default) in every role's pane; the test answers the
// controller's requests as the agents would (`baton run reply --key`, delivered by the real
// handoffd). Before cycle 2 the controller types `/clear` into each reviewer's pane, queues a
// nonce-bound run_rotate, and sends the review only after `baton run ack`. The controller is
// SIGKILLed right after typing the first clear (BATON_CRASH_AT=drive:rotate-cleared); the one
// restarted with --reclaim-stale sees the new session the clear started and does not type it
// again: the rotation completes once.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import { delimiter, join, resolve } from 'node:path';
import { Tmux } from '../../lib/adapters/tmux.js';
import { readItem } from '../../lib/queue/index.js';
import { readPanes, recordedSocketOf } from '../../lib/project/tmuxRecord.js';
import { mailboxOf } from '../../lib/project/layout.js';
import { processRunning } from '../../lib/fsx/processIdentity.js';
import { waitFor } from '../support/daemon.js';
import { tearDownSwarm } from '../support/deadProcess.js';
import { BIN_DIR, runBin, tempDir } from '../support/project.js';
import { runDirOf, runSwarmProject, startRun } from '../support/runs.js';

const ROLES = ['worker', 'reviewer-a', 'reviewer-b', 'validator'];

describe('reviewer rotation in a real swarm (built bins, interactive stand-ins in tmux)', function () {
  this.timeout(180_000);
  let root: string;
  let scratch: string;
  let env: Record<string, string>;
  let restarted: ChildProcess | undefined;
  beforeEach(() => {
    root = runSwarmProject(ROLES.map((r) => `window ${r} claude master`).join('\n') + '\n');
    // The replies' files: in the worktree, ignored by git (the validator's check sees no change).
    fs.appendFileSync(join(root, '.git', 'info', 'exclude'), 'evidence/\n');
    fs.mkdirSync(join(root, 'evidence'));
    scratch = tempDir();
    const bin = join(scratch, 'bin');
    fs.mkdirSync(bin);
    fs.mkdirSync(join(scratch, 'records'));
    fs.symlinkSync(resolve('test/support/interactiveAgent.mjs'), join(bin, 'claude'));
    env = {
      PATH: `${bin}${delimiter}${process.env.PATH ?? ''}`,
      BATON_STANDIN_DIR: join(scratch, 'records'),
    };
  });
  afterEach(function () {
    // A failure shows what the controller and handoffd saw.
    if (this.currentTest?.state === 'failed') {
      const runs = join(root, '.swarmforge', 'runs');
      for (const id of fs.readdirSync(runs).filter((n) => n.startsWith('run-'))) {
        const dir = join(runs, id, 'controller');
        for (const f of fs.existsSync(dir) ? fs.readdirSync(dir) : [])
          process.stderr.write(`${f}:\n${fs.readFileSync(join(dir, f), 'utf8')}\n`);
      }
      console.log(
        fs.readFileSync(join(root, '.swarmforge', 'daemon', 'handoffd.log'), 'utf8').slice(-3000),
      );
    }
    restarted?.kill('SIGKILL');
    tearDownSwarm(root);
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  /** The headers of the run's requests waiting for `role`, of `type`. */
  async function requestsFor(role: string, type: string): Promise<Record<string, string>[]> {
    const box = mailboxOf(root, role);
    const out: Record<string, string>[] = [];
    for (const dir of [box.inboxNew, box.inProcess, box.completed])
      for (const name of fs.existsSync(dir) ? fs.readdirSync(dir) : [])
        if (name.endsWith('.handoff')) {
          const h = (await readItem(join(dir, name))).headers as Record<string, string>;
          if (h.type === type) out.push(h);
        }
    return out;
  }

  /** Waits for the request of `type` to `role` whose key has `part`, and answers it. */
  async function answer(role: string, type: string, part: string, text: string): Promise<void> {
    let key = '';
    await waitFor(
      `${type} ${part} for ${role}`,
      async () => {
        key = (await requestsFor(role, type)).find((h) => h.key!.includes(part))?.key ?? '';
        return key !== '';
      },
      60_000,
    );
    // As the agent would: claim it, reply, complete it, end its turn (its Stop hook runs).
    const as = { cwd: root, role, env };
    const claimed = runBin('ready_for_next', [], as);
    assert.equal(claimed.code, 0, claimed.stderr);
    const file = join('evidence', `${role}-${type}-${part.replace(/\W/g, '')}.txt`);
    fs.writeFileSync(join(root, file), text);
    const runId = key.split('/')[0]!;
    const r = runBin('baton', ['run', 'reply', runId, '--key', key, '--file', file], as);
    assert.equal(r.code, 0, r.stderr);
    const done = runBin('done_with_current', [], as);
    assert.equal(done.code, 0, done.stderr);
    await new Tmux(recordedSocketOf(root)!).sendEnter(readPanes(root).get(role)!);
  }

  const cleared = (role: string) => {
    const file = join(scratch, 'records', `claude.${role}.events`);
    if (!fs.existsSync(file)) return 0;
    return fs
      .readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => l.includes('"event":"cleared"')).length;
  };

  it('clears each reviewer once before cycle 2 (once across a controller SIGKILL), and sends its review after baton run ack', async () => {
    const runId = await startRun(root, [], 'req-rotate');
    const up = runBin('baton', ['run', 'up', runId, '--ready-timeout', '30'], {
      cwd: root,
      env: { ...env, BATON_CRASH_AT: 'drive:rotate-cleared' },
    });
    assert.equal(up.code, 0, up.stderr);
    await answer('worker', 'run_stage', '/work/', 'the work\n');
    await answer(
      'reviewer-a',
      'run_review',
      '/c1/',
      'LANE: structured\nCYCLE: 1\nFINDING s-1 Critical leaks the token\n',
    );
    await answer('reviewer-b', 'run_review', '/c1/', 'LANE: independent\nCYCLE: 1\n');
    await answer(
      'validator',
      'run_validate',
      '/c1/',
      JSON.stringify({ cycle: 1, findings: [{ id: 's-1', valid: true, reason: 'seen' }] }),
    );
    await answer(
      'worker',
      'run_resolve',
      '/c1/',
      JSON.stringify({ cycle: 1, resolved: [{ id: 's-1', change: 'masked', tests: 'one' }] }),
    );

    // The controller types /clear into reviewer-a's pane, then is killed before it records it.
    const phaseFile = join(runDirOf(root, runId), 'controller', 'phase.json');
    const lease = join(runDirOf(root, runId), 'lease.json');
    const holder = () => (JSON.parse(fs.readFileSync(lease, 'utf8')) as { pid: number }).pid;
    const killed = holder();
    await waitFor('the clear typed into reviewer-a', () => cleared('reviewer-a') === 1, 60_000);
    await waitFor('the controller to die at drive:rotate-cleared', () => !processRunning(killed));
    const rotation = () =>
      (
        JSON.parse(fs.readFileSync(phaseFile, 'utf8')) as {
          rotations?: { role: string; clearing_at?: string; cleared_at?: string }[];
        }
      ).rotations?.find((r) => r.role === 'reviewer-a');
    assert.ok(rotation()?.clearing_at !== undefined && rotation()?.cleared_at === undefined);

    restarted = spawn(
      process.execPath,
      [join(BIN_DIR, 'baton.js'), 'run', 'drive', runId, '--reclaim-stale'],
      { cwd: root, env: { ...process.env, ...env }, stdio: 'ignore' },
    );
    let nonce = '';
    await waitFor(
      'the run_rotate for reviewer-a',
      async () => {
        nonce = (await requestsFor('reviewer-a', 'run_rotate'))[0]?.nonce ?? '';
        return nonce !== '';
      },
      60_000,
    );
    await waitFor('reviewer-b cleared', () => cleared('reviewer-b') === 1, 60_000);
    assert.deepEqual(await requestsFor('reviewer-a', 'run_review').then((r) => r.length), 1);
    const wrong = runBin('baton', ['run', 'ack', runId, '--nonce', '0'.repeat(16)], {
      cwd: root,
      role: 'reviewer-a',
      env,
    });
    assert.equal(wrong.code, 2, wrong.stderr);
    const ack = runBin('baton', ['run', 'ack', runId, '--nonce', nonce], {
      cwd: root,
      role: 'reviewer-a',
      env,
    });
    assert.equal(ack.code, 0, ack.stderr);
    await waitFor(
      "reviewer-a's review of cycle 2",
      async () =>
        (await requestsFor('reviewer-a', 'run_review')).some((h) => h.key!.includes('/c2/')),
      60_000,
    );
    assert.equal(cleared('reviewer-a'), 1, 'the clear was typed once, across the kill');
    assert.equal((await requestsFor('reviewer-a', 'run_rotate')).length, 1, 'one run_rotate');
    assert.deepEqual(
      (await requestsFor('reviewer-b', 'run_review')).filter((h) => h.key!.includes('/c2/')),
      [],
      'reviewer-b has not acknowledged: no review yet',
    );
  });
});
