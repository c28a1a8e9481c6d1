// When to wake a role (protocol §8.1), as a pure state machine over what each pass sees:
// - a role that just received a copy is woken, unless it has work in process (it will
//   run done_with_current, which hands it the next item); within 2 s of its last wake-up
//   the wake-up is deferred to the end of those 2 s, not dropped (the role may have gone
//   idle in between, and a dropped wake-up would leave it idle until the re-wake);
// - a role with items waiting, nothing in process and no claim for the re-wake interval
//   is woken again, the interval doubling each time, at most 3 times until it claims;
// - any sign of a claim (work in process, or fewer items waiting) resets the re-wakes;
// - a role whose mail has waited through every re-wake (the last one's doubled interval
//   passed with no claim) is marked spent: health.json records it for status, monitor and
//   doctor. The mark goes with a claim (or the mail) and with a wake-up that succeeds.
// - a role whose agent is still starting (held: `baton up` waits for it, runtime.md §12.1)
//   is not woken yet: a delivery wake-up is deferred by the 2 s gap again, a re-wake waits
//   for a later pass; neither is dropped.
// The state lives in memory and resets when the daemon restarts.

/** What a pass saw of one role's inbox. */
export interface InboxView {
  waiting: number;
  busy: boolean;
}

interface RoleWakeState {
  lastWakeAt: number;
  /** A delivery wake-up deferred by the 2 s gap: due at this time. */
  deferredAt?: number;
  rewakes: number;
  nextRewakeAt: number;
  lastWaiting: number;
  /** When the role's mail was found to have waited through every re-wake; unset otherwise. */
  spentAt?: number;
}

/** Settings of the policy (milliseconds). */
export interface WakeSettings {
  rewakeIntervalMs: number;
  minGapMs?: number;
  maxRewakes?: number;
}

/** Decides, per pass and role, whether to wake it. */
export class WakePolicy {
  private readonly states = new Map<string, RoleWakeState>();
  private readonly minGapMs: number;
  private readonly maxRewakes: number;

  constructor(private readonly settings: WakeSettings) {
    this.minGapMs = settings.minGapMs ?? 2000;
    this.maxRewakes = settings.maxRewakes ?? 3;
  }

  private stateOf(role: string, now: number): RoleWakeState {
    let state = this.states.get(role);
    if (!state) {
      state = {
        lastWakeAt: -Infinity,
        rewakes: 0,
        nextRewakeAt: now + this.settings.rewakeIntervalMs,
        lastWaiting: 0,
      };
      this.states.set(role, state);
    }
    return state;
  }

  /** The earliest time a deferred wake-up falls due (for scheduling the next pass), if any. */
  nextDeferred(): number | undefined {
    // Loops, not array pipelines: an idle daemon asks this of every role on every pass.
    let earliest: number | undefined;
    for (const s of this.states.values())
      if (s.deferredAt !== undefined && (earliest === undefined || s.deferredAt < earliest))
        earliest = s.deferredAt;
    return earliest;
  }

  /** The roles whose deferred wake-up is due at `now`. */
  deferredDue(now: number): Set<string> {
    const due = new Set<string>();
    for (const [role, s] of this.states)
      if (s.deferredAt !== undefined && s.deferredAt <= now) due.add(role);
    return due;
  }

  /**
   * 'delivery' or 'rewake' when the role should be woken now (and records it), else undefined;
   * `held` (asked only when a wake-up is due) says the role's agent is still starting.
   */
  decide(
    role: string,
    view: InboxView,
    justDelivered: boolean,
    now: number,
    held: () => boolean = () => false,
  ): 'delivery' | 'rewake' | undefined {
    const state = this.stateOf(role, now);
    const claimed = view.busy || view.waiting < state.lastWaiting;
    state.lastWaiting = view.waiting;
    if (claimed || view.waiting === 0) {
      state.rewakes = 0;
      state.nextRewakeAt = now + this.settings.rewakeIntervalMs;
      state.spentAt = undefined;
    }
    if (view.busy || view.waiting === 0) state.deferredAt = undefined;
    if (view.busy) return undefined;
    if (justDelivered || (state.deferredAt !== undefined && now >= state.deferredAt)) {
      if (now - state.lastWakeAt < this.minGapMs) {
        state.deferredAt = state.lastWakeAt + this.minGapMs;
        return undefined;
      }
      if (held()) {
        state.deferredAt = now + this.minGapMs;
        return undefined;
      }
      state.deferredAt = undefined;
      state.lastWakeAt = now;
      state.nextRewakeAt = now + this.settings.rewakeIntervalMs;
      return 'delivery';
    }
    if (
      view.waiting > 0 &&
      now >= state.nextRewakeAt &&
      state.rewakes < this.maxRewakes &&
      now - state.lastWakeAt >= this.minGapMs
    ) {
      if (held()) return undefined;
      state.rewakes += 1;
      state.lastWakeAt = now;
      state.nextRewakeAt = now + this.settings.rewakeIntervalMs * 2 ** state.rewakes;
      return 'rewake';
    }
    if (
      view.waiting > 0 &&
      state.rewakes >= this.maxRewakes &&
      now >= state.nextRewakeAt &&
      state.spentAt === undefined
    )
      state.spentAt = now;
    return undefined;
  }

  /**
   * A wake-up of `role` decided at `decidedAt` succeeded: a spent mark set before it goes (one
   * set later stays: the mail waited through that wake-up too).
   */
  wakeSucceeded(role: string, decidedAt: number): void {
    const state = this.states.get(role);
    if (state?.spentAt !== undefined && state.spentAt <= decidedAt) state.spentAt = undefined;
  }

  /** The roles whose mail has waited through every re-wake, each with when that was found. */
  rewakesSpent(): Map<string, number> {
    const spent = new Map<string, number>();
    for (const [role, s] of this.states) if (s.spentAt !== undefined) spent.set(role, s.spentAt);
    return spent;
  }
}
