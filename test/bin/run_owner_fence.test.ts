// Black-box: owner actions are the owner's (docs/runtime.md §11.7). From inside the swarm
// (each of the three signals alone: $SWARMFORGE_ROLE; $TMUX on the swarm's socket with a
// role's $TMUX_PANE; a role's pane process among the ancestors, environment cleared) every
// owner action is refused with exit 2, one line naming the role, nothing changed; outside it
// (and from a window the owner opens in the swarm's server) it is accepted, and the history
// entry records channel=cli.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { Tmux } from '../../lib/adapters/tmux.js';
import { waitFor } from '../support/daemon.js';
import { BIN_DIR } from '../support/project.js';
import { batonRun, makeRunRepo, ok, runDirOf, snapshotOf, startRun } from '../support/runs.js';

const OWNER_ARGS = (runId: string): string[][] => [
  ['start', '--request', 'req-2', '--task', 't', '--spec', 'spec.md', '--acceptance', 'node a'],
  ['pause', runId],
  ['resume', runId],
  ['retry', runId],
  ['request-changes', runId, '--note', 'n'],
  ['approve', runId],
  ['cancel', runId, '--reason', 'r'],
  ['fail', runId, '--reason', 'r'],
  ['answer', runId, 'yes'],
];

describe('baton run: owner actions refused from inside the swarm (built bin)', function () {
  this.timeout(120_000);
  let root: string;
  let runId: string;
  let socket: string;
  beforeEach(async () => {
    root = makeRunRepo();
    runId = await startRun(root);
    socket = join(root, '.swarmforge', 'test-tmux.sock');
    fs.writeFileSync(join(root, '.swarmforge', 'tmux-socket'), `${socket}\n`);
    fs.writeFileSync(join(root, '.swarmforge', 'panes.tsv'), 'worker\t%3\nreviewer-a\t%4\n');
  });
  afterEach(async () => {
    await new Tmux(socket).killServer().catch(() => false);
    fs.rmSync(root, { recursive: true, force: true });
  });

  /** Every owner action with `env` is refused, one line naming `role`, the runs unchanged. */
  function refusedWith(env: Record<string, string | undefined>, role: string): void {
    const runs = join(root, '.swarmforge', 'runs');
    const before = snapshotOf(runs);
    for (const args of OWNER_ARGS(runId)) {
      const r = batonRun(root, args, env);
      assert.deepEqual(
        [r.code, r.stdout, r.stderr],
        [
          2,
          '',
          `baton run ${args[0]}: ${args[0]} is the owner's decision and cannot be made ` +
            `from an agent's pane (role ${role})\n`,
        ],
        args.join(' '),
      );
    }
    assert.deepEqual(snapshotOf(runs), before, 'nothing changed');
  }

  it('$SWARMFORGE_ROLE alone: every owner action is refused, naming the role', () => {
    refusedWith({ SWARMFORGE_ROLE: 'worker' }, 'worker');
  });

  it("$TMUX on the swarm's socket with a role's $TMUX_PANE alone: refused", () => {
    refusedWith({ TMUX: `${socket},4242,0`, TMUX_PANE: '%4' }, 'reviewer-a');
  });

  it("a window of the owner's own in the swarm's server, or another tmux server: accepted", () => {
    ok(batonRun(root, ['pause', runId], { TMUX: `${socket},4242,0`, TMUX_PANE: '%9' }));
    ok(batonRun(root, ['resume', runId], { TMUX: '/tmp/elsewhere.sock,1,0', TMUX_PANE: '%3' }));
  });

  it("a role's pane among the ancestors alone (its environment cleared): refused", async () => {
    const tmux = new Tmux(socket);
    const out = join(root, 'fence.out');
    const script =
      `env -u SWARMFORGE_ROLE -u TMUX -u TMUX_PANE ${process.execPath} ` +
      `${join(BIN_DIR, 'baton.js')} run approve ${runId} >${out} 2>&1; ` +
      `echo $? >${out}.rc.tmp; mv ${out}.rc.tmp ${out}.rc`;
    // Two words or more: tmux runs sh itself, so the pane's process is that sh. It waits for a
    // line, so that panes.tsv names the pane before the approve runs. The exit code is renamed
    // into place: the shell creates a file before it writes it, and the test saw it empty.
    const pane = await tmux.newSession({
      name: 'fence',
      window: 'worker',
      cwd: root,
      command: ['sh', '-c', `read go; ${script}; exec cat`],
    });
    fs.writeFileSync(join(root, '.swarmforge', 'panes.tsv'), `worker\t${pane}\n`);
    await tmux.sendLiteral(pane, 'go');
    await tmux.sendEnter(pane);
    await waitFor('the approve in the pane to end', () => fs.existsSync(`${out}.rc`), 30_000);
    assert.equal(fs.readFileSync(`${out}.rc`, 'utf8').trim(), '2');
    assert.equal(
      fs.readFileSync(out, 'utf8'),
      "baton run approve: approve is the owner's decision and cannot be made from an " +
        "agent's pane (role worker)\n",
    );
  });

  it('outside the swarm every owner action records channel=cli in its history entry', () => {
    ok(batonRun(root, ['pause', runId]));
    ok(batonRun(root, ['resume', runId]));
    ok(batonRun(root, ['cancel', runId, '--reason', 'done with it']));
    const record = JSON.parse(
      fs.readFileSync(join(runDirOf(root, runId), 'workflow.json'), 'utf8'),
    ) as { history: { action: string; detail: string }[] };
    assert.deepEqual(
      record.history.map((h) => [h.action, h.detail.replace(/base [0-9a-f]{12}/, 'base B')]),
      [
        ['start', 'request req-1, base B; channel=cli'],
        ['pause', 'paused at once; channel=cli'],
        ['resume', 'channel=cli'],
        ['cancel', 'done with it; channel=cli'],
      ],
    );
  });
});
