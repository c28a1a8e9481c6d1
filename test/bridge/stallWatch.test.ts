// The stall judge (lib/bridge/stallWatch.ts): messages unserved (waiting, or delivered and
// not in this node's hands) and no progress (no acknowledgement, no arrival) in every sample
// over at least `stallAfterMs` is a stall; the first in a row asks for a fresh consume, the
// next for a step-down as well; any progress starts the count again.
import assert from 'node:assert/strict';
import { StallWatch, type ConsumerSample } from '../../lib/bridge/stallWatch.js';

const sample = (pending: number, ackPending = 0, inHand = 0, ackFloor = 10): ConsumerSample => ({
  pending,
  ackPending,
  inHand,
  ackFloor,
});

describe('lib/bridge/stallWatch', () => {
  it('the first sample says nothing; messages waiting without progress over the delay is a stall, then a step-down', () => {
    const watch = new StallWatch(1_000);
    assert.equal(watch.judge('r', sample(3), 0), 'none');
    assert.equal(watch.judge('r', sample(3), 999), 'none', 'too soon to say');
    assert.equal(watch.judge('r', sample(3), 1_000), 'consume-again');
    assert.equal(watch.judge('r', sample(3), 2_000), 'step-down');
    assert.equal(watch.judge('r', sample(3), 3_000), 'step-down');
  });

  it('delivered and not in hand (a pull answered into a subscription that is gone) is unserved too; delivered and in hand is not', () => {
    const watch = new StallWatch(1_000);
    watch.judge('r', sample(0, 1, 0), 0);
    assert.equal(watch.judge('r', sample(0, 1, 0), 1_000), 'consume-again');
    const held = new StallWatch(1_000);
    held.judge('r', sample(0, 2, 2), 0);
    assert.equal(held.judge('r', sample(0, 2, 2), 1_000), 'none', 'the daemon holds them');
  });

  it('progress ends it: an acknowledgement, an arrival; nothing unserved is no stall', () => {
    const watch = new StallWatch(1_000);
    watch.judge('r', sample(3), 0);
    assert.equal(watch.judge('r', sample(3, 0, 0, 11), 1_000), 'none', 'acknowledged');
    watch.arrived('r');
    assert.equal(watch.judge('r', sample(3, 0, 0, 11), 2_000), 'none', 'arrived');
    assert.equal(watch.judge('r', sample(0, 0, 0, 11), 3_000), 'none', 'nothing waits');
    assert.equal(watch.judge('r', sample(2, 0, 0, 11), 4_000), 'none', 'unserved in one only');
    assert.equal(watch.judge('r', sample(2, 0, 0, 11), 5_000), 'consume-again');
  });

  it('sampled often, a stall is judged stallAfterMs after the first sample that showed it, not two long rounds later', () => {
    const watch = new StallWatch(1_000);
    assert.equal(watch.sampleEveryMs, 250);
    assert.equal(watch.judge('r', sample(0), 0), 'none');
    assert.equal(watch.judge('r', sample(1), 250), 'none', 'it begins');
    for (const at of [500, 750, 1_000])
      assert.equal(watch.judge('r', sample(1), at), 'none', `${at}`);
    assert.equal(watch.judge('r', sample(1), 1_250), 'consume-again');
    assert.equal(watch.judge('r', sample(1), 2_000), 'none', 'the remedy gets its own time');
    assert.equal(watch.judge('r', sample(1), 2_250), 'step-down');
  });

  it('roles are judged apart; a forgotten role starts afresh', () => {
    const watch = new StallWatch(1_000);
    watch.judge('r', sample(1), 0);
    watch.judge('q', sample(0), 0);
    assert.equal(watch.judge('r', sample(1), 1_000), 'consume-again');
    assert.equal(watch.judge('q', sample(0), 1_000), 'none');
    watch.forget('r');
    assert.equal(watch.judge('r', sample(1), 2_000), 'none');
  });
});
