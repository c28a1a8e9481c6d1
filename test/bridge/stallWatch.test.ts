// The stall judge (lib/bridge/stallWatch.ts): messages waiting and no progress between two
// samples at least `stallAfterMs` apart is a stall; the first in a row asks for a fresh
// consume, the next for a step-down as well; any progress starts the count again.
import assert from 'node:assert/strict';
import { StallWatch, type ConsumerSample } from '../../lib/bridge/stallWatch.js';

const waiting = (pending: number, delivered = 10, ackFloor = 10): ConsumerSample => ({
  pending,
  delivered,
  ackFloor,
});

describe('lib/bridge/stallWatch', () => {
  it('the first sample says nothing; no progress with messages waiting over the delay is a stall, then a step-down', () => {
    const watch = new StallWatch(1_000);
    assert.equal(watch.judge('r', waiting(3), 0), 'none');
    assert.equal(watch.judge('r', waiting(3), 999), 'none', 'too soon to say');
    assert.equal(watch.judge('r', waiting(3), 1_000), 'consume-again');
    assert.equal(watch.judge('r', waiting(3), 2_000), 'step-down');
    assert.equal(watch.judge('r', waiting(3), 3_000), 'step-down');
  });

  it('progress of any kind ends it: a delivery, an acknowledgement, an arrival; nothing waiting is no stall', () => {
    const watch = new StallWatch(1_000);
    watch.judge('r', waiting(3), 0);
    assert.equal(watch.judge('r', waiting(3, 11), 1_000), 'none', 'delivered');
    assert.equal(watch.judge('r', waiting(3, 11, 11), 2_000), 'none', 'acknowledged');
    watch.arrived('r');
    assert.equal(watch.judge('r', waiting(3, 11, 11), 3_000), 'none', 'arrived');
    assert.equal(watch.judge('r', waiting(0, 11, 11), 4_000), 'none', 'nothing waits');
    assert.equal(
      watch.judge('r', waiting(2, 11, 11), 5_000),
      'none',
      'waiting since the last only',
    );
    assert.equal(watch.judge('r', waiting(2, 11, 11), 6_000), 'consume-again');
  });

  it('roles are judged apart; a forgotten role starts afresh', () => {
    const watch = new StallWatch(1_000);
    watch.judge('r', waiting(1), 0);
    watch.judge('q', waiting(0), 0);
    assert.equal(watch.judge('r', waiting(1), 1_000), 'consume-again');
    assert.equal(watch.judge('q', waiting(0), 1_000), 'none');
    watch.forget('r');
    assert.equal(watch.judge('r', waiting(1), 2_000), 'none');
  });
});
