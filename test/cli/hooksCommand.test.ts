import assert from 'node:assert/strict';
import { HOOKS_COMMAND, installJson, installText } from '../../lib/cli/hooksCommand.js';
import { type HookInstall } from '../../lib/admin/installHooks.js';

const RESULT: HookInstall = {
  agent: 'codex',
  path: '/repo/.codex/hooks.json',
  text: '{}\n',
  changed: true,
  dryRun: false,
  events: { SessionStart: 'added', UserPromptSubmit: 'added', Stop: 'present' },
  commands: {
    SessionStart: '/pkg/hooks/session-start',
    UserPromptSubmit: '/pkg/hooks/prompt-submit',
    Stop: '/pkg/hooks/stop',
  },
};

describe('lib/cli/hooksCommand', () => {
  it('is `baton hooks <command>`', () => {
    assert.equal(HOOKS_COMMAND.command, 'hooks <command>');
  });

  it('the text report: the file, then each event with what happened and its command', () => {
    assert.equal(
      installText(RESULT),
      'HOOKS INSTALLED: /repo/.codex/hooks.json\nSessionStart: added /pkg/hooks/session-start\n' +
        'UserPromptSubmit: added /pkg/hooks/prompt-submit\nStop: present /pkg/hooks/stop\n',
    );
    assert.match(
      installText({ ...RESULT, changed: false }),
      /^HOOKS ALREADY INSTALLED: \/repo\/.codex\/hooks.json\n/,
    );
  });

  it("codex's feature flag: one more line, the headline counting its change too; in JSON as feature", () => {
    const feature = { path: '/repo/.codex/config.toml', text: 'x', outcome: 'added' as const };
    const text = installText({ ...RESULT, changed: false, feature });
    assert.match(text, /^HOOKS INSTALLED: /);
    assert.match(
      text,
      /\nStop: present \/pkg\/hooks\/stop\ncodex_hooks: added \/repo\/.codex\/config.toml\n$/,
    );
    const present = installText({
      ...RESULT,
      changed: false,
      feature: { ...feature, outcome: 'present' },
    });
    assert.match(present, /^HOOKS ALREADY INSTALLED: [^]*\ncodex_hooks: present /);
    assert.deepEqual(JSON.parse(installJson({ ...RESULT, feature })).feature, {
      file: '/repo/.codex/config.toml',
      outcome: 'added',
    });
    assert.deepEqual(JSON.parse(installJson({ ...RESULT, dryRun: true, feature })).feature, {
      file: '/repo/.codex/config.toml',
      outcome: 'added',
      content: 'x',
    });
  });

  it('the JSON report; a dry run adds the merged text as content', () => {
    assert.deepEqual(JSON.parse(installJson(RESULT)), {
      agent: 'codex',
      file: '/repo/.codex/hooks.json',
      changed: true,
      dry_run: false,
      events: { SessionStart: 'added', UserPromptSubmit: 'added', Stop: 'present' },
      commands: RESULT.commands,
    });
    assert.equal(
      (JSON.parse(installJson({ ...RESULT, dryRun: true })) as { content: string }).content,
      '{}\n',
    );
  });
});
