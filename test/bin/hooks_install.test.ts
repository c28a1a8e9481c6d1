// Black-box: `baton hooks install --agent claude|codex [--dry-run] [--json]` on a real
// project: the settings file it writes, twice is one entry, the user's other hooks and
// settings kept, a malformed file refused and untouched, and the installed commands run
// as hooks, from this checkout and from a copy of the package as npm installs it.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join, resolve } from 'node:path';
import {
  BIN_DIR,
  makeProject,
  placeItem,
  runBin,
  runExecutable,
  tempDir,
  type Project,
  type RunResult,
} from '../support/project.js';

const HOOKS = resolve('hooks');
const SESSION_START = join(HOOKS, 'session-start');
const STOP = join(HOOKS, 'stop');
const PROMPT = join(HOOKS, 'prompt-submit');

/** The three groups install adds for hook scripts in `hooks`. */
const ours = (hooks = HOOKS) => ({
  SessionStart: [
    {
      matcher: 'startup|resume|clear|compact',
      hooks: [{ type: 'command', command: join(hooks, 'session-start'), timeout: 10 }],
    },
  ],
  UserPromptSubmit: [
    { hooks: [{ type: 'command', command: join(hooks, 'prompt-submit'), timeout: 10 }] },
  ],
  Stop: [{ hooks: [{ type: 'command', command: join(hooks, 'stop'), timeout: 10 }] }],
});

