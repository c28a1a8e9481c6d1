// A role's consumer that stopped delivering (docs/bridge.md §5). On a cluster whose
// servers are SIGKILLed and restarted, a pull consumer was seen (1 soak run in about 8)
// with messages waiting for it, none awaiting an acknowledgement, both links up, and
// nothing delivered for as long as anyone waited: the client's pulls no longer reached a
// consumer leader that would answer them. Neither the client's heartbeat check nor the
// lease round noticed, since the consume never ended. The bridge now samples each consumed
// role's consumer every quarter of `stallAfterMs` and judges it here: messages waiting, or
// delivered and not in this node's hands (a pull answered into a subscription that is gone),
// and no progress (nothing acknowledged, nothing arrived) for `stallAfterMs` is a stall. The
// first remedy is the client's (the role is consumed afresh: a new subscription, a new
// pull); a stall that outlives it asks the consumer's leader to step down (the server's
// remedy: a new leader, a fresh waiting list). Each remedy is logged with the role.

/**
 * What one sample saw of a role's consumer (its info) and of this node's hands: waiting
 * messages, delivered ones awaiting acknowledgement, how far it was acknowledged.
 */
export interface ConsumerSample {
  /** Messages of the role's subject the consumer has not delivered yet (num_pending). */
  pending: number;
  /** Delivered and not acknowledged (num_ack_pending). */
  ackPending: number;
  /** Of those, the arrivals this node holds and has not answered yet. */
  inHand: number;
  /** The consumer sequence of its acknowledgement floor. */
  ackFloor: number;
}

/** Messages the role's node should be getting and is not: waiting, or delivered elsewhere. */
export function unservedOf(sample: ConsumerSample): number {
  return sample.pending + Math.max(0, sample.ackPending - sample.inHand);
}

/** What the lease round does about a role: nothing, consume it afresh, or that and a step-down. */
export type StallRemedy = 'none' | 'consume-again' | 'step-down';

interface Watched {
  sample: ConsumerSample;
  /** When the samples began to show messages unserved with no progress (none: they do not). */
  since: number | undefined;
  /** An arrival came for the role since `sample`. */
  arrived: boolean;
  /** Stalls judged in a row (each answered by a remedy). */
  strikes: number;
}

/** The stall judge of one bridge: one entry per consumed role. */
export class StallWatch {
  private readonly watched = new Map<string, Watched>();

  /**
   * `stallAfterMs`: how long messages may stay unserved with no progress before it is a stall
   * (a healthy consume re-pulls at least every pull expiry, 3 s, and notices a silent leader
   * after two missed heartbeats).
   */
  constructor(private readonly stallAfterMs: number) {}

  /** How often to sample a role so that a stall is seen soon after `stallAfterMs`. */
  get sampleEveryMs(): number {
    return Math.max(1, Math.floor(this.stallAfterMs / 4));
  }

  /** Notes an arrival for `role` (progress, whatever the next sample says). */
  arrived(role: string): void {
    const entry = this.watched.get(role);
    if (entry) entry.arrived = true;
  }

  /** Forgets `role` (no longer consumed here): its next sample starts afresh. */
  forget(role: string): void {
    this.watched.delete(role);
  }

  /**
   * Judges `role` from its consumer's `sample` taken at `now`: a stall is messages unserved
   * (waiting, or delivered and not in hand) in every sample over at least `stallAfterMs`, with
   * no acknowledgement and no arrival in that time. The first stall in a row asks for the role
   * to be consumed afresh, any later one (`stallAfterMs` after the last) for a step-down as well.
   */
  judge(role: string, sample: ConsumerSample, now: number): StallRemedy {
    const last = this.watched.get(role);
    const unserved = unservedOf(sample) > 0;
    // Not the delivery count: a pull answered into a subscription that is gone counts as
    // delivered without reaching anyone.
    const progress =
      last !== undefined && (last.arrived || sample.ackFloor !== last.sample.ackFloor);
    if (!last || !unserved || progress) {
      this.watched.set(role, {
        sample,
        since: unserved ? now : undefined,
        arrived: false,
        strikes: 0,
      });
      return 'none';
    }
    const since = last.since ?? now;
    const stalled = now - since >= this.stallAfterMs;
    const strikes = stalled ? last.strikes + 1 : last.strikes;
    this.watched.set(role, { sample, since: stalled ? now : since, arrived: false, strikes });
    if (!stalled) return 'none';
    return strikes === 1 ? 'consume-again' : 'step-down';
  }
}
