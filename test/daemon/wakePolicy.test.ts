// Every rule of protocol §8.1 on the pure policy, with explicit clock values (ms).
import assert from 'node:assert/strict';
import { WakePolicy } from '../../lib/daemon/wakePolicy.js';

const I = 60_000; // the default re-wake interval
const idle = (waiting: number) => ({ waiting, busy: false });
const busy = (waiting: number) => ({ waiting, busy: true });

describe('lib/daemon/wakePolicy', () => {
  let policy: WakePolicy;
  beforeEach(() => {
    policy = new WakePolicy({ rewakeIntervalMs: I });
  });

  /** Runs the three re-wakes that follow a delivery wake at `t0` and returns when the third happened. */
  const exhaustRewakes = (role: string, t0: number, waiting = 1): number => {
    assert.equal(policy.decide(role, idle(waiting), false, t0 + I), 'rewake');
    assert.equal(policy.decide(role, idle(waiting), false, t0 + 3 * I), 'rewake');
    assert.equal(policy.decide(role, idle(waiting), false, t0 + 7 * I), 'rewake');
    assert.equal(policy.decide(role, idle(waiting), false, t0 + 1000 * I), undefined);
    return t0 + 7 * I;
  };

  it('wakes a recipient that just received a copy', () => {
    assert.equal(policy.decide('reviewer', idle(1), true, 1_000), 'delivery');
  });

  it('wakes only recipients that just received a copy or are due a re-wake', () => {
    assert.equal(policy.decide('QA', idle(0), false, 0), undefined);
    assert.equal(
      policy.decide('QA', idle(2), false, 1),
      undefined,
      'waiting mail alone is not a reason before the re-wake interval',
    );
  });

  it('never wakes a recipient with work in process, even on delivery', () => {
    assert.equal(policy.decide('reviewer', busy(1), true, 0), undefined);
    assert.equal(policy.decide('reviewer', busy(2), true, 10_000), undefined);
    assert.equal(policy.decide('reviewer', busy(2), false, 100 * I), undefined, 'nor by re-wake');
    assert.equal(
      policy.decide('reviewer', idle(3), true, 100 * I + 1),
      'delivery',
      'a skipped wake does not count against the 2 s gap',
    );
  });

  it('at most one wake-up per 2 s: a burst of deliveries gives one wake-up', () => {
    assert.equal(policy.decide('reviewer', idle(1), true, 10_000), 'delivery');
    assert.equal(policy.decide('reviewer', idle(2), true, 10_500), undefined);
    assert.equal(policy.decide('reviewer', idle(3), true, 11_999), undefined);
    assert.equal(
      policy.decide('QA', idle(1), true, 11_999),
      'delivery',
      'the gap is per recipient',
    );
    assert.equal(
      policy.decide('reviewer', idle(4), true, 12_000),
      'delivery',
      '2 s after the last wake-up',
    );
    assert.equal(policy.decide('reviewer', idle(5), true, 13_000), undefined);
  });

  it('defers a wake-up held back by the gap to the end of the gap instead of dropping it', () => {
    assert.equal(policy.decide('reviewer', idle(1), true, 10_000), 'delivery');
    assert.equal(policy.nextDeferred(), undefined);
    assert.equal(policy.decide('reviewer', idle(1), true, 10_500), undefined);
    assert.equal(policy.nextDeferred(), 12_000);
    assert.equal(policy.decide('reviewer', idle(1), false, 11_999), undefined);
    assert.equal(
      policy.decide('reviewer', idle(1), false, 12_000),
      'delivery',
      'the deferred wake-up is due',
    );
    assert.equal(policy.nextDeferred(), undefined);
    assert.equal(policy.decide('reviewer', idle(2), true, 12_100), undefined);
    assert.equal(
      policy.decide('reviewer', busy(1), false, 13_000),
      undefined,
      'a claim makes the deferred wake-up moot',
    );
    assert.equal(policy.nextDeferred(), undefined);
    assert.equal(policy.decide('reviewer', idle(1), false, 14_500), undefined);
  });

  it('the gap is configurable', () => {
    policy = new WakePolicy({ rewakeIntervalMs: I, minGapMs: 100 });
    assert.equal(policy.decide('r', idle(1), true, 0), 'delivery');
    assert.equal(policy.decide('r', idle(2), true, 99), undefined);
    assert.equal(policy.decide('r', idle(3), true, 100), 'delivery');
  });

  it('re-wakes an idle recipient with waiting mail after the interval, doubling it each time, at most 3 times', () => {
    assert.equal(policy.decide('r', idle(1), true, 0), 'delivery');
    assert.equal(policy.decide('r', idle(1), false, I - 1), undefined);
    assert.equal(policy.decide('r', idle(1), false, I), 'rewake');
    assert.equal(policy.decide('r', idle(1), false, I + 2 * I - 1), undefined);
    assert.equal(policy.decide('r', idle(1), false, I + 2 * I), 'rewake');
    assert.equal(policy.decide('r', idle(1), false, 3 * I + 4 * I - 1), undefined);
    assert.equal(policy.decide('r', idle(1), false, 3 * I + 4 * I), 'rewake');
    assert.equal(policy.decide('r', idle(1), false, 7 * I + 8 * I), undefined, 'no fourth re-wake');
    assert.equal(policy.decide('r', idle(1), false, 10_000 * I), undefined);
  });

  it('counts the interval from the first pass that sees the mail when there was no delivery wake (daemon restart)', () => {
    assert.equal(policy.decide('r', idle(2), false, 5_000), undefined);
    assert.equal(policy.decide('r', idle(2), false, 5_000 + I - 1), undefined);
    assert.equal(policy.decide('r', idle(2), false, 5_000 + I), 'rewake');
  });

  it('a custom maximum of re-wakes is honoured', () => {
    policy = new WakePolicy({ rewakeIntervalMs: I, maxRewakes: 1 });
    assert.equal(policy.decide('r', idle(1), true, 0), 'delivery');
    assert.equal(policy.decide('r', idle(1), false, I), 'rewake');
    assert.equal(policy.decide('r', idle(1), false, 1000 * I), undefined);
  });

  it('a re-wake counts for the 2 s gap of a following delivery', () => {
    assert.equal(policy.decide('r', idle(1), true, 0), 'delivery');
    assert.equal(policy.decide('r', idle(1), false, I), 'rewake');
    assert.equal(policy.decide('r', idle(2), true, I + 1_999), undefined);
    assert.equal(policy.decide('r', idle(3), true, I + 2_000), 'delivery');
  });

  it('never re-wakes within 2 s of the last wake-up, even with a re-wake interval shorter than 2 s', () => {
    policy = new WakePolicy({ rewakeIntervalMs: 1_000 });
    assert.equal(policy.decide('r', idle(1), true, 0), 'delivery');
    assert.equal(
      policy.decide('r', idle(1), false, 1_000),
      undefined,
      'only 1 s after the delivery wake-up',
    );
    assert.equal(policy.decide('r', idle(1), false, 2_000), 'rewake');
  });

  it('a claim (work in process) resets the re-wakes: the interval restarts from the last busy pass', () => {
    assert.equal(policy.decide('r', idle(1), true, 0), 'delivery');
    const t = exhaustRewakes('r', 0, 2);
    assert.equal(policy.decide('r', busy(1), false, t + 10_000), undefined);
    assert.equal(policy.decide('r', idle(1), false, t + 10_001), undefined);
    assert.equal(policy.decide('r', idle(1), false, t + 10_000 + I - 1), undefined);
    assert.equal(
      policy.decide('r', idle(1), false, t + 10_000 + I),
      'rewake',
      'the count restarted',
    );
    assert.equal(
      policy.decide('r', idle(1), false, t + 10_000 + 3 * I),
      'rewake',
      'and the interval starts over at 1×',
    );
  });

  it('a claim seen as fewer waiting items (claimed and finished between passes) resets the re-wakes', () => {
    assert.equal(policy.decide('r', idle(3), true, 0), 'delivery');
    const t = exhaustRewakes('r', 0, 3);
    assert.equal(policy.decide('r', idle(2), false, t + 5_000), undefined);
    assert.equal(policy.decide('r', idle(2), false, t + 5_000 + I - 1), undefined);
    assert.equal(policy.decide('r', idle(2), false, t + 5_000 + I), 'rewake');
  });

  it('resets when new/ empties: the next delivery is followed by a fresh series of re-wakes', () => {
    assert.equal(policy.decide('r', idle(1), true, 0), 'delivery');
    const t = exhaustRewakes('r', 0);
    assert.equal(policy.decide('r', idle(0), false, t + 1_000), undefined);
    assert.equal(
      policy.decide('r', idle(0), false, t + 1_000 + 10 * I),
      undefined,
      'nothing waiting: no re-wake',
    );
    const t2 = t + 1_000 + 10 * I + 1;
    assert.equal(policy.decide('r', idle(1), true, t2), 'delivery');
    assert.equal(policy.decide('r', idle(1), false, t2 + I), 'rewake');
  });

  it('without a claim, a new delivery wakes but does not restore the spent re-wakes', () => {
    assert.equal(policy.decide('r', idle(1), true, 0), 'delivery');
    const t = exhaustRewakes('r', 0);
    assert.equal(policy.decide('r', idle(2), true, t + 10_000), 'delivery');
    assert.equal(policy.decide('r', idle(2), false, t + 10_000 + 100 * I), undefined);
  });

  describe('the spent mark (status, monitor and doctor report it from health.json)', () => {
    const spent = () => [...policy.rewakesSpent()];

    it('marks a role whose mail waited through the third re-wake and its doubled interval', () => {
      assert.equal(policy.decide('r', idle(1), true, 0), 'delivery');
      assert.equal(policy.decide('r', idle(1), false, I), 'rewake');
      assert.equal(policy.decide('r', idle(1), false, 3 * I), 'rewake');
      assert.equal(policy.decide('r', idle(1), false, 7 * I), 'rewake');
      assert.deepEqual(spent(), [], 'the third re-wake may still be answered');
      assert.equal(policy.decide('r', idle(1), false, 15 * I - 1), undefined);
      assert.deepEqual(spent(), []);
      assert.equal(policy.decide('r', idle(1), false, 15 * I), undefined);
      assert.deepEqual(spent(), [['r', 15 * I]]);
      assert.equal(policy.decide('r', idle(1), false, 20 * I), undefined);
      assert.deepEqual(spent(), [['r', 15 * I]], 'found once: the time stays');
    });

    it('never marks a role with nothing waiting or with work in process', () => {
      policy.decide('r', busy(1), false, 0);
      policy.decide('q', idle(0), false, 0);
      for (let t = I; t <= 100 * I; t += I) {
        policy.decide('r', busy(1), false, t);
        policy.decide('q', idle(0), false, t);
      }
      assert.deepEqual(spent(), []);
    });

    it('a claim lifts the mark (work in process, or fewer items waiting)', () => {
      assert.equal(policy.decide('r', idle(2), true, 0), 'delivery');
      const t = exhaustRewakes('r', 0, 2);
      assert.equal(spent().length, 1);
      policy.decide('r', busy(1), false, t + 1000 * I + 1);
      assert.deepEqual(spent(), []);
      assert.equal(policy.decide('q', idle(2), true, 0), 'delivery');
      const u = exhaustRewakes('q', 0, 2);
      policy.decide('q', idle(1), false, u + 1000 * I + 1);
      assert.deepEqual(spent(), []);
    });

    it('a wake-up that succeeds lifts it; it returns when the mail outwaits that one too', () => {
      assert.equal(policy.decide('r', idle(1), true, 0), 'delivery');
      const t = exhaustRewakes('r', 0) + 1000 * I - 7 * I;
      assert.deepEqual(spent(), [['r', t]]);
      assert.equal(policy.decide('r', idle(2), true, t + 1), 'delivery');
      assert.equal(spent().length, 1, 'decided is not done: a wake-up may fail');
      policy.wakeSucceeded('r', t + 1);
      assert.deepEqual(spent(), []);
      assert.equal(policy.decide('r', idle(2), false, t + 1 + I - 1), undefined);
      assert.deepEqual(spent(), []);
      assert.equal(policy.decide('r', idle(2), false, t + 1 + I), undefined, 'no fourth re-wake');
      assert.deepEqual(spent(), [['r', t + 1 + I]]);
    });

    it('a wake-up decided before the mark was set does not lift it', () => {
      assert.equal(policy.decide('r', idle(1), true, 0), 'delivery');
      const t = exhaustRewakes('r', 0) + 1000 * I - 7 * I;
      policy.wakeSucceeded('r', t - 1);
      assert.deepEqual(spent(), [['r', t]]);
      policy.wakeSucceeded('unknown', t);
      assert.deepEqual(spent(), [['r', t]]);
    });
  });
  it('a role held while its agent starts is not woken, and its wake-up comes once the hold ends', () => {
    let held = true;
    const isHeld = () => held;
    assert.equal(policy.decide('coder', idle(1), true, 1_000, isHeld), undefined);
    assert.equal(policy.nextDeferred(), 3_000, 'the delivery wake-up is deferred, not dropped');
    assert.equal(policy.decide('coder', idle(1), false, 3_000, isHeld), undefined);
    assert.equal(policy.nextDeferred(), 5_000, 'deferred again while the hold lasts');
    held = false;
    assert.deepEqual([...policy.deferredDue(5_000)], ['coder']);
    assert.equal(policy.decide('coder', idle(1), false, 5_000, isHeld), 'delivery');
  });

  it('a re-wake that falls due during a hold waits for it to end and is still counted once', () => {
    assert.equal(policy.decide('coder', idle(1), true, 0), 'delivery');
    assert.equal(
      policy.decide('coder', idle(1), false, I, () => true),
      undefined,
    );
    assert.equal(
      policy.decide('coder', idle(1), false, I + 5_000, () => false),
      'rewake',
    );
    assert.equal(
      policy.decide('coder', idle(1), false, I + 5_000 + 2 * I, () => false),
      'rewake',
    );
  });
});
