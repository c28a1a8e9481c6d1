// Black-box tests of `baton up` / `baton down` on the rough edges a SwarmForge user hits
// (issue 8): options checked before anything runs, a failed up that leaves nothing behind,
// a down that finds what is left, and a SwarmForge pack started as the reference launcher
// starts it (prompt files, each known agent's argv, extra arguments as written), with
// stand-in agent programs that record their argv and environment, and a real tmux server.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { delimiter, join, resolve } from 'node:path';
import { Tmux } from '../../lib/adapters/tmux.js';
import { tmuxSocketPathFor } from '../../lib/project/layout.js';
import { standInAgents, waitFor } from '../support/daemon.js';
import { tearDownSwarm } from '../support/deadProcess.js';
import { fixturePath } from '../support/fixtures.js';
import {
  commitIn,
  git,
  itemsIn,
  makeRepo,
  runBin,
  tempDir,
  type RunOptions,
} from '../support/project.js';
import { fourRolesImports, writeFourRolesReferenceMail } from '../support/referenceMail.js';

const SCRIPTED =
  'window coder baton-scripted-agent master\nwindow QA baton-scripted-agent qa batch\n';

/** True while a tmux server answers on the project's default socket. */
async function serverRuns(root: string): Promise<boolean> {
  return new Tmux(tmuxSocketPathFor(root)).listPanes().then(
    () => true,
    () => false,
  );
}

function daemonPid(root: string): number | undefined {
  const status = runBin('baton', ['daemon', 'status', '--json'], { cwd: root });
  return (JSON.parse(status.stdout) as { pid: number | null }).pid ?? undefined;
}