describe('baton hooks install (built bin)', () => {
  let p: Project;
  beforeEach(() => {
    p = makeProject();
  });
  afterEach(() => p.cleanup());

  const install = (...args: string[]) =>
    runBin('baton', ['hooks', 'install', ...args], { cwd: p.root });
  const claudeFile = () => join(p.root, '.claude', 'settings.json');
  const codexFile = () => join(p.root, '.codex', 'hooks.json');
  const codexConfig = () => join(p.root, '.codex', 'config.toml');
  const ok = (r: RunResult) => {
    assert.deepEqual([r.code, r.stderr], [0, ''], r.stderr);
    return r.stdout;
  };

  it('claude: writes ROOT/.claude/settings.json with SessionStart (matcher) and Stop (none), commands the absolute paths of hooks/', () => {
    assert.equal(
      ok(install('--agent', 'claude')),
      `HOOKS INSTALLED: ${claudeFile()}\nSessionStart: added ${SESSION_START}\nUserPromptSubmit: added ${PROMPT}\nStop: added ${STOP}\n`,
    );
    assert.equal(
      fs.readFileSync(claudeFile(), 'utf8'),
      `${JSON.stringify({ hooks: ours() }, null, 2)}\n`,
    );
  });

  it('codex: writes ROOT/.codex/hooks.json, the same shape, and turns the hooks feature on in config.toml; from a folder inside the project too', () => {
    fs.mkdirSync(join(p.root, 'src'));
    const r = runBin('baton', ['hooks', 'install', '--agent', 'codex'], {
      cwd: join(p.root, 'src'),
    });
    assert.equal(
      ok(r),
      `HOOKS INSTALLED: ${codexFile()}\nSessionStart: added ${SESSION_START}\nUserPromptSubmit: added ${PROMPT}\nStop: added ${STOP}\ncodex_hooks: added ${codexConfig()}\n`,
    );
    assert.deepEqual(JSON.parse(fs.readFileSync(codexFile(), 'utf8')), { hooks: ours() });
    assert.equal(fs.readFileSync(codexConfig(), 'utf8'), '[features]\ncodex_hooks = true\n');
    assert.equal(fs.existsSync(join(p.root, '.claude')), false);
  });

  it('twice is one entry each: the second run writes nothing and says so', () => {
    for (const agent of ['claude', 'codex']) {
      ok(install('--agent', agent));
      const file = agent === 'claude' ? claudeFile() : codexFile();
      const bytes = fs.readFileSync(file);
      const config = agent === 'codex' ? fs.readFileSync(codexConfig()) : undefined;
      const flag = agent === 'codex' ? `codex_hooks: present ${codexConfig()}\n` : '';
      assert.equal(
        ok(install('--agent', agent)),
        `HOOKS ALREADY INSTALLED: ${file}\nSessionStart: present ${SESSION_START}\nUserPromptSubmit: present ${PROMPT}\nStop: present ${STOP}\n${flag}`,
      );
      assert.deepEqual(fs.readFileSync(file), bytes);
      if (config) assert.deepEqual(fs.readFileSync(codexConfig()), config);
      const hooks = (JSON.parse(bytes.toString()) as { hooks: Record<string, unknown[]> }).hooks;
      assert.deepEqual(
        [hooks.SessionStart!.length, hooks.UserPromptSubmit!.length, hooks.Stop!.length],
        [1, 1, 1],
        agent,
      );
    }
  });

  it("keeps the user's other hooks (same events included) and every other setting", () => {
    const user = {
      $schema: 'https://json.schemastore.org/claude-code-settings.json',
      permissions: { allow: ['Bash(npm test)'], deny: [] },
      env: { FOO: 'bar' },
      hooks: {
        SessionStart: [
          { matcher: 'startup', hooks: [{ type: 'command', command: '~/bin/hello.sh' }] },
        ],
        Stop: [{ hooks: [{ type: 'command', command: 'say done', timeout: 5 }] }],
        PostToolUse: [
          { matcher: 'Write|Edit', hooks: [{ type: 'command', command: 'npx prettier --write' }] },
        ],
      },
    };
    fs.mkdirSync(join(p.root, '.claude'));
    fs.writeFileSync(claudeFile(), JSON.stringify(user));
    ok(install('--agent', 'claude'));
    assert.deepEqual(JSON.parse(fs.readFileSync(claudeFile(), 'utf8')), {
      ...user,
      hooks: {
        ...user.hooks,
        SessionStart: [...user.hooks.SessionStart, ...ours().SessionStart],
        UserPromptSubmit: ours().UserPromptSubmit,
        Stop: [...user.hooks.Stop, ...ours().Stop],
      },
    });
  });

  it('a malformed file is refused with one line, exit 2, and left byte for byte', () => {
    fs.mkdirSync(join(p.root, '.codex'));
    for (const text of ['{"hooks": {"Stop": ', '{"hooks": {"Stop": {}}}']) {
      fs.writeFileSync(codexFile(), text);
      const r = install('--agent', 'codex');
      assert.equal(r.code, 2);
      assert.equal(r.stdout, '');
      assert.match(
        r.stderr,
        new RegExp(`^baton: cannot merge hooks into '${codexFile()}': [^\\n]+\\n$`),
      );
      assert.equal(fs.readFileSync(codexFile(), 'utf8'), text);
      assert.deepEqual(fs.readdirSync(join(p.root, '.codex')), ['hooks.json']);
    }
  });

  it('codex killed between its two files (at hooks-install:settings-written): the rerun turns the flag on and adds no second entry', () => {
    const killed = runBin('baton', ['hooks', 'install', '--agent', 'codex'], {
      cwd: p.root,
      env: { BATON_CRASH_AT: 'hooks-install:settings-written' },
    });
    assert.equal(killed.signal, 'SIGKILL');
    const merged = fs.readFileSync(codexFile());
    assert.deepEqual(JSON.parse(merged.toString()), { hooks: ours() });
    assert.equal(fs.existsSync(codexConfig()), false, 'the kill came before config.toml');
    assert.equal(
      ok(install('--agent', 'codex')),
      `HOOKS INSTALLED: ${codexFile()}\nSessionStart: present ${SESSION_START}\nUserPromptSubmit: present ${PROMPT}\nStop: present ${STOP}\ncodex_hooks: added ${codexConfig()}\n`,
    );
    assert.deepEqual(fs.readFileSync(codexFile()), merged, 'hooks.json left as the kill left it');
    assert.equal(fs.readFileSync(codexConfig(), 'utf8'), '[features]\ncodex_hooks = true\n');
  });

  it('a config.toml with no safe place for the flag is refused the same way, before hooks.json is written', () => {
    fs.mkdirSync(join(p.root, '.codex'));
    const text = 'features = { web_search = true }\n';
    fs.writeFileSync(codexConfig(), text);
    const r = install('--agent', 'codex');
    assert.equal(r.code, 2);
    assert.equal(r.stdout, '');
    assert.match(
      r.stderr,
      new RegExp(
        `^baton: cannot merge hooks into '${codexConfig()}': "features" is an inline[^\n]+\n$`,
      ),
    );
    assert.equal(fs.readFileSync(codexConfig(), 'utf8'), text);
    assert.deepEqual(fs.readdirSync(join(p.root, '.codex')), ['config.toml']);
  });

  it('--dry-run prints the merged file and writes nothing; --json reports; --help documents it', () => {
    assert.equal(
      ok(install('--agent', 'claude', '--dry-run')),
      `${JSON.stringify({ hooks: ours() }, null, 2)}\n`,
    );
    assert.equal(fs.existsSync(join(p.root, '.claude')), false);
    const report = JSON.parse(ok(install('--agent', 'codex', '--json'))) as Record<string, unknown>;
    assert.deepEqual(report, {
      agent: 'codex',
      file: codexFile(),
      changed: true,
      dry_run: false,
      events: { SessionStart: 'added', UserPromptSubmit: 'added', Stop: 'added' },
      commands: { SessionStart: SESSION_START, UserPromptSubmit: PROMPT, Stop: STOP },
      feature: { file: codexConfig(), outcome: 'added' },
    });
    const help = ok(install('--help'));
    for (const option of ['--agent', '--dry-run', '--json'])
      assert.ok(help.includes(option), option);
    assert.equal(install().code, 1, 'no --agent');
    assert.equal(install('--agent', 'copilot').code, 1, 'an unknown agent');
  });

  it('outside a project: exit 1, nothing written', () => {
    const outside = tempDir();
    try {
      const r = runBin('baton', ['hooks', 'install', '--agent', 'claude'], { cwd: outside });
      assert.equal(r.code, 1);
      assert.match(r.stderr, /^Cannot find SwarmForge project root/);
      assert.deepEqual(fs.readdirSync(outside), []);
    } finally {
      fs.rmSync(outside, { recursive: true, force: true });
    }
  });

  /** Runs each command of a settings file as its agent would (the command is a plain path here) with that event's stdin. */
  const runInstalled = (file: string) => {
    const hooks = (
      JSON.parse(fs.readFileSync(file, 'utf8')) as {
        hooks: Record<string, { hooks: { command: string }[] }[]>;
      }
    ).hooks;
    const input = (event: string) =>
      JSON.stringify({
        session_id: 's',
        cwd: p.root,
        hook_event_name: event,
        stop_hook_active: false,
      });
    return ['SessionStart', 'Stop', 'UserPromptSubmit'].map((event) =>
      runExecutable(hooks[event]![0]!.hooks[0]!.command, [], {
        cwd: p.root,
        role: 'reviewer',
        input: input(event),
      }),
    );
  };

  it('the installed commands run as the hooks', async () => {
    await placeItem(p.box('reviewer').inboxNew, {});
    ok(install('--agent', 'claude'));
    const [start, stop, prompt] = runInstalled(claudeFile());
    assert.deepEqual([start!.code, start!.stderr], [0, '']);
    assert.deepEqual([prompt!.code, prompt!.stdout, prompt!.stderr], [0, '', '']);
    const seen = JSON.parse(
      fs.readFileSync(join(p.root, '.swarmforge', 'agents', 'reviewer.json'), 'utf8'),
    ) as { state: string; event: string };
    assert.deepEqual([seen.state, seen.event], ['working', 'UserPromptSubmit']);
    assert.match(
      start!.stdout,
      /^\{"hookSpecificOutput":\{"hookEventName":"SessionStart","additionalContext":"Baton: this session acts as role reviewer .*1 handoff waits in inbox\/new\."\}\}\n$/,
    );
    assert.equal(
      stop!.stdout,
      '{"decision":"block","reason":"1 handoff waits in the inbox of role reviewer and nothing is in process; ready_for_next claims it."}\n',
    );
  });

  it("from a copy of the package as npm installs it (run through node_modules/.bin): the copy's hooks/ are installed, and run", async () => {
    const app = tempDir();
    try {
      const pkg = join(app, 'node_modules', 'baton');
      fs.mkdirSync(join(pkg, 'dist'), { recursive: true });
      fs.cpSync(BIN_DIR, join(pkg, 'dist', 'bin'), { recursive: true });
      fs.cpSync(HOOKS, join(pkg, 'hooks'), { recursive: true });
      fs.copyFileSync('package.json', join(pkg, 'package.json'));
      fs.mkdirSync(join(app, 'node_modules', '.bin'));
      fs.symlinkSync('../baton/dist/bin/baton.js', join(app, 'node_modules', '.bin', 'baton'));
      const r = runExecutable(
        join(app, 'node_modules', '.bin', 'baton'),
        ['hooks', 'install', '--agent', 'codex', '--json'],
        { cwd: p.root },
      );
      assert.deepEqual((JSON.parse(ok(r)) as { commands: unknown }).commands, {
        SessionStart: join(pkg, 'hooks', 'session-start'),
        UserPromptSubmit: join(pkg, 'hooks', 'prompt-submit'),
        Stop: join(pkg, 'hooks', 'stop'),
      });
      assert.deepEqual(JSON.parse(fs.readFileSync(codexFile(), 'utf8')), {
        hooks: ours(join(pkg, 'hooks')),
      });
      await placeItem(p.box('reviewer').inboxNew, {});
      const [start, stop] = runInstalled(codexFile());
      assert.match(start!.stdout, /^\{"hookSpecificOutput":/);
      assert.match(stop!.stdout, /^\{"decision":"block",/);
    } finally {
      fs.rmSync(app, { recursive: true, force: true });
    }
  });
});
