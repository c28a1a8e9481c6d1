// A role's consumer that stopped delivering (docs/bridge.md §5). On a cluster whose
// servers are SIGKILLed and restarted, a pull consumer was seen (1 soak run in about 8)
// with messages waiting for it, none awaiting an acknowledgement, both links up, and
// nothing delivered for as long as anyone waited: the client's pulls no longer reached a
// consumer leader that would answer them. Neither the client's heartbeat check nor the
// lease round noticed, since the consume never ended. The lease round now samples each
// consumed role's consumer and judges it here: messages waiting, or delivered and not in
// this node's hands (a pull answered into a subscription that is gone), and no progress
// (nothing acknowledged, nothing arrived) over two samples far enough apart is a stall. The
// first remedy is the client's (the role is consumed afresh: a new subscription, a new
// pull); a stall that outlives it asks the consumer's leader to step down (the server's
// remedy: a new leader, a fresh waiting list). Each remedy is logged with the role.

/**
 * What one lease round saw of a role's consumer (its info) and of this node's hands: waiting
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
  at: number;
  /** An arrival came for the role since `sample`. */
  arrived: boolean;
  /** Stalls judged in a row (each answered by a remedy). */
  strikes: number;
}

/** The stall judge of one bridge: one entry per consumed role. */
export class StallWatch {
  private readonly watched = new Map<string, Watched>();

  /**
   * `stallAfterMs`: two samples closer than this say nothing (a healthy consume re-pulls at
   * least every pull expiry, 3 s, and notices a silent leader after two missed heartbeats).
   */
  constructor(private readonly stallAfterMs: number) {}

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
   * (waiting, or delivered and not in hand) in this sample and the last one at least
   * `stallAfterMs` before, with no acknowledgement and no arrival between them. The first stall
   * in a row asks for the role to be consumed afresh, any later one for a step-down as well.
   */
  judge(role: string, sample: ConsumerSample, now: number): StallRemedy {
    const last = this.watched.get(role);
    if (!last) {
      this.watched.set(role, { sample, at: now, arrived: false, strikes: 0 });
      return 'none';
    }
    if (now - last.at < this.stallAfterMs) return 'none';
    // Not the delivery count: a pull answered into a subscription that is gone counts as
    // delivered without reaching anyone.
    const stalled =
      unservedOf(sample) > 0 &&
      unservedOf(last.sample) > 0 &&
      !last.arrived &&
      sample.ackFloor === last.sample.ackFloor;
    const strikes = stalled ? last.strikes + 1 : 0;
    this.watched.set(role, { sample, at: now, arrived: false, strikes });
    if (strikes === 0) return 'none';
    return strikes === 1 ? 'consume-again' : 'step-down';
  }
}
