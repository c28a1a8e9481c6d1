import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { hooklessAgents } from '../../lib/admin/hooklessAgents.js';
import { readRoles } from '../../lib/handoff/roles.js';
import { claudeHookSettingsOf, panesFileOf, socketFileOf } from '../../lib/project/layout.js';
import { makeProject, type Project } from '../support/project.js';

describe('lib/admin/hooklessAgents', () => {
  let p: Project;
  beforeEach(() => {
    p = makeProject(
      'window coder claude master\nwindow reviewer codex review\n' + 'window QA my-agent qa\n',
    );
  });
  afterEach(() => p.cleanup());
  const up = (roles: string[]) => {
    fs.writeFileSync(socketFileOf(p.root), '/tmp/some.sock\n');
    fs.writeFileSync(panesFileOf(p.root), roles.map((r, i) => `${r}\t%${i}\n`).join(''));
  };
  const worktree = (role: string) => readRoles(p.root).roles.get(role)!.worktreePath;
  const warned = () => hooklessAgents(p.root).map((w) => [w.role, w.kind, w.problem]);

  it('nothing while no swarm is up, whatever the agents', () => {
    assert.deepEqual(hooklessAgents(p.root), []);
  });

  it('a running claude without the settings file, a codex without hooks in its worktree, any other program', () => {
    up(['coder', 'reviewer', 'QA']);
    assert.deepEqual(warned(), [
      [
        'coder',
        'agent-without-hooks',
        "coder runs claude without Baton's hooks (its launch passed no --settings file)",
      ],
      [
        'reviewer',
        'agent-without-hooks',
        "reviewer runs codex without Baton's hooks in its worktree's .codex/hooks.json",
      ],
      [
        'QA',
        'agent-without-hooks',
        'QA runs my-agent, which has no hooks Baton knows: its state is not observed (only a dead pane shows)',
      ],
    ]);
    assert.match(hooklessAgents(p.root)[0]!.remedy, /baton restart coder$/);
  });

  it('claude and codex launched with the hooks are not warned about; roles without a pane neither', () => {
    up(['coder', 'reviewer']);
    fs.writeFileSync(
      claudeHookSettingsOf(p.root),
      '{"hooks":{"SessionStart":[{"hooks":[{"command":"/pkg/hooks/session-start"}]}]}}',
    );
    fs.mkdirSync(join(worktree('reviewer'), '.codex'), { recursive: true });
    fs.writeFileSync(
      join(worktree('reviewer'), '.codex', 'hooks.json'),
      '{"hooks":{"SessionStart":[{"hooks":[{"command":"/pkg/hooks/session-start"}]}]}}',
    );
    assert.deepEqual(warned(), []);
  });
});
