import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join, resolve } from 'node:path';
import { prepareLaunchHooks } from '../../lib/swarm/agentHooks.js';
import { tempDir } from '../support/project.js';

describe('lib/swarm/agentHooks', () => {
  let root: string;
  beforeEach(() => {
    root = tempDir();
    for (const w of ['a', 'b']) fs.mkdirSync(join(root, '.worktrees', w), { recursive: true });
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));
  const binDir = resolve('dist/bin');
  const scripts = ['session-start', 'prompt-submit', 'stop'].map((n) => join(resolve('hooks'), n));

  it("writes one claude settings file (0600) with the package's three hooks; merges them into each codex worktree's hooks.json, keeping what is there", () => {
    const codexFile = join(root, '.worktrees', 'b', '.codex', 'hooks.json');
    fs.mkdirSync(join(root, '.worktrees', 'b', '.codex'));
    const own = { hooks: { Stop: [{ hooks: [{ type: 'command', command: 'mine' }] }] } };
    fs.writeFileSync(codexFile, JSON.stringify(own));
    const hooks = prepareLaunchHooks(root, binDir, [
      { agent: 'claude', worktreePath: join(root, '.worktrees', 'a') },
      { agent: '/usr/local/bin/codex', worktreePath: join(root, '.worktrees', 'b') },
      { agent: 'claude', worktreePath: join(root, '.worktrees', 'a') },
      { agent: 'my-agent', worktreePath: join(root, '.worktrees', 'a') },
    ]);
    const settings = join(root, '.swarmforge', 'claude-hooks.json');
    assert.deepEqual(hooks, [
      { claudeSettings: settings },
      { codexHooks: true },
      { claudeSettings: settings },
      {},
    ]);
    assert.equal(fs.statSync(settings).mode & 0o777, 0o600);
    const claudeText = fs.readFileSync(settings, 'utf8');
    assert.ok(
      scripts.every((s) => claudeText.includes(s)),
      claudeText,
    );
    const codexText = fs.readFileSync(codexFile, 'utf8');
    assert.ok(
      scripts.every((s) => codexText.includes(s)),
      codexText,
    );
    assert.match(codexText, /"command": "mine"/, "the worktree's own hook kept");
    assert.ok(!fs.existsSync(join(root, '.worktrees', 'b', '.codex', 'config.toml')));
    assert.ok(!fs.existsSync(join(root, '.worktrees', 'a', '.codex')), 'nothing for claude');
  });

  it('writes nothing at all when no agent is claude or codex', () => {
    const hooks = prepareLaunchHooks(root, '/nowhere', [
      { agent: 'copilot', worktreePath: join(root, '.worktrees', 'a') },
    ]);
    assert.deepEqual(hooks, [{}]);
    assert.deepEqual(fs.readdirSync(root), ['.worktrees']);
  });
});
