import assert from 'node:assert/strict';
import {
  cleanedLine,
  LEAF_COMMAND,
  leafLines,
  stopOnSignals,
  workerTimeoutMs,
} from '../../../lib/cli/review/leafCommands.js';
import { CommandFailure } from '../../../lib/fsx/commandFailure.js';

describe('lib/cli/review/leafCommands', () => {
  it('is `baton leaf <command>`', () => {
    assert.equal(LEAF_COMMAND.command, 'leaf <command>');
  });

  it("a stop signal aborts the leaf with the signal's name until released", () => {
    const counts = () => ['SIGTERM', 'SIGINT', 'SIGHUP'].map((s) => process.listenerCount(s));
    const before = counts();
    const stop = stopOnSignals();
    try {
      assert.deepEqual(
        counts(),
        before.map((n) => n + 1),
      );
      process.emit('SIGHUP', 'SIGHUP');
      assert.deepEqual([stop.signal.aborted, stop.signal.reason], [true, 'SIGHUP']);
    } finally {
      stop.release();
    }
    assert.deepEqual(counts(), before);
  });

  it("the worker's time limit: --timeout, else $DEFAULT_LEAF_TIMEOUT, else 600 s; not positive is invalid", () => {
    assert.equal(workerTimeoutMs(2.5, { DEFAULT_LEAF_TIMEOUT: '30' }), 2500);
    assert.equal(workerTimeoutMs(undefined, { DEFAULT_LEAF_TIMEOUT: '30' }), 30_000);
    assert.equal(workerTimeoutMs(undefined, { DEFAULT_LEAF_TIMEOUT: 'soon' }), 600_000);
    assert.throws(
      () => workerTimeoutMs(0, {}),
      (err: unknown) => err instanceof CommandFailure && err.kind === 'invalid',
    );
  });

  it('prints exact lines: the bead, audit and branch of a run; one line per leaf cleaned, its name escaped', () => {
    assert.equal(
      leafLines({ bead: 'b', audit: '/a.json', branch: 's', commit: 'c' }),
      'BEAD: b\nAUDIT: /a.json\nBRANCH: s c\n',
    );
    assert.equal(
      leafLines({ bead: 'b', audit: '/a.json', branch: '', commit: '' }),
      'BEAD: b\nAUDIT: /a.json\nBRANCH: none (the worker committed nothing)\n',
    );
    assert.equal(
      cleanedLine({
        bead: 'b',
        worktree: 'w',
        path: '/r/.worktrees/w\x1b',
        branch: 'w',
        commit: 'c',
        worker_killed: true,
      }),
      'REMOVED: /r/.worktrees/w\\u001b (bead b; worker killed; branch w kept at c)\n',
    );
    assert.equal(
      cleanedLine({
        bead: 'b',
        worktree: 'w',
        path: '/p',
        branch: '',
        commit: '',
        worker_killed: false,
      }),
      'REMOVED: /p (bead b; branch deleted: nothing committed)\n',
    );
  });
});
