// swarmUp and swarmDown in process, with a real tmux server, the real daemon and real git
// worktrees: what up refuses before it starts anything, what it takes back when a later
// step fails (BATON_FAIL_AT), and what down stops. The launcher end to end, with agents, is
// tested on the built bins in test/bin/swarm.test.ts and test/bin/baton_up.test.ts.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { Tmux } from '../../lib/adapters/tmux.js';
import { startDaemon, stopDaemon } from '../../lib/daemon/control.js';
import { runningDaemon } from '../../lib/project/daemonRecord.js';
import { CommandFailure } from '../../lib/fsx/commandFailure.js';
import { initProject } from '../../lib/admin/init.js';
import {
  launchHoldsDirOf,
  panesFileOf,
  rolesPathOf,
  sessionNameOf,
  socketFileOf,
  swarmDirOf,
  tmuxSocketPathFor,
} from '../../lib/project/layout.js';
import { swarmDown, swarmUp, type DaemonControl } from '../../lib/swarm/up.js';
import { BIN_DIR, git, makeRepo, tempDir } from '../support/project.js';

const CONF = 'window coder baton-scripted-agent master\nwindow QA baton-scripted-agent qa batch\n';

describe('lib/swarm/up', function () {
  this.timeout(60_000);
  let root: string;
  const daemon: DaemonControl = {
    start: (r, extraArgs) =>
      startDaemon({ root: r, handoffdPath: join(BIN_DIR, 'handoffd.js'), extraArgs }),
    stop: async (r) => (await stopDaemon(r))?.pid,
  };
  const options = { binDir: BIN_DIR, daemon, daemonArgs: ['--poll-interval', '200'] };
  beforeEach(() => {
    root = makeRepo(CONF);
  });
  afterEach(async () => {
    delete process.env.BATON_FAIL_AT;
    await stopDaemon(root, 2000);
    await new Tmux(tmuxSocketPathFor(root)).killServer();
    fs.rmSync(root, { recursive: true, force: true });
  });

  const serverRuns = async () =>
    await new Tmux(tmuxSocketPathFor(root)).listPanes().then(
      () => true,
      () => false,
    );
  const branches = () => git(root, 'branch', '--format=%(refname:short)').split('\n').sort();

  for (const step of ['up:panes-started', 'up:daemon-started', 'up:agents-launched']) {
    it(`a failure at ${step} takes back the tmux server, the daemon, their files and the worktree it created`, async () => {
      process.env.BATON_FAIL_AT = step;
      await assert.rejects(swarmUp(root, options), {
        message: `failing at ${step} (BATON_FAIL_AT)`,
      });
      assert.equal(await serverRuns(), false, 'no tmux server left');
      assert.equal(fs.existsSync(tmuxSocketPathFor(root)), false);
      assert.equal(runningDaemon(root), undefined, 'no daemon left');
      for (const file of [socketFileOf(root), panesFileOf(root), launchHoldsDirOf(root)])
        assert.equal(fs.existsSync(file), false, file);
      assert.equal(
        fs.existsSync(join(root, '.worktrees', 'qa')),
        false,
        'the worktree it created is gone',
      );
      assert.deepEqual(branches(), ['main'], 'and so is its branch');
      assert.ok(
        fs.existsSync(rolesPathOf(root)),
        'roles.tsv and mailboxes (what baton init writes) stay',
      );
      delete process.env.BATON_FAIL_AT;
      const swarm = await swarmUp(root, options);
      assert.equal(swarm.session, sessionNameOf(root), 'a second up succeeds');
    });
  }

  it('reuses a daemon that already runs, and a failure later leaves it running', async () => {
    initProject(root);
    const pid = await daemon.start(root, []);
    process.env.BATON_FAIL_AT = 'up:panes-started';
    await assert.rejects(swarmUp(root, options));
    assert.equal(runningDaemon(root), pid);
    delete process.env.BATON_FAIL_AT;
    assert.equal((await swarmUp(root, options)).daemonPid, pid);
  });

  it('refuses a repository without a commit before it creates anything, naming the command that makes one', async () => {
    const bare = tempDir();
    try {
      git(bare, 'init', '-q', '-b', 'main');
      fs.mkdirSync(join(bare, 'swarmforge'));
      fs.writeFileSync(join(bare, 'swarmforge', 'swarmforge.conf'), CONF);
      await assert.rejects(
        swarmUp(bare, options),
        (err: unknown) =>
          err instanceof CommandFailure &&
          /has no commit yet.*git commit --allow-empty/.test(err.lines[0]!),
      );
      assert.equal(fs.existsSync(swarmDirOf(bare)), false);
      assert.equal(
        await new Tmux(tmuxSocketPathFor(bare)).listPanes().then(
          () => true,
          () => false,
        ),
        false,
      );
    } finally {
      fs.rmSync(bare, { recursive: true, force: true });
    }
  });

  describe('with a roster (swarmforge/nodes.conf)', () => {
    beforeEach(() => {
      fs.writeFileSync(
        join(root, 'swarmforge', 'nodes.conf'),
        'swarm demo\nnats nats://127.0.0.1:4222\nnode laptop coder\nnode server QA\n',
      );
      delete process.env.BATON_NODE;
    });
    afterEach(() => {
      delete process.env.BATON_NODE;
    });

    it("starts windows and worktrees only for the local node's roles; roles.tsv, the mailboxes and nodes.tsv hold every role", async () => {
      process.env.BATON_NODE = 'laptop';
      const swarm = await swarmUp(root, options);
      assert.deepEqual([...swarm.panes.keys()], ['coder']);
      const windows = (await new Tmux(tmuxSocketPathFor(root)).listPanes(swarm.session)).map(
        (p) => p.window,
      );
      assert.deepEqual(windows.sort(), ['coder', 'monitor']);
      assert.equal(
        fs.existsSync(join(root, '.worktrees', 'qa')),
        false,
        "no worktree for the other node's role",
      );
      assert.deepEqual(branches(), ['main']);
      assert.deepEqual(
        fs
          .readFileSync(rolesPathOf(root), 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => l.split('\t')[0]),
        ['coder', 'QA'],
      );
      assert.ok(
        fs.existsSync(join(swarmDirOf(root), 'handoffs', 'QA', 'outbox')),
        'a local draft may still address QA',
      );
      assert.equal(
        fs.readFileSync(join(swarmDirOf(root), 'nodes.tsv'), 'utf8'),
        'coder\tlaptop\nQA\tserver\n',
      );
    });

    it('refuses an unknown local node before it creates anything', async () => {
      await assert.rejects(
        swarmUp(root, options),
        (err: unknown) =>
          err instanceof CommandFailure &&
          err.kind === 'environment' &&
          err.lines.join('\n') ===
            'local node unknown: set BATON_NODE or run baton init --node NAME',
      );
      process.env.BATON_NODE = 'desktop';
      await assert.rejects(swarmUp(root, options), {
        message: 'local node unknown: set BATON_NODE or run baton init --node NAME',
      });
      assert.equal(fs.existsSync(swarmDirOf(root)), false);
      assert.equal(await serverRuns(), false);
      assert.equal(runningDaemon(root), undefined);
    });
  });

  it('down: nothing running; a server left without its socket file; then a whole swarm', async () => {
    assert.deepEqual(await swarmDown(root, daemon), { daemon: undefined, server: false });
    const tmux = new Tmux(tmuxSocketPathFor(root));
    fs.mkdirSync(swarmDirOf(root), { recursive: true });
    await tmux.newSession({ name: 'leftover', window: 'w', cwd: root });
    assert.deepEqual(await swarmDown(root, daemon), { daemon: undefined, server: true });
    assert.equal(await serverRuns(), false);
    const swarm = await swarmUp(root, options);
    assert.deepEqual(await swarmDown(root, daemon), { daemon: swarm.daemonPid, server: true });
    assert.equal(runningDaemon(root), undefined);
    assert.equal(await serverRuns(), false);
  });
});
