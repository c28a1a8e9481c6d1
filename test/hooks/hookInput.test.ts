import assert from 'node:assert/strict';
import { parseHookInput } from '../../lib/hooks/hookInput.js';

describe('lib/hooks/hookInput', () => {
  it("reads Claude Code's Stop input: cwd, the event, stop_hook_active and session_id; every other field is ignored", () => {
    const text = JSON.stringify({
      session_id: 's1',
      transcript_path: '/t.jsonl',
      cwd: '/repo/.worktrees/review',
      permission_mode: 'default',
      hook_event_name: 'Stop',
      stop_hook_active: true,
      last_assistant_message: 'Done.',
    });
    assert.deepEqual(parseHookInput(text, '/elsewhere'), {
      cwd: '/repo/.worktrees/review',
      event: 'Stop',
      stopHookActive: true,
      sessionId: 's1',
    });
  });

  it("reads Codex's SessionStart input (model, source, a null transcript_path)", () => {
    const text = JSON.stringify({
      session_id: 's2',
      transcript_path: null,
      cwd: '/repo',
      hook_event_name: 'SessionStart',
      model: 'gpt-5',
      permission_mode: 'default',
      source: 'startup',
    });
    assert.deepEqual(parseHookInput(text, '/elsewhere'), {
      cwd: '/repo',
      event: 'SessionStart',
      stopHookActive: false,
      sessionId: 's2',
    });
  });

  it("a missing or empty cwd is the hook's own directory; a relative one is resolved against it", () => {
    assert.equal(parseHookInput('{}', '/own').cwd, '/own');
    assert.equal(parseHookInput('{"cwd":""}', '/own').cwd, '/own');
    assert.equal(parseHookInput('{"cwd":7}', '/own').cwd, '/own');
    assert.equal(parseHookInput('{"cwd":"sub/dir"}', '/own').cwd, '/own/sub/dir');
  });

  it('only stop_hook_active === true counts as active; an event that is not a string is absent', () => {
    for (const active of ['true', 1, null, false])
      assert.equal(
        parseHookInput(JSON.stringify({ stop_hook_active: active }), '/').stopHookActive,
        false,
        String(active),
      );
    assert.equal(parseHookInput('{"hook_event_name":3}', '/').event, undefined);
  });

  it('throws on text that is not a JSON object (the hook then prints nothing)', () => {
    for (const text of ['', 'not json', '[]', 'null', '"Stop"', '{"cwd":'])
      assert.throws(() => parseHookInput(text, '/'), text);
  });
});
