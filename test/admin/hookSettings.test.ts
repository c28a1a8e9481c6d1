import assert from 'node:assert/strict';
import {
  MalformedSettings,
  mergeHookSettings,
  SESSION_START_MATCHER,
} from '../../lib/admin/hookSettings.js';

const COMMANDS = {
  SessionStart: '/pkg/hooks/session-start',
  UserPromptSubmit: '/pkg/hooks/prompt-submit',
  Stop: '/pkg/hooks/stop',
};
const OURS = {
  SessionStart: [
    {
      matcher: 'startup|resume|clear|compact',
      hooks: [{ type: 'command', command: '/pkg/hooks/session-start', timeout: 10 }],
    },
  ],
  UserPromptSubmit: [
    { hooks: [{ type: 'command', command: '/pkg/hooks/prompt-submit', timeout: 10 }] },
  ],
  Stop: [{ hooks: [{ type: 'command', command: '/pkg/hooks/stop', timeout: 10 }] }],
};

describe('lib/admin/hookSettings', () => {
  it('no file, or a blank one: a settings object with the three groups, SessionStart with its matcher, UserPromptSubmit and Stop without one', () => {
    for (const existing of [undefined, '', ' \n']) {
      const merged = mergeHookSettings(existing, COMMANDS);
      assert.deepEqual(JSON.parse(merged.text), { hooks: OURS });
      assert.deepEqual(
        [merged.changed, merged.events],
        [true, { SessionStart: 'added', UserPromptSubmit: 'added', Stop: 'added' }],
      );
      assert.ok(merged.text.endsWith('}\n'));
    }
    assert.equal(SESSION_START_MATCHER, 'startup|resume|clear|compact');
  });

  it("keeps every other setting, event, group and handler, and appends its own group after the user's", () => {
    const user = {
      permissions: { allow: ['Bash(npm test)'] },
      model: 'opus',
      hooks: {
        PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'guard.sh' }] }],
        SessionStart: [
          { matcher: 'startup', hooks: [{ type: 'command', command: 'hello.sh', timeout: 5 }] },
        ],
        Stop: [{ hooks: [{ type: 'command', command: 'notify.sh' }] }],
      },
    };
    const merged = mergeHookSettings(JSON.stringify(user), COMMANDS);
    assert.deepEqual(JSON.parse(merged.text), {
      ...user,
      hooks: {
        ...user.hooks,
        SessionStart: [...user.hooks.SessionStart, ...OURS.SessionStart],
        UserPromptSubmit: OURS.UserPromptSubmit,
        Stop: [...user.hooks.Stop, ...OURS.Stop],
      },
    });
  });

  it('idempotent: merging its own output changes nothing and keeps the bytes (one entry each, however often)', () => {
    const once = mergeHookSettings('{"a": 1}', COMMANDS).text;
    const twice = mergeHookSettings(once, COMMANDS);
    assert.deepEqual(
      [twice.text, twice.changed, twice.events],
      [once, false, { SessionStart: 'present', UserPromptSubmit: 'present', Stop: 'present' }],
    );
    const hooks = (JSON.parse(twice.text) as { hooks: Record<string, unknown[]> }).hooks;
    assert.deepEqual([hooks.SessionStart!.length, hooks.Stop!.length], [1, 1]);
  });

  it('its command anywhere in an event counts as present (a user who moved or retimed it keeps that); a different path is another hook', () => {
    const moved = {
      hooks: {
        SessionStart: [
          {
            matcher: 'startup',
            hooks: [
              { type: 'command', command: 'x' },
              { type: 'command', command: '/pkg/hooks/session-start', timeout: 3 },
            ],
          },
        ],
      },
    };
    const text = JSON.stringify(moved, null, 4);
    const merged = mergeHookSettings(text, COMMANDS);
    assert.deepEqual(merged.events, {
      SessionStart: 'present',
      UserPromptSubmit: 'added',
      Stop: 'added',
    });
    assert.deepEqual(
      (JSON.parse(merged.text) as typeof moved).hooks.SessionStart,
      moved.hooks.SessionStart,
    );
    const other = mergeHookSettings(
      JSON.stringify({
        hooks: { Stop: [{ hooks: [{ type: 'command', command: '/old/hooks/stop' }] }] },
      }),
      COMMANDS,
    );
    assert.equal(other.events.Stop, 'added');
  });

  it('refuses a file with no safe place to add to: not JSON, not an object, hooks not an object, an event not an array', () => {
    const cases: [string, RegExp][] = [
      ['{"hooks": ', /^not JSON: /],
      ['[]', /^not a JSON object$/],
      ['null', /^not a JSON object$/],
      ['{"hooks": []}', /^"hooks" is not an object$/],
      ['{"hooks": {"Stop": {"hooks": []}}}', /^"hooks.Stop" is not an array$/],
      ['{"hooks": {"SessionStart": "x"}}', /^"hooks.SessionStart" is not an array$/],
    ];
    for (const [text, message] of cases) {
      assert.throws(
        () => mergeHookSettings(text, COMMANDS),
        (err: unknown) => err instanceof MalformedSettings && message.test(err.message),
        text,
      );
    }
  });

  it('groups it does not understand are left alone and not searched', () => {
    const odd = {
      hooks: {
        Stop: [
          'x',
          null,
          { hooks: 'no' },
          { hooks: [null, { type: 'prompt', command: '/pkg/hooks/stop' }] },
        ],
      },
    };
    const merged = mergeHookSettings(JSON.stringify(odd), COMMANDS);
    assert.deepEqual((JSON.parse(merged.text) as typeof odd).hooks.Stop, [
      ...odd.hooks.Stop,
      ...OURS.Stop,
    ]);
  });
});
