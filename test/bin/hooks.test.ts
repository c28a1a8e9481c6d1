// Black-box: the shipped hooks/session-start and hooks/stop, run as an agent runs them
// (the file itself, through its #! line, with the agent's JSON on stdin, from another
// directory than the session's), fed the documented stdin of Claude Code and of Codex;
// the exact stdout of each acceptance case, exit 0 and an empty stderr every time, and
// nothing on disk changed.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import { join, resolve } from 'node:path';
import { rolesPathOf, runPathsOf } from '../../lib/project/layout.js';
import { writeWorkflow } from '../../lib/run/record/runStore.js';
import {
  git,
  makeProject,
  placeItem,
  runExecutable,
  snapshot,
  tempDir,
  type Project,
  type RunResult,
} from '../support/project.js';
import { sampleWorkflow } from '../run/sampleWorkflow.js';

const HOOKS = resolve('hooks');

/** The stdin each agent writes for each event (docs/agent-hooks.md), for a session in `cwd`. */
const INPUTS = {
  claude: {
    SessionStart: (cwd: string) => ({
      session_id: '9f1c2d3e-4b5a-6978-8a9b-0c1d2e3f4a5b',
      transcript_path: '/home/u/.claude/projects/p/9f1c.jsonl',
      cwd,
      permission_mode: 'default',
      hook_event_name: 'SessionStart',
      source: 'startup',
      model: 'claude-sonnet-4-5',
    }),
    Stop: (cwd: string, active = false) => ({
      session_id: '9f1c2d3e-4b5a-6978-8a9b-0c1d2e3f4a5b',
      transcript_path: '/home/u/.claude/projects/p/9f1c.jsonl',
      cwd,
      permission_mode: 'default',
      hook_event_name: 'Stop',
      stop_hook_active: active,
      last_assistant_message: 'All tests pass.',
    }),
  },
  codex: {
    SessionStart: (cwd: string) => ({
      session_id: '0199a213-81c0-7800-8aa1-bbab2a035a53',
      transcript_path: null,
      cwd,
      hook_event_name: 'SessionStart',
      model: 'gpt-5-codex',
      permission_mode: 'default',
      source: 'startup',
    }),
    Stop: (cwd: string, active = false) => ({
      session_id: '0199a213-81c0-7800-8aa1-bbab2a035a53',
      turn_id: 'turn-3',
      transcript_path: null,
      cwd,
      hook_event_name: 'Stop',
      model: 'gpt-5-codex',
      permission_mode: 'default',
      stop_hook_active: active,
      last_assistant_message: 'Done.',
    }),
  },
};
const AGENTS = ['claude', 'codex'] as const;

/** SessionStart's exact stdout for these context lines. */
const sessionStartLine = (...lines: string[]) =>
  `${JSON.stringify({ hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: lines.join('\n') } })}\n`;
const roleLine = (role: string, mode: string, root: string) =>
  `Baton: this session acts as role ${role} (receive mode ${mode}) of the project at ${root}.`;

