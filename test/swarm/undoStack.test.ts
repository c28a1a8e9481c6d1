import assert from 'node:assert/strict';
import { UndoStack } from '../../lib/swarm/undoStack.js';

describe('lib/swarm/undoStack', () => {
  it('runs every undo step last first, reports the ones that fail and still runs the rest, then is empty', async () => {
    const undo = new UndoStack();
    const ran: string[] = [];
    undo.push('worktree', () => void ran.push('worktree'));
    undo.push('tmux server', () => {
      ran.push('tmux server');
      throw new Error('no server\nsecond line');
    });
    undo.push('daemon', async () => void ran.push('daemon'));
    assert.deepEqual(await undo.run(), ['could not undo tmux server: no server']);
    assert.deepEqual(ran, ['daemon', 'tmux server', 'worktree']);
    assert.deepEqual(await undo.run(), [], 'each step runs once');
    assert.equal(ran.length, 3);
  });
});
