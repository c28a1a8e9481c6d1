// The swarm-level baton commands: light checks of what needs no swarm (the launcher itself
// is tested end to end in test/bin/swarm.test.ts).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { SWARM_COMMANDS } from '../../lib/cli/swarmCommands.js';
import { makeProject, runBin, tempDir, type Project } from '../support/project.js';

describe('lib/cli/swarmCommands', function () {
  this.timeout(30_000);

  it('exports daemon, up, down, restart, share, attach, monitor and demo, each described in baton --help', () => {
    assert.deepEqual(
      SWARM_COMMANDS.map((c) => c.command),
      ['daemon <action>', 'up', 'down', 'restart <role>', 'share', 'attach', 'monitor', 'demo'],
    );
    const help = runBin('baton', ['--help'], { cwd: process.cwd() });
    for (const c of SWARM_COMMANDS)
      assert.ok(help.stdout.includes(`baton ${c.command as string}`), c.command as string);
  });

  it("baton daemon status outside a project exits 1 with the protocol's line and the baton init hint", () => {
    const cwd = tempDir();
    try {
      const r = runBin('baton', ['daemon', 'status'], { cwd });
      assert.deepEqual(
        [r.code, r.stdout, r.stderr],
        [
          1,
          '',
          'Cannot find SwarmForge project root\n' +
            "Run 'baton init' in your project's git repository (where swarmforge/swarmforge.conf is), then run this command inside it.\n",
        ],
      );
    } finally {
      fs.rmSync(cwd, { recursive: true, force: true });
    }
  });

  it('baton daemon with an unknown action is a usage error (exit 1)', () => {
    const r = runBin('baton', ['daemon', 'bogus'], { cwd: process.cwd() });
    assert.equal(r.code, 1);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /Choices: "start", "stop", "status"/);
  });

  describe('in a project with nothing running', () => {
    let p: Project;
    before(() => {
      p = makeProject();
    });
    after(() => p.cleanup());

    it('daemon status --json: not running, exit 3', () => {
      const r = runBin('baton', ['daemon', 'status', '--json'], { cwd: p.root });
      assert.equal(r.code, 3);
      assert.deepEqual(JSON.parse(r.stdout), {
        running: false,
        pid: null,
        last_pass_at: null,
        passes: 0,
        delivered: 0,
        failed: 0,
        errors: 0,
      });
    });

    it('daemon stop --json: stopped false, exit 0', () => {
      const r = runBin('baton', ['daemon', 'stop', '--json'], { cwd: p.root });
      assert.deepEqual([r.code, r.stdout], [0, '{"stopped":false}\n']);
    });

    it('monitor --once prints one view (text or JSON) and exits', () => {
      const text = runBin('baton', ['monitor', '--once'], { cwd: p.root });
      assert.equal(text.code, 0, text.stderr);
      assert.match(
        text.stdout,
        /^Baton monitor {2}\S+\nhandoffd: NOT RUNNING: start it with baton daemon start\n\nROLE /,
      );
      assert.doesNotMatch(text.stdout, /\x1b/, 'no screen clearing with --once');
      const json = runBin('baton', ['monitor', '--once', '--json'], { cwd: p.root });
      const view = JSON.parse(json.stdout) as {
        daemon: { running: boolean };
        roles: { role: string; pane_state: string }[];
      };
      assert.equal(view.daemon.running, false);
      assert.deepEqual(
        view.roles.map((r) => [r.role, r.pane_state]),
        [
          ['coder', 'no pane'],
          ['reviewer', 'no pane'],
          ['QA', 'no pane'],
        ],
      );
    });

    it('attach says the swarm is not up (exit 1); down stops nothing and says so (exit 0)', () => {
      const attach = runBin('baton', ['attach'], { cwd: p.root });
      assert.deepEqual(
        [attach.code, attach.stderr],
        [
          1,
          `baton: the swarm is not up in '${p.root}' (no .swarmforge/tmux-socket); run baton up\n`,
        ],
      );
      const down = runBin('baton', ['down'], { cwd: p.root });
      assert.deepEqual(
        [down.code, down.stdout, down.stderr],
        [0, 'SWARM DOWN: nothing was running\n', ''],
      );
    });
  });
});
