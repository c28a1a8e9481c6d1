import assert from 'node:assert/strict';
import { handoffCount } from '../../lib/hooks/handoffCount.js';

describe('lib/hooks/handoffCount', () => {
  it('counts in words, with the verb agreeing when asked', () => {
    assert.deepEqual(
      [0, 1, 2].map((n) => handoffCount(n)),
      ['0 handoffs', '1 handoff', '2 handoffs'],
    );
    assert.deepEqual(
      [1, 3].map((n) => handoffCount(n, 'wait')),
      ['1 handoff waits', '3 handoffs wait'],
    );
  });
});
