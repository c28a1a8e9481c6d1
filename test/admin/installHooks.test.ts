import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join, resolve } from 'node:path';
import { CommandFailure } from '../../lib/fsx/commandFailure.js';
import { agentHooksPathOf } from '../../lib/project/layout.js';
import { installHooks, packageHookCommands } from '../../lib/admin/installHooks.js';
import { tempDir } from '../support/project.js';

const COMMANDS = {
  SessionStart: '/pkg/hooks/session-start',
  UserPromptSubmit: '/pkg/hooks/prompt-submit',
  Stop: '/pkg/hooks/stop',
};

describe('lib/admin/installHooks', () => {
  let root: string;
  beforeEach(() => {
    root = tempDir();
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  it("finds the package's hooks/ from the built bins' folder and from bin/, as absolute paths", () => {
    const expected = {
      SessionStart: resolve('hooks/session-start'),
      UserPromptSubmit: resolve('hooks/prompt-submit'),
      Stop: resolve('hooks/stop'),
    };
    assert.deepEqual(packageHookCommands(resolve('dist/bin')), expected);
    assert.deepEqual(packageHookCommands(resolve('bin')), expected);
  });

  it("quotes a path the agent's shell would split, and fails (exit 1) when no hooks/ holds all three scripts", () => {
    const pkg = join(root, 'my pkg');
    fs.mkdirSync(join(pkg, 'hooks'), { recursive: true });
    fs.mkdirSync(join(pkg, 'dist', 'bin'), { recursive: true });
    fs.writeFileSync(join(pkg, 'hooks', 'session-start'), '');
    assert.throws(
      () => packageHookCommands(join(pkg, 'dist', 'bin')),
      (err: unknown) =>
        err instanceof CommandFailure &&
        err.kind === 'environment' &&
        /cannot find the package's hooks\/ folder/.test(err.message),
    );
    fs.writeFileSync(join(pkg, 'hooks', 'stop'), '');
    assert.throws(() => packageHookCommands(join(pkg, 'dist', 'bin')), CommandFailure);
    fs.writeFileSync(join(pkg, 'hooks', 'prompt-submit'), '');
    assert.deepEqual(packageHookCommands(join(pkg, 'dist', 'bin')), {
      SessionStart: `'${pkg}/hooks/session-start'`,
      UserPromptSubmit: `'${pkg}/hooks/prompt-submit'`,
      Stop: `'${pkg}/hooks/stop'`,
    });
  });

  it('claude: writes ROOT/.claude/settings.json (creating .claude/); codex: ROOT/.codex/hooks.json', () => {
    const claude = installHooks(root, 'claude', COMMANDS, false);
    assert.equal(claude.path, join(root, '.claude', 'settings.json'));
    assert.equal(fs.readFileSync(claude.path, 'utf8'), claude.text);
    assert.deepEqual(claude.events, {
      SessionStart: 'added',
      UserPromptSubmit: 'added',
      Stop: 'added',
    });
    const codex = installHooks(root, 'codex', COMMANDS, false);
    assert.equal(codex.path, agentHooksPathOf(root, 'codex'));
    assert.equal(fs.readFileSync(join(root, '.codex', 'hooks.json'), 'utf8'), codex.text);
  });

  it('twice: the second install writes nothing (same bytes, same inode) and reports both present', () => {
    const path = installHooks(root, 'claude', COMMANDS, false).path;
    const before = fs.statSync(path);
    const bytes = fs.readFileSync(path);
    const again = installHooks(root, 'claude', COMMANDS, false);
    assert.deepEqual(
      [again.changed, again.events],
      [false, { SessionStart: 'present', UserPromptSubmit: 'present', Stop: 'present' }],
    );
    assert.deepEqual(fs.readFileSync(path), bytes);
    assert.equal(fs.statSync(path).ino, before.ino);
  });

  it("keeps the existing file's mode", () => {
    const path = agentHooksPathOf(root, 'codex');
    fs.mkdirSync(join(root, '.codex'));
    fs.writeFileSync(path, '{}\n', { mode: 0o600 });
    fs.chmodSync(path, 0o600);
    installHooks(root, 'codex', COMMANDS, false);
    assert.equal(fs.statSync(path).mode & 0o777, 0o600);
  });

  it('a dry run returns the merged text and writes nothing, not even the folder', () => {
    const result = installHooks(root, 'claude', COMMANDS, true);
    assert.deepEqual([result.changed, result.dryRun], [true, true]);
    assert.match(result.text, /"\/pkg\/hooks\/stop"/);
    assert.equal(fs.existsSync(join(root, '.claude')), false);
  });

  it('a malformed file is refused (exit 2) with one line naming it, and left byte for byte', () => {
    const path = agentHooksPathOf(root, 'claude');
    fs.mkdirSync(join(root, '.claude'));
    fs.writeFileSync(path, '{"hooks": [] }');
    assert.throws(
      () => installHooks(root, 'claude', COMMANDS, false),
      (err: unknown) =>
        err instanceof CommandFailure &&
        err.kind === 'refused' &&
        err.lines.length === 1 &&
        err.lines[0] === `baton: cannot merge hooks into '${path}': "hooks" is not an object`,
    );
    assert.equal(fs.readFileSync(path, 'utf8'), '{"hooks": [] }');
    assert.deepEqual(fs.readdirSync(join(root, '.claude')), ['settings.json']);
  });
});
