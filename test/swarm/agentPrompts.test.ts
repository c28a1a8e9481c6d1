import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { CommandFailure } from '../../lib/fsx/commandFailure.js';
import {
  agentPromptPathOf,
  constitutionPathOf,
  rolePromptPathOf,
  rolePromptsDirOf,
} from '../../lib/project/layout.js';
import { type Role } from '../../lib/handoff/roles.js';
import {
  agentPromptText,
  checkPackPrompts,
  writeAgentPrompts,
} from '../../lib/swarm/agentPrompts.js';
import { tempDir } from '../support/project.js';

describe('lib/swarm/agentPrompts', () => {
  let root: string;
  beforeEach(() => {
    root = tempDir();
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  const role = (name: string, worktreePath = root): Role => ({
    role: name,
    worktreeName: 'master',
    worktreePath,
    session: 's',
    displayName: name,
    agent: 'claude',
    mode: 'task',
  });
  const write = (path: string, text = 'x\n') => {
    fs.mkdirSync(join(path, '..'), { recursive: true });
    fs.writeFileSync(path, text);
  };
  const refusal = (paths: string[]) => (err: unknown) =>
    err instanceof CommandFailure &&
    err.kind === 'environment' &&
    JSON.stringify(err.lines) ===
      JSON.stringify(
        paths.map(
          (p) =>
            `baton: missing prompt file '${p}' (a SwarmForge pack needs the constitution and, with a swarmforge/roles/ folder, one prompt per role)`,
        ),
      );

  it('checkPackPrompts: no constitution and no roles folder is not a pack; a constitution alone is one (role prompts optional)', () => {
    assert.equal(checkPackPrompts(root, ['coder']), false);
    write(constitutionPathOf(root));
    assert.equal(checkPackPrompts(root, ['coder', 'QA']), true);
  });

  it('checkPackPrompts: with a roles folder every role needs its prompt and the constitution is required; all missing files named at once', () => {
    fs.mkdirSync(rolePromptsDirOf(root), { recursive: true });
    write(rolePromptPathOf(root, 'coder'));
    assert.throws(
      () => checkPackPrompts(root, ['coder', 'QA', 'ops']),
      refusal([
        constitutionPathOf(root),
        rolePromptPathOf(root, 'QA'),
        rolePromptPathOf(root, 'ops'),
      ]),
    );
    write(constitutionPathOf(root));
    write(rolePromptPathOf(root, 'QA'));
    write(rolePromptPathOf(root, 'ops'));
    assert.equal(checkPackPrompts(root, ['coder', 'QA', 'ops']), true);
  });

  it("agentPromptText: the reference's two instructions, paths as the agent sees them from its worktree, ROOT's copy when the worktree lacks one", () => {
    write(constitutionPathOf(root));
    write(rolePromptPathOf(root, 'coder'));
    assert.equal(
      agentPromptText(root, role('coder')),
      'Read swarmforge/constitution.prompt, then read every file it refers to recursively, and obey all of those instructions.\n' +
        'Read swarmforge/roles/coder.prompt, then read every file it refers to recursively, and follow all of those instructions.\n',
    );
    const worktree = join(root, '.worktrees', 'qa');
    write(join(worktree, 'swarmforge', 'constitution.prompt'));
    assert.equal(
      agentPromptText(root, role('coder', worktree)),
      'Read swarmforge/constitution.prompt, then read every file it refers to recursively, and obey all of those instructions.\n' +
        `Read ${rolePromptPathOf(root, 'coder')}, then read every file it refers to recursively, and follow all of those instructions.\n`,
    );
    assert.equal(
      agentPromptText(root, role('QA')),
      'Read swarmforge/constitution.prompt, then read every file it refers to recursively, and obey all of those instructions.\n',
      'no role prompt: one instruction',
    );
  });

  it('writeAgentPrompts writes .swarmforge/prompts/<role>.md for every role, mode 0600, and returns their paths', () => {
    write(constitutionPathOf(root));
    const written = writeAgentPrompts(root, [role('coder'), role('QA')]);
    assert.deepEqual(
      [...written],
      [
        ['coder', agentPromptPathOf(root, 'coder')],
        ['QA', agentPromptPathOf(root, 'QA')],
      ],
    );
    for (const path of written.values()) {
      assert.equal(fs.statSync(path).mode & 0o777, 0o600);
      assert.match(fs.readFileSync(path, 'utf8'), /^Read swarmforge\/constitution\.prompt, /);
    }
    assert.deepEqual(fs.readdirSync(join(root, '.swarmforge', 'prompts')).sort(), [
      'QA.md',
      'coder.md',
    ]);
  });
});
