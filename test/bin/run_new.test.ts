// Black-box: `baton run new` (docs/runtime.md §12.4) on the built bin. Interactive, through
// a real pseudo-terminal (a pane of a private tmux server, answers typed as keys): the
// questions, the last answers offered as defaults, the start command shown, then start and
// up. Driven by options with --yes: nothing asked; a refused start is printed as start
// prints it, with its exit code, and creates nothing.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { Tmux } from '../../lib/adapters/tmux.js';
import { waitFor } from '../support/daemon.js';
import { tearDownSwarm } from '../support/deadProcess.js';
import { BIN_DIR, runBin, tempDir } from '../support/project.js';
import { runSwarmProject, snapshotOf } from '../support/runs.js';

const runsOf = (root: string): string[] => {
  const dir = join(root, '.swarmforge', 'runs');
  return fs.existsSync(dir) ? fs.readdirSync(dir).filter((n) => n.startsWith('run-')) : [];
};

describe('baton run new (built bin)', function () {
  this.timeout(120_000);
  let root: string;
  beforeEach(() => {
    root = runSwarmProject();
  });
  afterEach(() => tearDownSwarm(root));

  it('on a terminal: asks each question, shows the start command, starts and brings the run up; the next time it offers the last answers', async () => {
    const scratch = tempDir();
    const tmux = new Tmux(join(scratch, 'tmux.sock'));
    try {
      const pane = await tmux.newSession({ name: 'owner', window: 'owner', cwd: root });
      // The whole history: start's and up's JSON statuses scroll the START: line away.
      const screen = () => tmux.run(['capture-pane', '-p', '-J', '-S', '-', '-t', pane]);
      const answer = async (question: string, text: string) => {
        await waitFor(`the question '${question}'`, async () =>
          (await screen()).trimEnd().endsWith(question),
        );
        if (text) await tmux.sendLiteral(pane, text);
        await tmux.sendEnter(pane);
      };
      const newRun = `node ${join(BIN_DIR, 'baton.js')} run new; echo "EXIT: $?"`;
      await waitFor('the shell', async () => (await screen()).trim() !== '');
      await tmux.sendLiteral(pane, newRun);
      await tmux.sendEnter(pane);
      await answer('Request id:', 'req-new');
      await answer('Task:', 'add the thing');
      await answer('Repository [.]:', '');
      await answer('Spec path:', 'spec.md');
      await answer('Acceptance command:', 'node accept.mjs');
      await answer('Base ref [HEAD]:', '');
      await answer('Worker role [worker]:', '');
      await answer('Reviewer roles (A,B) [reviewer-a,reviewer-b]:', '');
      await answer('Validator role [validator]:', '');
      await answer('Controller role [controller]:', '');
      await answer('Start this run and its swarm? [Y/n]', '');
      await waitFor('run new to end', async () => /EXIT: \d+/.test(await screen()), 60_000);
      const text = await screen();
      assert.match(text, /EXIT: 0/);
      assert.match(
        text,
        /START: baton run start --request req-new --task 'add the thing' --repo \. --spec spec\.md --acceptance 'node accept\.mjs' --base HEAD --worker worker --reviewers 'reviewer-a,reviewer-b' --validator validator --controller controller/,
      );
      const [runId] = runsOf(root);
      assert.ok(runId !== undefined, 'a run was started');
      assert.match(text, new RegExp(`UP: baton run up ${runId} --request req-new`));
      assert.ok(fs.existsSync(join(root, '.swarmforge', 'panes.tsv')), 'its swarm is up');
      const defaults = join(root, '.swarmforge', 'run-defaults.json');
      assert.equal(fs.statSync(defaults).mode & 0o777, 0o600);
      assert.equal(JSON.parse(fs.readFileSync(defaults, 'utf8')).task, 'add the thing');

      await tmux.run(['send-keys', '-t', pane, 'clear', 'Enter']);
      await tmux.sendLiteral(pane, newRun);
      await tmux.sendEnter(pane);
      await answer('Request id [req-new]:', 'req-two');
      await answer('Task [add the thing]:', '');
      for (const q of [
        'Repository [.]:',
        'Spec path [spec.md]:',
        'Acceptance command [node accept.mjs]:',
        'Base ref [HEAD]:',
        'Worker role [worker]:',
        'Reviewer roles (A,B) [reviewer-a,reviewer-b]:',
        'Validator role [validator]:',
        'Controller role [controller]:',
      ])
        await answer(q, '');
      await answer('Start this run and its swarm? [Y/n]', 'n');
      await waitFor('run new to end', async () => /EXIT: \d+/.test(await screen()));
      assert.match(await screen(), /not started; nothing was created\nEXIT: 0/);
      assert.deepEqual(runsOf(root), [runId], 'no second run');
    } finally {
      await tmux.killServer();
      fs.rmSync(scratch, { recursive: true, force: true });
    }
  });

  it('with --yes and options asks nothing; a refused start prints its refusal and exit code (1: no such spec) and creates nothing', async () => {
    const noTerminal = runBin('baton', ['run', 'new', '--request', 'r'], { cwd: root });
    assert.deepEqual(
      [noTerminal.code, noTerminal.stdout, noTerminal.stderr],
      [
        1,
        '',
        'baton run new: stdin is not a terminal: answer with the options of start and --yes\n',
      ],
    );
    const before = snapshotOf(root);
    const options = ['--request', 'req-yes', '--task', 'do it', '--acceptance', 'node accept.mjs'];
    const refused = runBin('baton', ['run', 'new', '--yes', ...options, '--spec', 'nope.md'], {
      cwd: root,
    });
    assert.equal(refused.code, 1, refused.stderr);
    const lines = refused.stderr.split('\n');
    assert.match(lines[0]!, /^baton run start: .*nope\.md/, 'start refuses as it always does');
    assert.equal(lines[1], 'baton run new: baton run start exited 1');
    assert.match(refused.stdout, /^START: baton run start --request req-yes /);
    assert.deepEqual(snapshotOf(root), before, 'nothing created');

    const r = runBin('baton', ['run', 'new', '--yes', ...options, '--spec', 'spec.md'], {
      cwd: root,
    });
    assert.equal(r.code, 0, r.stderr);
    const [runId] = runsOf(root);
    const out = r.stdout.split('\n');
    assert.equal(
      out[0],
      "START: baton run start --request req-yes --task 'do it' --repo . --spec spec.md " +
        "--acceptance 'node accept.mjs' --base HEAD --worker worker " +
        "--reviewers 'reviewer-a,reviewer-b' --validator validator --controller controller",
    );
    assert.ok(out.includes(`UP: baton run up ${runId} --request req-yes`), r.stdout);
    assert.ok(fs.existsSync(join(root, '.swarmforge', 'panes.tsv')), 'its swarm is up');
  });

  it('passes --agents-user to up: a user that does not exist stops up, the run stays started', () => {
    const options = ['--request', 'req-as', '--task', 'do it', '--acceptance', 'node accept.mjs'];
    const r = runBin(
      'baton',
      ['run', 'new', '--yes', ...options, '--spec', 'spec.md', '--agents-user', 'no-user-t'],
      { cwd: root },
    );
    const [runId] = runsOf(root);
    assert.ok(
      r.stdout.includes(`UP: baton run up ${runId} --request req-as --agents-user no-user-t\n`),
      r.stdout,
    );
    assert.deepEqual(
      [r.code, r.stderr.split('\n').slice(0, 2)],
      [
        1,
        [
          "baton run up: baton: --agents-user: no user 'no-user-t'",
          `baton run new: baton run up exited 1; run ${runId} is started: ` +
            `baton run up ${runId} once the cause is mended`,
        ],
      ],
    );
    assert.equal(fs.existsSync(join(root, '.swarmforge', 'panes.tsv')), false, 'no swarm');
  });
});