describe('baton up / down on the rough edges (built bin)', function () {
  this.timeout(120_000);
  let root: string;
  let extraEnv: Record<string, string> = {};
  const baton = (args: string[], env: Record<string, string> = {}) =>
    runBin('baton', args, { cwd: root, env: { ...extraEnv, ...env } } as RunOptions);
  afterEach(async () => {
    await new Tmux(tmuxSocketPathFor(root)).killServer();
    tearDownSwarm(root);
    extraEnv = {};
  });

  describe('options are checked before anything runs', () => {
    beforeEach(() => {
      root = makeRepo(SCRIPTED);
    });

    it('up with an unknown option or a bad --ready-timeout starts nothing: exit 1, one usage line, no server, daemon, worktree or socket file', async () => {
      const r = baton(['up', '--detach']);
      assert.deepEqual([r.code, r.stdout], [1, '']);
      assert.match(r.stderr, /^baton: Unknown argument: detach\n/);
      const timeout = baton(['up', '--ready-timeout', '-1']);
      assert.deepEqual(
        [timeout.code, timeout.stdout, timeout.stderr],
        [1, '', 'baton up: --ready-timeout takes seconds (0 or more), not -1\n'],
      );
      assert.equal(await serverRuns(root), false);
      assert.equal(fs.existsSync(join(root, '.worktrees')), false);
      assert.equal(fs.existsSync(join(root, '.swarmforge', 'tmux-socket')), false);
      assert.equal(fs.existsSync(join(root, '.swarmforge', 'daemon', 'handoffd.pid')), false);
    });

    it('down with an unknown option stops nothing; daemon with an unknown action prints no status', async () => {
      const up = baton(['up']);
      assert.equal(up.code, 0, up.stderr);
      const pid = daemonPid(root);
      const down = baton(['down', '--bogus']);
      assert.deepEqual([down.code, down.stdout], [1, '']);
      assert.match(down.stderr, /^baton: Unknown argument: bogus\n/);
      assert.equal(await serverRuns(root), true, 'the swarm is still up');
      assert.equal(daemonPid(root), pid);
      const action = baton(['daemon', 'bogus']);
      assert.deepEqual([action.code, action.stdout], [1, '']);
      assert.match(action.stderr, /Invalid values/);
    });
  });

  describe('a failed up leaves nothing behind, and down finds what is left', () => {
    it('in a repository without a commit: a hint, nothing left, down says nothing runs; after a commit up starts', async () => {
      root = tempDir();
      git(root, 'init', '-q', '-b', 'main');
      fs.mkdirSync(join(root, 'swarmforge'));
      fs.writeFileSync(join(root, 'swarmforge', 'swarmforge.conf'), SCRIPTED);
      const up = baton(['up']);
      assert.deepEqual([up.code, up.stdout], [1, '']);
      assert.equal(
        up.stderr,
        `baton: the repository '${root}' has no commit yet, and worktrees start from one: make a first commit (git commit --allow-empty -m 'first commit') and run baton up again\n`,
      );
      assert.equal(await serverRuns(root), false);
      const down = baton(['down']);
      assert.deepEqual([down.code, down.stdout], [0, 'SWARM DOWN: nothing was running\n']);
      commitIn(root, 'first commit');
      const again = baton(['up']);
      assert.equal(again.code, 0, again.stderr);
      assert.match(again.stdout, /^SWARM UP: /);
    });

    it('a failure after the panes and the daemon started takes both back; up then starts cleanly', async () => {
      root = makeRepo(SCRIPTED);
      const failed = baton(['up'], { BATON_FAIL_AT: 'up:daemon-started' });
      assert.equal(failed.code, 1);
      assert.equal(failed.stderr, 'baton: failing at up:daemon-started (BATON_FAIL_AT)\n');
      assert.equal(await serverRuns(root), false);
      assert.equal(daemonPid(root), undefined);
      assert.equal(fs.existsSync(join(root, '.worktrees', 'qa')), false);
      assert.equal(baton(['up']).code, 0);
    });

    it("down stops a tmux server left on the project's socket without its record", async () => {
      root = makeRepo(SCRIPTED);
      fs.mkdirSync(join(root, '.swarmforge'), { recursive: true });
      await new Tmux(tmuxSocketPathFor(root)).newSession({
        name: 'leftover',
        window: 'w',
        cwd: root,
      });
      const down = baton(['down']);
      assert.deepEqual(
        [down.code, down.stdout, down.stderr],
        [0, 'SWARM DOWN: tmux server stopped\n', ''],
      );
      assert.equal(await serverRuns(root), false);
    });
  });

  describe('a SwarmForge pack starts as the reference launcher starts it', () => {
    let standIns: ReturnType<typeof standInAgents>;
    let scratch: string;
    beforeEach(() => {
      root = makeRepo('');
      fs.cpSync(fixturePath('packs', 'four-roles', 'swarmforge'), join(root, 'swarmforge'), {
        recursive: true,
      });
      fs.appendFileSync(
        join(root, 'swarmforge', 'swarmforge.conf'),
        'window tester tester-agent master batch --flag "quoted  arg" $HOME\n',
      );
      fs.writeFileSync(join(root, 'swarmforge', 'roles', 'tester.prompt'), 'Role: tester.\n');
      git(root, 'add', 'swarmforge');
      commitIn(root, 'the pack');
      scratch = tempDir();
      standIns = standInAgents(scratch, ['claude', 'codex', 'tester-agent']);
      extraEnv = {
        PATH: `${standIns.bin}${delimiter}${process.env.PATH ?? ''}`,
        BATON_STANDIN_DIR: standIns.records,
        HOME: scratch,
      };
    });
    afterEach(() => fs.rmSync(scratch, { recursive: true, force: true }));

    it("writes each role's prompt file and gives each agent its reference argv; extra arguments reach the shell as written", async () => {
      // The stand-ins are not what this test is about: up does not wait for them (§12.1).
      const up = baton(['up', '--ready-timeout', '0']);
      assert.equal(up.code, 0, up.stderr);
      const roles: [string, string][] = [
        ['architect', 'claude'],
        ['coder', 'claude'],
        ['reviewer', 'codex'],
        ['QA', 'claude'],
        ['tester', 'tester-agent'],
      ];
      await waitFor(
        'every stand-in agent to start',
        () => roles.every(([role, agent]) => standIns.recordOf(agent, role) !== undefined),
        30_000,
      );
      const prompt = (role: string) => join(root, '.swarmforge', 'prompts', `${role}.md`);
      const instructions = (role: string) =>
        `Read swarmforge/constitution.prompt, then read every file it refers to recursively, and obey all of those instructions.\nRead swarmforge/roles/${role}.prompt, then read every file it refers to recursively, and follow all of those instructions.`;
      for (const [role] of roles)
        assert.equal(fs.readFileSync(prompt(role), 'utf8'), `${instructions(role)}\n`, role);
      const worktree = (name: string) => join(root, '.worktrees', name);
      // Baton's hooks ride on the launch lines (runtime.md §12.7): claude gets --settings
      // naming Baton's file, which holds the package's three hook scripts; codex gets the
      // feature flag, and its worktree's .codex/hooks.json holds the same scripts.
      const settings = join(root, '.swarmforge', 'claude-hooks.json');
      const hookScripts = (text: string) =>
        ['session-start', 'prompt-submit', 'stop'].map((name) =>
          text.includes(join(resolve('hooks'), name)),
        );
      assert.deepEqual(hookScripts(fs.readFileSync(settings, 'utf8')), [true, true, true]);
      assert.equal(fs.statSync(settings).mode & 0o777, 0o600);
      const codexHooks = join(worktree('review'), '.codex', 'hooks.json');
      assert.deepEqual(hookScripts(fs.readFileSync(codexHooks, 'utf8')), [true, true, true]);
      assert.deepEqual(standIns.recordOf('claude', 'architect')!.argv, [
        '--settings',
        settings,
        '--append-system-prompt-file',
        prompt('architect'),
        '--permission-mode',
        'acceptEdits',
        '-n',
        'SwarmForge Architect',
        instructions('architect'),
      ]);
      assert.deepEqual(standIns.recordOf('claude', 'QA')!.argv, [
        '--settings',
        settings,
        '--append-system-prompt-file',
        prompt('QA'),
        '--permission-mode',
        'acceptEdits',
        '-n',
        'SwarmForge Qa',
        instructions('QA'),
      ]);
      assert.deepEqual(standIns.recordOf('codex', 'reviewer')!.argv, [
        '-c',
        'features.codex_hooks=true',
        '-C',
        worktree('review'),
        instructions('reviewer'),
      ]);
      assert.equal(standIns.recordOf('claude', 'coder')!.cwd, worktree('coder'));
      const tester = standIns.recordOf('tester-agent', 'tester')!;
      assert.deepEqual(
        tester.argv,
        ['--flag', 'quoted  arg', scratch],
        "split and expanded by the pane's shell",
      );
      assert.equal(tester.env.SWARMFORGE_PROMPT_FILE, prompt('tester'));
      // doctor warns only about the agent that cannot run Baton's hooks (runtime.md §12.7).
      const doctor = baton(['doctor', '--json']);
      const warnings = (JSON.parse(doctor.stdout) as { warnings?: Record<string, string>[] })
        .warnings;
      assert.deepEqual(
        warnings?.map((w) => [w.kind, w.role]),
        [['agent-without-hooks', 'tester']],
        doctor.stdout,
      );
      assert.equal(tester.env.SWARMFORGE_ROLE, 'tester');
      assert.equal(tester.env.SWARMFORGE_ROOT, root);
    });

    it('imports the SwarmForge mail left in the worktrees: each item claimed exactly once by its role; down leaves no process or server', async () => {
      for (const [name, branch] of [
        ['coder', 'coder'],
        ['review', 'review'],
        ['qa', 'qa'],
      ])
        git(root, 'worktree', 'add', '-q', '-b', branch!, join('.worktrees', name!));
      for (const name of ['master', 'coder', 'review', 'qa'])
        writeFourRolesReferenceMail(root, name);
      const expected = fourRolesImports(root);
      // The stand-ins are not what this test is about: up does not wait for them (§12.1).
      const up = baton(['up', '--ready-timeout', '0']);
      assert.equal(up.code, 0, up.stderr);
      for (const item of expected) {
        assert.ok(
          fs.existsSync(item.marked) && !fs.existsSync(item.from),
          `${item.from} marked as imported`,
        );
        assert.ok(
          up.stdout.includes(`IMPORTED: ${item.from} -> ${item.to}\n`),
          `up reports ${item.from}`,
        );
      }
      const box = (role: string) => join(root, '.swarmforge', 'handoffs', role);
      await waitFor(
        'handoffd to deliver the imported outbox mail',
        () => ['architect', 'coder'].every((r) => itemsIn(join(box(r), 'outbox')).length === 0),
        30_000,
      );
      const claimed = new Map<string, string[]>();
      for (const role of ['architect', 'coder', 'reviewer', 'QA']) {
        const ids: string[] = [];
        let out = runBin('ready_for_next', [], { cwd: root, role }).stdout;
        while (!/^NO_TASK$/m.test(out)) {
          const paths = [...out.matchAll(/^TASK: (.+)$/gm)].map((m) => m[1]!);
          assert.ok(paths.length > 0, out);
          ids.push(...paths.map((path) => /_(\d{6})_from_/.exec(path)![1]!));
          out = runBin('done_with_current', [], { cwd: root, role }).stdout;
        }
        claimed.set(role, ids.sort());
      }
      assert.deepEqual(
        Object.fromEntries(claimed),
        {
          architect: ['000003'],
          coder: ['000001', '000002'],
          reviewer: ['000004'],
          QA: ['000004', '000005', '000006'],
        },
        'every pending item reaches its role once: imported, or delivered by handoffd (the broadcast the old daemon gave the reviewer goes to QA alone)',
      );
      const down = baton(['down']);
      assert.match(down.stdout, /^SWARM DOWN: daemon pid \d+ stopped\n$/);
      assert.equal(await serverRuns(root), false);
      await waitFor(
        'no process of the swarm left',
        () =>
          !spawnSync('ps', ['-eo', 'args'], { encoding: 'utf8' })
            .stdout.split('\n')
            .some((l) => l.includes(root) && !l.includes('ps -eo')),
        10_000,
      );
    });

    it('refuses to start when the pack lacks a role prompt, naming it, before anything starts', async () => {
      fs.rmSync(join(root, 'swarmforge', 'roles', 'reviewer.prompt'));
      const up = baton(['up']);
      assert.deepEqual([up.code, up.stdout], [1, '']);
      assert.equal(
        up.stderr,
        `baton: missing prompt file '${join(root, 'swarmforge', 'roles', 'reviewer.prompt')}' (a SwarmForge pack needs the constitution and, with a swarmforge/roles/ folder, one prompt per role)\n`,
      );
      assert.equal(await serverRuns(root), false);
      assert.equal(
        spawnSync('git', ['worktree', 'list'], { cwd: root, encoding: 'utf8' })
          .stdout.split('\n')
          .filter(Boolean).length,
        1,
      );
    });
  });
});
