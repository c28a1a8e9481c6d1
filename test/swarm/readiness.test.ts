// The readiness rules of runtime.md §12.1 on the pure step, with explicit clock values (ms):
// ready by the SessionStart hook or by a quiet pane, Baton's own programs at once, and the
// one Enter for a first prompt left on the input line.
import assert from 'node:assert/strict';
import {
  notReadyReason,
  promptTailOf,
  readinessStep,
  type PaneLook,
  type ReadinessWatch,
  type WatchState,
} from '../../lib/swarm/readiness.js';

const watch = (extra: Partial<ReadinessWatch> = {}): ReadinessWatch => ({
  role: 'coder',
  pane: '%1',
  shell: 'sh',
  launchedAt: 1_000,
  ownProgram: false,
  ...extra,
});
const look = (at: number, text: string, extra: Partial<PaneLook> = {}): PaneLook => ({
  at,
  command: 'claude',
  dead: false,
  text,
  ...extra,
});

describe('lib/swarm/readiness', () => {
  let state: WatchState;
  beforeEach(() => {
    state = { changedAt: 1_000 };
  });

  it("Baton's own programs are ready at once", () => {
    assert.deepEqual(readinessStep(watch({ ownProgram: true }), state, look(1_000, '')), {
      enter: false,
      ready: 'baton-program',
    });
  });

  it('ready by a hook report written after the launch; one from before counts for nothing', () => {
    const w = watch();
    assert.equal(readinessStep(w, state, look(1_200, '$', { reportedAt: 900 })).ready, undefined);
    assert.equal(readinessStep(w, state, look(1_400, '$ x', { reportedAt: 1_300 })).ready, 'hook');
  });

  it('ready by a pane that runs a program other than the shell and has been still for 3 s', () => {
    const w = watch();
    assert.equal(readinessStep(w, state, look(1_500, 'a', { command: 'sh' })).ready, undefined);
    assert.equal(readinessStep(w, state, look(2_000, 'b')).ready, undefined);
    assert.equal(readinessStep(w, state, look(4_999, 'b')).ready, undefined);
    assert.equal(readinessStep(w, state, look(5_000, 'b')).ready, 'quiet');
  });

  it('a pane that keeps changing, or still runs the shell, is not quiet', () => {
    const w = watch();
    for (let t = 1_000; t < 20_000; t += 500)
      assert.equal(readinessStep(w, state, look(t, `spinner ${t}`)).ready, undefined);
    const shell = watch();
    const still: WatchState = { changedAt: 1_000 };
    for (let t = 1_000; t < 20_000; t += 500)
      assert.equal(readinessStep(shell, still, look(t, '$', { command: 'sh' })).ready, undefined);
    assert.equal(
      notReadyReason(shell, still, look(20_000, '$', { command: 'sh' })),
      'its agent did not start (the pane still runs sh)',
    );
  });

  it('a first prompt still on the input line 5 s after the launch, the pane still for 1 s: one Enter, never a second', () => {
    const w = watch({ promptTail: 'Read the constitution.' });
    const screen = 'welcome\n> Read the constitution.\n\n';
    assert.deepEqual(readinessStep(w, state, look(2_000, screen, { reportedAt: 1_500 })), {
      enter: false,
    });
    assert.deepEqual(readinessStep(w, state, look(6_000, screen, { reportedAt: 1_500 })), {
      enter: true,
    });
    for (const t of [7_000, 9_000, 30_000])
      assert.deepEqual(readinessStep(w, state, look(t, screen, { reportedAt: 1_500 })), {
        enter: false,
      });
    assert.equal(
      notReadyReason(w, state, look(30_000, screen)),
      'its first prompt is still not submitted after one Enter',
    );
  });

  it('no Enter while the pane changes (an agent typing), nor once the prompt has left the input line', () => {
    const w = watch({ promptTail: 'Go.' });
    for (let t = 1_000; t < 10_000; t += 250)
      assert.equal(readinessStep(w, state, look(t, `> Go.${t}`)).enter, false);
    const fresh: WatchState = { changedAt: 1_000 };
    const done = '> Go.\n● answered\n>';
    assert.deepEqual(readinessStep(w, fresh, look(6_100, done, { reportedAt: 1_100 })), {
      enter: false,
      ready: 'hook',
    });
  });

  it('a role with a first prompt is not called ready before the 5 s of the check', () => {
    const w = watch({ promptTail: 'Go.' });
    assert.equal(readinessStep(w, state, look(5_999, '>', { reportedAt: 1_100 })).ready, undefined);
    assert.equal(readinessStep(w, state, look(6_000, '>', { reportedAt: 1_100 })).ready, 'hook');
  });

  it("the prompt's tail is its last non-blank line, trimmed", () => {
    assert.equal(promptTailOf('Read a.\n  Read b.  \n\n'), 'Read b.');
    assert.equal(promptTailOf('\n \n'), undefined);
  });
});
