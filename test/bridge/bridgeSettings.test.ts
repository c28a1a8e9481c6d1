// The bridge's timings: the contract's values by default (docs/bridge.md §2–3), each
// BATON_BRIDGE_* variable overriding its own only when it is a positive integer.
import assert from 'node:assert/strict';
import { bridgeSettingsOf, type BridgeSettings } from '../../lib/bridge/bridgeSettings.js';

const CONTRACT: BridgeSettings = {
  ackWaitMs: 60_000,
  duplicateWindowMs: 120_000,
  leaseExpiryMs: 30_000,
  leaseRenewMs: 10_000,
  backoffCapMs: 10_000,
  countsIntervalMs: 2_000,
  stallAfterMs: 8_000,
  confirmAfterMs: 30_000,
};

const VARIABLES: [keyof BridgeSettings, string][] = [
  ['ackWaitMs', 'BATON_BRIDGE_ACK_WAIT_MS'],
  ['duplicateWindowMs', 'BATON_BRIDGE_DUPLICATE_WINDOW_MS'],
  ['leaseExpiryMs', 'BATON_BRIDGE_LEASE_EXPIRY_MS'],
  ['leaseRenewMs', 'BATON_BRIDGE_LEASE_RENEW_MS'],
  ['backoffCapMs', 'BATON_BRIDGE_BACKOFF_CAP_MS'],
  ['countsIntervalMs', 'BATON_BRIDGE_COUNTS_INTERVAL_MS'],
  ['stallAfterMs', 'BATON_BRIDGE_STALL_AFTER_MS'],
  ['confirmAfterMs', 'BATON_BRIDGE_CONFIRM_AFTER_MS'],
];

describe('lib/bridge/bridgeSettings', () => {
  it('defaults to the contract: ack wait 60 s, duplicate window 2 min, lease expiry 30 s, renewal 10 s, backoff cap 10 s, counts 2 s, a stall after 8 s, a confirmation within 30 s', () => {
    assert.deepEqual(bridgeSettingsOf({}), CONTRACT);
  });

  it('reads process.env when given no environment', () => {
    const saved = process.env.BATON_BRIDGE_ACK_WAIT_MS;
    process.env.BATON_BRIDGE_ACK_WAIT_MS = '1234';
    try {
      assert.equal(bridgeSettingsOf().ackWaitMs, 1234);
    } finally {
      if (saved === undefined) delete process.env.BATON_BRIDGE_ACK_WAIT_MS;
      else process.env.BATON_BRIDGE_ACK_WAIT_MS = saved;
    }
  });

  for (const [key, variable] of VARIABLES) {
    it(`${variable} overrides ${key} and nothing else`, () => {
      assert.deepEqual(bridgeSettingsOf({ [variable]: '750' }), { ...CONTRACT, [key]: 750 });
    });
  }

  it('all variables at once', () => {
    const env = Object.fromEntries(VARIABLES.map(([, variable], i) => [variable, String(100 + i)]));
    assert.deepEqual(
      bridgeSettingsOf(env),
      Object.fromEntries(VARIABLES.map(([key], i) => [key, 100 + i])),
    );
  });

  for (const junk of ['', 'abc', '0', '-5', '1.5', '10s', 'NaN', 'Infinity']) {
    it(`ignores the junk value '${junk}' (the default stays)`, () => {
      const env = Object.fromEntries(VARIABLES.map(([, variable]) => [variable, junk]));
      assert.deepEqual(bridgeSettingsOf(env), CONTRACT);
    });
  }

  it('ignores variables of other names', () => {
    assert.deepEqual(
      bridgeSettingsOf({
        BATON_BRIDGE_ACK_WAIT: '5',
        bridge_ack_wait_ms: '5',
        BATON_BRIDGE_ACK_WAIT_MS_: '5',
      }),
      CONTRACT,
    );
  });
});
