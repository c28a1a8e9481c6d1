// The live monitor through the built bin: in a real tmux pane (a terminal, raw mode) it
// says how to quit and quits on q; from a pipe it quits on q too.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { Tmux } from '../../lib/adapters/tmux.js';
import { waitFor } from '../support/daemon.js';
import { BIN_DIR, makeProject, type Project } from '../support/project.js';

describe('lib/cli/liveMonitor', function () {
  this.timeout(30_000);
  let p: Project;
  let tmux: Tmux;
  beforeEach(() => {
    p = makeProject();
    tmux = new Tmux(join(p.root, 'monitor-test.sock'));
  });
  afterEach(async () => {
    await tmux.killServer();
    p.cleanup();
  });

  it('in a terminal: redraws with "Press q to quit." and ends when q is pressed', async () => {
    const pane = await tmux.newSession({
      name: 'm',
      window: 'm',
      cwd: p.root,
      env: { SWARMFORGE_ROOT: p.root },
      command: [process.execPath, join(BIN_DIR, 'baton.js'), 'monitor'],
    });
    await waitFor('the first view', async () =>
      /Press q to quit\./.test(await tmux.capturePane(pane)),
    );
    assert.match(await tmux.capturePane(pane), /Baton monitor .*\nhandoffd: NOT RUNNING/);
    const firstLine = async () =>
      (await tmux.capturePane(pane)).split('\n').find((l) => l.startsWith('Baton monitor'));
    const before = await firstLine();
    await tmux.sendLiteral(pane, 'x');
    await waitFor('a redraw after the key', async () => (await firstLine()) !== before);
    assert.equal(await tmux.hasSession('m'), true, 'another key does not quit');
    await tmux.sendLiteral(pane, 'q');
    await waitFor(
      'the monitor to end (its pane and session close)',
      async () => !(await tmux.hasSession('m')),
    );
  });

  it('from a pipe: one JSON view per line with --json, and q on stdin ends it with exit 0', async () => {
    const child = spawn(process.execPath, [join(BIN_DIR, 'baton.js'), 'monitor', '--json'], {
      cwd: p.root,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    const exited = new Promise<number | null>((resolve) =>
      child.on('exit', (code) => resolve(code)),
    );
    await waitFor('a JSON view', () => out.includes('\n'));
    assert.deepEqual(
      (JSON.parse(out.split('\n')[0]!) as { roles: { role: string }[] }).roles.map((r) => r.role),
      ['coder', 'reviewer', 'QA'],
    );
    child.stdin.write('q');
    assert.equal(await exited, 0);
  });
});
