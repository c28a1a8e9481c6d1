// Role leases in the owners' KV bucket of a real nats-server (docs/bridge.md §3): one node
// holds a role; another is refused with the holder's name; the holder's restart takes it
// back at once; a lease whose revision has not moved for the expiry, on the claimer's own
// clock (`now` passed explicitly), is taken over, and the old holder's next renewal fails.
import assert from 'node:assert/strict';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { type KV } from '@nats-io/kv';
import { bridgeSettingsOf } from '../../lib/bridge/bridgeSettings.js';
import { RoleLeases } from '../../lib/bridge/roleLeases.js';
import { openOwners } from '../../lib/bridge/wireSetup.js';
import { startNatsServer, type NatsServerHandle } from '../support/nats.js';

describe('lib/bridge/roleLeases', function () {
  this.timeout(30_000);
  let nats: NatsServerHandle;
  let nc: NatsConnection;
  let kv: KV;
  let swarms = 0;
  const settings = { ...bridgeSettingsOf({}), leaseExpiryMs: 30_000 };
  const T0 = 1_000_000;
  before(async () => {
    nats = await startNatsServer();
    nc = await connect({ servers: nats.url });
  });
  after(async () => {
    await nc?.close();
    await nats?.stop();
  });
  beforeEach(async () => {
    swarms += 1;
    kv = await openOwners(nc, `leases-${swarms}`);
  });

  const holderOf = async (role: string) => (await kv.get(role))?.string();
  const revisionOf = async (role: string) => (await kv.get(role))?.revision;

  it('the first node takes a free role: its name is the value', async () => {
    const a = new RoleLeases(kv, 'a', settings);
    assert.equal(a.holds('reviewer'), false);
    assert.equal(await a.claim('reviewer', T0), undefined);
    assert.equal(a.holds('reviewer'), true);
    assert.equal(await holderOf('reviewer'), 'a');
  });

  it("a second node is refused with the holder's name, and writes nothing", async () => {
    const a = new RoleLeases(kv, 'a', settings);
    const b = new RoleLeases(kv, 'b', settings);
    await a.claim('reviewer', T0);
    const revision = await revisionOf('reviewer');
    assert.deepEqual(await b.claim('reviewer', T0), { holder: 'a' });
    assert.equal(b.holds('reviewer'), false);
    assert.equal(await holderOf('reviewer'), 'a');
    assert.equal(await revisionOf('reviewer'), revision);
  });

  it('the same node name after a restart (a new RoleLeases, nothing held in memory) takes it back at once', async () => {
    const before = new RoleLeases(kv, 'a', settings);
    await before.claim('reviewer', T0);
    const restarted = new RoleLeases(kv, 'a', settings);
    assert.equal(await restarted.claim('reviewer', T0), undefined, 'no wait for the expiry');
    assert.equal(restarted.holds('reviewer'), true);
    assert.equal(await holderOf('reviewer'), 'a');
  });

  it('a renewal moves the revision and keeps the lease; the other node stays refused', async () => {
    const a = new RoleLeases(kv, 'a', settings);
    const b = new RoleLeases(kv, 'b', settings);
    await a.claim('reviewer', T0);
    for (let i = 1; i <= 3; i++) {
      const revision = (await revisionOf('reviewer'))!;
      assert.equal(await a.claim('reviewer', T0 + i * 10_000), undefined);
      assert.ok((await revisionOf('reviewer'))! > revision, 'renewed: a new revision');
      assert.deepEqual(await b.claim('reviewer', T0 + i * 10_000), { holder: 'a' });
    }
    assert.equal(await holderOf('reviewer'), 'a');
  });

  it("a lease whose revision did not move for the expiry, on the claimer's clock, is taken over; not a millisecond before", async () => {
    const a = new RoleLeases(kv, 'a', settings);
    const b = new RoleLeases(kv, 'b', settings);
    await a.claim('reviewer', T0);
    assert.deepEqual(await b.claim('reviewer', T0), { holder: 'a' }, 'first seen now');
    assert.deepEqual(await b.claim('reviewer', T0 + 29_999), { holder: 'a' }, 'not yet expired');
    assert.equal(await b.claim('reviewer', T0 + 30_000), undefined, 'expired: taken over');
    assert.equal(b.holds('reviewer'), true);
    assert.equal(await holderOf('reviewer'), 'b');
  });

  it("the expiry counts from when the claimer first saw the revision, not from the holder's clock", async () => {
    const a = new RoleLeases(kv, 'a', settings);
    const b = new RoleLeases(kv, 'b', settings);
    await a.claim('reviewer', T0);
    // b's clock is far ahead of anything a wrote: the first sighting still starts the count.
    assert.deepEqual(await b.claim('reviewer', T0 + 10_000_000), { holder: 'a' });
    assert.deepEqual(await b.claim('reviewer', T0 + 10_000_000 + 29_999), { holder: 'a' });
  });

  it("a renewal by the holder restarts the claimer's count", async () => {
    const a = new RoleLeases(kv, 'a', settings);
    const b = new RoleLeases(kv, 'b', settings);
    await a.claim('reviewer', T0);
    assert.deepEqual(await b.claim('reviewer', T0), { holder: 'a' });
    await a.claim('reviewer', T0 + 20_000);
    assert.deepEqual(
      await b.claim('reviewer', T0 + 30_000),
      { holder: 'a' },
      'a new revision: seen afresh',
    );
    assert.deepEqual(await b.claim('reviewer', T0 + 59_999), { holder: 'a' });
    assert.equal(await b.claim('reviewer', T0 + 60_000), undefined);
  });

  it("after a takeover the old holder's renewal fails: it is refused with the new holder, and no longer holds it", async () => {
    const a = new RoleLeases(kv, 'a', settings);
    const b = new RoleLeases(kv, 'b', settings);
    await a.claim('reviewer', T0);
    await b.claim('reviewer', T0);
    assert.equal(await b.claim('reviewer', T0 + 30_000), undefined);
    const revision = await revisionOf('reviewer');
    assert.equal(a.holds('reviewer'), true, 'a does not know yet');
    assert.deepEqual(await a.claim('reviewer', T0 + 30_001), { holder: 'b' });
    assert.equal(a.holds('reviewer'), false);
    assert.equal(await holderOf('reviewer'), 'b');
    assert.equal(await revisionOf('reviewer'), revision, 'the refused renewal wrote nothing');
    assert.equal(await b.claim('reviewer', T0 + 40_000), undefined, 'b renews');
  });

  it('roles are independent: each key its own lease', async () => {
    const a = new RoleLeases(kv, 'a', settings);
    const b = new RoleLeases(kv, 'b', settings);
    assert.equal(await a.claim('reviewer', T0), undefined);
    assert.equal(await b.claim('QA', T0), undefined);
    assert.deepEqual(await a.claim('QA', T0), { holder: 'b' });
    assert.deepEqual(await b.claim('reviewer', T0), { holder: 'a' });
  });

  it('a deleted lease (a released key) is free: the next claimer takes it at once', async () => {
    const a = new RoleLeases(kv, 'a', settings);
    const b = new RoleLeases(kv, 'b', settings);
    await a.claim('reviewer', T0);
    await kv.delete('reviewer');
    assert.equal(await b.claim('reviewer', T0), undefined);
    assert.equal(await holderOf('reviewer'), 'b');
  });
});
