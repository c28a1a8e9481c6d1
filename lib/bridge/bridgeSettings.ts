// The bridge's timings (docs/bridge.md §2–3). The contract's values are the defaults; the
// BATON_BRIDGE_* variables exist so that tests can see a redelivery, an expired duplicate
// window or a lease takeover in seconds rather than minutes (docs/decisions.md).

/** How long the bridge waits for things, in milliseconds. */
export interface BridgeSettings {
  /** A delivered message not acknowledged within this is redelivered (60 s). */
  ackWaitMs: number;
  /** The server drops a publish whose Nats-Msg-Id it saw within this window (2 min). */
  duplicateWindowMs: number;
  /** A role lease not renewed within this may be taken by another node (30 s). */
  leaseExpiryMs: number;
  /** How often a held lease is renewed (10 s). */
  leaseRenewMs: number;
  /** The longest wait between two tries after a failed connect or publish (10 s). */
  backoffCapMs: number;
  /** How often bridge.json's counts are refreshed while connected (2 s). */
  countsIntervalMs: number;
  /**
   * A consumer with messages waiting and no progress for this long is stalled; it is sampled
   * every quarter of it (stallWatch.ts; 8 s: more than a pull's expiry and two missed
   * heartbeats).
   */
  stallAfterMs: number;
  /**
   * A handoff published to a remote role and not confirmed by the role's node within this is
   * looked for on the server, and published again if it vanished there (30 s).
   */
  confirmAfterMs: number;
}

const DEFAULTS: BridgeSettings = {
  ackWaitMs: 60_000,
  duplicateWindowMs: 120_000,
  leaseExpiryMs: 30_000,
  leaseRenewMs: 10_000,
  backoffCapMs: 10_000,
  countsIntervalMs: 2_000,
  stallAfterMs: 8_000,
  confirmAfterMs: 30_000,
};

const VARIABLES: Record<keyof BridgeSettings, string> = {
  ackWaitMs: 'BATON_BRIDGE_ACK_WAIT_MS',
  duplicateWindowMs: 'BATON_BRIDGE_DUPLICATE_WINDOW_MS',
  leaseExpiryMs: 'BATON_BRIDGE_LEASE_EXPIRY_MS',
  leaseRenewMs: 'BATON_BRIDGE_LEASE_RENEW_MS',
  backoffCapMs: 'BATON_BRIDGE_BACKOFF_CAP_MS',
  countsIntervalMs: 'BATON_BRIDGE_COUNTS_INTERVAL_MS',
  stallAfterMs: 'BATON_BRIDGE_STALL_AFTER_MS',
  confirmAfterMs: 'BATON_BRIDGE_CONFIRM_AFTER_MS',
};

/**
 * The settings: the contract's defaults, each overridden by its variable when that is a positive
 * integer.
 */
export function bridgeSettingsOf(env: NodeJS.ProcessEnv = process.env): BridgeSettings {
  const settings = { ...DEFAULTS };
  for (const key of Object.keys(VARIABLES) as (keyof BridgeSettings)[]) {
    const value = Number(env[VARIABLES[key]]);
    if (Number.isInteger(value) && value > 0) settings[key] = value;
  }
  return settings;
}
