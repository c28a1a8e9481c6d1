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
