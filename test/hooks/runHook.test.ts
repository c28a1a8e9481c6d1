import assert from 'node:assert/strict';
import { hookOutput, type HookAnswer } from '../../lib/hooks/runHook.js';

describe('lib/hooks/runHook', () => {
  const seen: unknown[] = [];
  const echo: HookAnswer = (input, env) => {
    seen.push([input, env.SWARMFORGE_ROLE]);
    return `answer for ${input.cwd}\n`;
  };
  beforeEach(() => {
    seen.length = 0;
  });

  it('hands the parsed input and the environment to the answer and prints what it returns', async () => {
    const out = await hookOutput('Stop', '{"cwd":"/repo","hook_event_name":"Stop"}', echo, '/own', {
      SWARMFORGE_ROLE: 'QA',
    });
    assert.deepEqual(out, { stdout: 'answer for /repo\n' });
    assert.deepEqual(seen, [
      [{ cwd: '/repo', event: 'Stop', stopHookActive: false, sessionId: '' }, 'QA'],
    ]);
  });

  it('an input without hook_event_name is answered; one naming another event is not (its schema would not fit)', async () => {
    assert.equal((await hookOutput('Stop', '{}', echo, '/own', {})).stdout, 'answer for /own\n');
    assert.deepEqual(
      await hookOutput('Stop', '{"hook_event_name":"SubagentStop"}', echo, '/own', {}),
      { stdout: '' },
    );
    assert.equal(seen.length, 1);
  });

  it('an answer of undefined prints nothing', async () => {
    assert.deepEqual(await hookOutput('Stop', '{}', () => undefined, '/', {}), { stdout: '' });
  });

  it("any failure, the input's or the answer's (thrown or rejected), prints nothing and is returned, never thrown", async () => {
    const bad = await hookOutput('Stop', 'not json', echo, '/', {});
    assert.equal(bad.stdout, '');
    assert.ok(bad.failure instanceof SyntaxError);
    const thrown = await hookOutput(
      'Stop',
      '{}',
      () => {
        throw new Error('boom');
      },
      '/',
      {},
    );
    assert.deepEqual([thrown.stdout, (thrown.failure as Error).message], ['', 'boom']);
    const rejected = await hookOutput(
      'SessionStart',
      '{}',
      () => Promise.reject(new Error('later')),
      '/',
      {},
    );
    assert.deepEqual([rejected.stdout, (rejected.failure as Error).message], ['', 'later']);
  });
});