describe('hooks/session-start and hooks/stop (shipped scripts, both agents)', () => {
  let p: Project;
  let elsewhere: string;
  beforeEach(() => {
    p = makeProject();
    elsewhere = tempDir();
  });
  afterEach(() => {
    p.cleanup();
    fs.rmSync(elsewhere, { recursive: true, force: true });
  });

  /** Runs hooks/<script> from `elsewhere` with `input` (an object becomes its JSON) as `role` (null: SWARMFORGE_ROLE unset). */
  const hook = (
    script: 'session-start' | 'stop',
    input: unknown,
    role: string | null = 'reviewer',
    env: Record<string, string | undefined> = {},
  ): RunResult =>
    runExecutable(join(HOOKS, script), [], {
      cwd: elsewhere,
      role: role ?? undefined,
      env,
      input: typeof input === 'string' ? input : JSON.stringify(input),
    });
  /** Asserts exit 0, an empty stderr and exactly `stdout`. */
  const expect = (r: RunResult, stdout: string, what: string) =>
    assert.deepEqual([r.code, r.signal, r.stderr, r.stdout], [0, null, '', stdout], what);

  for (const agent of AGENTS) {
    describe(agent, () => {
      const start = (role = 'reviewer', cwd = p.root) =>
        hook('session-start', INPUTS[agent].SessionStart(cwd), role);
      const stop = (role = 'reviewer', active = false, cwd = p.root) =>
        hook('stop', INPUTS[agent].Stop(cwd, active), role);

      it('nothing waiting: SessionStart states the role and that nothing is in process or waiting; Stop prints nothing', () => {
        expect(
          start(),
          sessionStartLine(
            roleLine('reviewer', 'task', p.root),
            'In process: nothing.',
            'No handoff waits in inbox/new.',
          ),
          'SessionStart',
        );
        expect(stop(), '', 'Stop');
      });

      it('mail waiting, nothing in process: SessionStart counts it; Stop blocks with the count', async () => {
        await placeItem(p.box('reviewer').inboxNew, {});
        await placeItem(p.box('reviewer').inboxNew, {});
        expect(
          start(),
          sessionStartLine(
            roleLine('reviewer', 'task', p.root),
            'In process: nothing.',
            '2 handoffs wait in inbox/new.',
          ),
          'SessionStart',
        );
        expect(
          stop(),
          '{"decision":"block","reason":"2 handoffs wait in the inbox of role reviewer and nothing is in process; ready_for_next claims them."}\n',
          'Stop',
        );
        fs.rmSync(p.box('reviewer').inboxNew, { recursive: true });
        await placeItem(p.box('reviewer').inboxNew, {});
        expect(
          stop(),
          '{"decision":"block","reason":"1 handoff waits in the inbox of role reviewer and nothing is in process; ready_for_next claims it."}\n',
          'Stop, one',
        );
      });

      it('a task in process (and mail waiting): SessionStart names the task; Stop prints nothing', async () => {
        const task = await placeItem(p.box('reviewer').inProcess, {
          type: 'git_handoff',
          task: 'task-1-cave-setup',
          commit: 'a1b2c3d9e8',
        });
        await placeItem(p.box('reviewer').inboxNew, {});
        expect(
          start(),
          sessionStartLine(
            roleLine('reviewer', 'task', p.root),
            `In process: handoff ${task} (git_handoff from coder, task task-1-cave-setup).`,
            '1 handoff waits in inbox/new.',
          ),
          'SessionStart',
        );
        expect(stop(), '', 'Stop');
      });

      it('a batch in process (batch role, mail waiting): SessionStart names the batch and its size; Stop prints nothing', async () => {
        const batch = join(p.box('QA').inProcess, 'batch_20260101T000000Z_000001');
        await placeItem(batch, {});
        await placeItem(p.box('QA').inboxNew, {});
        expect(
          start('QA'),
          sessionStartLine(
            roleLine('QA', 'batch', p.root),
            `In process: batch ${batch} (1 handoff).`,
            '1 handoff waits in inbox/new.',
          ),
          'SessionStart',
        );
        expect(stop('QA'), '', 'Stop');
      });

      it('stop_hook_active true: Stop prints nothing although mail waits and nothing is in process', async () => {
        await placeItem(p.box('reviewer').inboxNew, {});
        expect(stop('reviewer', true), '', 'Stop');
      });

      it('an unfinished run: SessionStart adds its id, status, phase and stage (a completed run is not listed); Stop does not depend on runs', () => {
        const active = sampleWorkflow(p.root, 'a'.repeat(40), {
          run_id: 'run-20260102T030405Z-a1b2c3',
          status: 'ACTIVE',
          phase: 'STAGE_ACTIVE',
          active_stage: 'implementation',
        });
        const done = sampleWorkflow(p.root, 'a'.repeat(40), {
          run_id: 'run-20260101T000000Z-0000ff',
          status: 'COMPLETED',
          phase: 'DONE',
        });
        for (const wf of [active, done]) writeWorkflow(runPathsOf(p.root, wf.run_id).workflow, wf);
        expect(
          start(),
          sessionStartLine(
            roleLine('reviewer', 'task', p.root),
            'In process: nothing.',
            'No handoff waits in inbox/new.',
            'Unfinished run run-20260102T030405Z-a1b2c3: status ACTIVE, phase STAGE_ACTIVE, active stage implementation.',
          ),
          'SessionStart',
        );
        expect(stop(), '', 'Stop');
      });

      it('a broken project or environment: exit 0 and no output at all, from both hooks', async () => {
        await placeItem(p.box('reviewer').inboxNew, {});
        const both = (what: string, run: (script: 'session-start' | 'stop') => RunResult) => {
          expect(run('session-start'), '', `SessionStart: ${what}`);
          expect(run('stop'), '', `Stop: ${what}`);
        };
        const input = (script: 'session-start' | 'stop', cwd = p.root) =>
          script === 'stop' ? INPUTS[agent].Stop(cwd) : INPUTS[agent].SessionStart(cwd);
        both('no project above cwd', (s) => hook(s, input(s, elsewhere)));
        both('SWARMFORGE_ROLE unset', (s) => hook(s, input(s), null));
        both('a role not in roles.tsv', (s) => hook(s, input(s), 'ghost'));
        both('SWARMFORGE_ROOT without roles.tsv', (s) =>
          hook(s, input(s), 'reviewer', { SWARMFORGE_ROOT: elsewhere }),
        );
        both('stdin not JSON', (s) => hook(s, '{"cwd": '));
        both('no stdin', (s) => hook(s, ''));
        both('stdin for the other event', (s) =>
          hook(s, s === 'stop' ? INPUTS[agent].SessionStart(p.root) : INPUTS[agent].Stop(p.root)),
        );
        const box = p.box('reviewer');
        fs.renameSync(box.inboxNew, join(box.inbox, 'moved'));
        fs.writeFileSync(box.inboxNew, 'not a folder');
        both('inbox/new is a file', (s) => hook(s, input(s)));
        fs.rmSync(box.inboxNew);
        fs.renameSync(join(box.inbox, 'moved'), box.inboxNew);
        const roles = fs.readFileSync(rolesPathOf(p.root));
        fs.rmSync(rolesPathOf(p.root));
        fs.mkdirSync(rolesPathOf(p.root));
        both('roles.tsv is a folder', (s) => hook(s, input(s)));
        fs.rmdirSync(rolesPathOf(p.root));
        fs.writeFileSync(rolesPathOf(p.root), roles);
      });

      it('a broken run record: SessionStart prints nothing; Stop, which reads no run, still blocks', async () => {
        await placeItem(p.box('reviewer').inboxNew, {});
        const { workflow } = runPathsOf(p.root, 'run-20260102T030405Z-a1b2c3');
        fs.mkdirSync(resolve(workflow, '..'), { recursive: true });
        fs.writeFileSync(workflow, '{"schema_version": 1, "status": "ACTIVE"}');
        expect(start(), '', 'SessionStart');
        expect(
          stop(),
          '{"decision":"block","reason":"1 handoff waits in the inbox of role reviewer and nothing is in process; ready_for_next claims it."}\n',
          'Stop',
        );
      });
    });
  }

  it('ROOT is found from the stdin cwd: a folder inside the project, or a git worktree of it outside the project', async () => {
    await placeItem(p.box('coder').inboxNew, {});
    const sub = join(p.root, 'src');
    fs.mkdirSync(sub);
    const outside = join(elsewhere, 'wt');
    git(p.root, 'worktree', 'add', '-q', outside);
    for (const cwd of [sub, outside]) {
      expect(
        hook('session-start', INPUTS.claude.SessionStart(cwd), 'coder'),
        sessionStartLine(
          roleLine('coder', 'task', p.root),
          'In process: nothing.',
          '1 handoff waits in inbox/new.',
        ),
        cwd,
      );
      expect(
        hook('stop', INPUTS.codex.Stop(cwd), 'coder'),
        '{"decision":"block","reason":"1 handoff waits in the inbox of role coder and nothing is in process; ready_for_next claims it."}\n',
        cwd,
      );
    }
  });

  it('read-only but for the role observation: every case leaves the project byte for byte as it was (no lock, no stamp, no mailbox folder created); each role has its .swarmforge/agents/<role>.json', async () => {
    await placeItem(p.box('reviewer').inboxNew, {});
    await placeItem(p.box('QA').inProcess, {});
    fs.rmSync(p.box('coder').dir, { recursive: true });
    const wf = sampleWorkflow(p.root, 'a'.repeat(40), { status: 'PAUSED' });
    writeWorkflow(runPathsOf(p.root, wf.run_id).workflow, wf);
    const before = snapshot(p.root);
    const locks = fs.readdirSync(p.box('reviewer').locks);
    for (const role of ['reviewer', 'QA', 'coder']) {
      for (const agent of AGENTS) {
        assert.equal(hook('session-start', INPUTS[agent].SessionStart(p.root), role).code, 0);
        assert.equal(hook('stop', INPUTS[agent].Stop(p.root), role).code, 0);
      }
    }
    const agents = join(p.root, '.swarmforge', 'agents');
    const withoutAgents = (snap: Record<string, string>) =>
      Object.fromEntries(Object.entries(snap).filter(([k]) => !k.startsWith('.swarmforge/agents')));
    assert.deepEqual(withoutAgents(snapshot(p.root)), withoutAgents(before));
    assert.deepEqual(fs.readdirSync(agents).sort(), ['QA.json', 'coder.json', 'reviewer.json']);
    // Stop lets every agent go here except the reviewer's (mail waits, nothing in process).
    const stateOf = (role: string) =>
      (JSON.parse(fs.readFileSync(join(agents, `${role}.json`), 'utf8')) as { state: string })
        .state;
    assert.deepEqual(['reviewer', 'QA', 'coder'].map(stateOf), ['working', 'idle', 'idle']);
    assert.deepEqual(fs.readdirSync(p.box('reviewer').locks), locks);
    assert.equal(fs.existsSync(p.box('coder').dir), false);
  });

  it('BATON_HOOKS_DEBUG=1 puts the swallowed failure on stderr (one line); stdout stays empty and the exit 0', () => {
    const r = hook('stop', INPUTS.claude.Stop(elsewhere), 'reviewer', { BATON_HOOKS_DEBUG: '1' });
    assert.deepEqual(
      [r.code, r.stdout, r.stderr],
      [0, '', 'baton hook Stop: Cannot find SwarmForge project root\n'],
    );
  });

  it('an agent that closed its end before the answer: the hook still exits 0, with nothing on stderr (no EPIPE)', async () => {
    const child = spawn(join(HOOKS, 'session-start'), [], {
      cwd: elsewhere,
      env: { ...process.env, SWARMFORGE_ROLE: 'reviewer' },
    });
    child.stdout.destroy();
    const stderr: Buffer[] = [];
    child.stderr.on('data', (b: Buffer) => stderr.push(b));
    child.stdin.end(JSON.stringify(INPUTS.claude.SessionStart(p.root)));
    const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((done) =>
      child.on('close', (c, s) => done([c, s])),
    );
    assert.deepEqual([code, signal, Buffer.concat(stderr).toString()], [0, null, '']);
  });

  it('the scripts are executable CommonJS files (hooks/package.json) that only load their bundle from ../dist/bin with the code cache', () => {
    for (const [script, bundle] of [
      ['session-start', 'hook-session-start'],
      ['stop', 'hook-stop'],
      ['prompt-submit', 'hook-prompt-submit'],
    ]) {
      const path = join(HOOKS, script!);
      assert.ok((fs.statSync(path).mode & 0o111) === 0o111, `${script} is executable`);
      const code = fs
        .readFileSync(path, 'utf8')
        .split('\n')
        .filter((l) => l !== '' && !l.startsWith('//'));
      assert.deepEqual(code, [
        '#!/usr/bin/env node',
        "const { loadBundle } = require('../dist/bin/baton-code-cache.js');",
        `loadBundle(require.resolve('../dist/bin/${bundle}.js'));`,
      ]);
    }
    // An ES module would pay Node's ESM loader at every hook call (scripts/build.mjs).
    assert.deepEqual(JSON.parse(fs.readFileSync(join(HOOKS, 'package.json'), 'utf8')), {
      type: 'commonjs',
    });
    const pkg = JSON.parse(fs.readFileSync('package.json', 'utf8')) as { files: string[] };
    assert.ok(pkg.files.includes('hooks'), 'package.json ships hooks/');
  });
});
