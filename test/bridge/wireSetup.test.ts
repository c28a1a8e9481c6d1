// What the bridge sets up on a real nats-server at each connect (docs/bridge.md §2): the
// swarm's stream, each local role's durable pull consumer and the owners' KV bucket,
// created when missing, updated when the settings changed, left alone otherwise (a second
// handoffd connecting must not lose what the stream holds).
import assert from 'node:assert/strict';
import {
  AckPolicy,
  DeliverPolicy,
  RetentionPolicy,
  StorageType,
  jetstream,
  jetstreamManager,
  type JetStreamManager,
} from '@nats-io/jetstream';
import { connect, nanos, type NatsConnection } from '@nats-io/transport-node';
import { bridgeSettingsOf, type BridgeSettings } from '../../lib/bridge/bridgeSettings.js';
import {
  consumerNameOf,
  ownersBucketOf,
  streamNameOf,
  subjectOf,
} from '../../lib/bridge/wireNames.js';
import { ensureConsumer, ensureStream, openOwners } from '../../lib/bridge/wireSetup.js';
import { startNatsServer, type NatsServerHandle } from '../support/nats.js';

describe('lib/bridge/wireSetup', function () {
  this.timeout(30_000);
  let nats: NatsServerHandle;
  let nc: NatsConnection;
  let jsm: JetStreamManager;
  let swarms = 0;
  let swarm: string;
  const settings: BridgeSettings = bridgeSettingsOf({});
  before(async () => {
    nats = await startNatsServer();
    nc = await connect({ servers: nats.url });
    jsm = await jetstreamManager(nc);
  });
  after(async () => {
    await nc?.close();
    await nats?.stop();
  });
  beforeEach(() => {
    swarms += 1;
    swarm = `ws-${swarms}`;
  });

  const publish = (role: string, text: string, id?: string) =>
    jetstream(nc).publish(subjectOf(swarm, role), text, id ? { msgID: id } : {});

  describe('ensureStream', () => {
    it('creates BATON_<SWARM>: its subjects, work-queue retention, file storage, the duplicate window', async () => {
      await ensureStream(jsm, swarm, settings);
      const { config } = await jsm.streams.info(streamNameOf(swarm));
      assert.equal(config.name, 'BATON_WS_1');
      assert.deepEqual(config.subjects, [`baton.${swarm}.inbox.*`]);
      assert.equal(config.retention, RetentionPolicy.Workqueue);
      assert.equal(config.storage, StorageType.File);
      assert.equal(config.duplicate_window, nanos(120_000));
    });

    it('is idempotent: a second call keeps the stream, its creation time and its messages', async () => {
      await ensureStream(jsm, swarm, settings);
      const first = await jsm.streams.info(streamNameOf(swarm));
      await publish('reviewer', 'kept');
      await ensureStream(jsm, swarm, settings);
      const second = await jsm.streams.info(streamNameOf(swarm));
      assert.equal(second.created, first.created);
      assert.deepEqual(second.config, first.config);
      assert.equal(second.state.messages, 1);
    });

    it('updates a changed duplicate window in place (same stream, messages kept)', async () => {
      await ensureStream(jsm, swarm, settings);
      const created = (await jsm.streams.info(streamNameOf(swarm))).created;
      await publish('reviewer', 'kept');
      await ensureStream(jsm, swarm, { ...settings, duplicateWindowMs: 5_000 });
      const info = await jsm.streams.info(streamNameOf(swarm));
      assert.equal(info.config.duplicate_window, nanos(5_000));
      assert.equal(info.config.retention, RetentionPolicy.Workqueue);
      assert.equal(info.state.messages, 1);
      assert.equal(info.created, created);
    });

    it("a stream with other subjects (made by hand) gets the swarm's subjects back", async () => {
      await jsm.streams.add({
        name: streamNameOf(swarm),
        subjects: [`other.${swarm}.>`],
        retention: RetentionPolicy.Workqueue,
        storage: StorageType.File,
        duplicate_window: nanos(120_000),
      });
      await ensureStream(jsm, swarm, settings);
      assert.deepEqual((await jsm.streams.info(streamNameOf(swarm))).config.subjects, [
        `baton.${swarm}.inbox.*`,
      ]);
    });
  });

  describe('ensureConsumer', () => {
    it("creates baton_<role>: durable, filtered on the role's subject, explicit ack, the ack wait, unlimited redelivery, from the start", async () => {
      await ensureStream(jsm, swarm, settings);
      await publish('reviewer', 'before the consumer');
      await publish('QA', 'not for reviewer');
      await ensureConsumer(jsm, swarm, 'reviewer', settings);
      const info = await jsm.consumers.info(streamNameOf(swarm), consumerNameOf('reviewer'));
      assert.equal(info.config.durable_name, 'baton_reviewer');
      assert.equal(info.config.filter_subject, `baton.${swarm}.inbox.reviewer`);
      assert.equal(info.config.ack_policy, AckPolicy.Explicit);
      assert.equal(info.config.ack_wait, nanos(60_000));
      assert.equal(info.config.max_deliver, -1);
      assert.equal(info.config.deliver_policy, DeliverPolicy.All);
      assert.equal(info.config.deliver_subject, undefined, 'a pull consumer');
      assert.equal(info.num_pending, 1, "sees the message stored before it, and only its role's");
    });

    it('is idempotent: a second call keeps the consumer and what it has delivered', async () => {
      await ensureStream(jsm, swarm, settings);
      await ensureConsumer(jsm, swarm, 'reviewer', settings);
      await publish('reviewer', 'one');
      const consumer = await jetstream(nc).consumers.get(
        streamNameOf(swarm),
        consumerNameOf('reviewer'),
      );
      const m = await consumer.next({ expires: 5_000 });
      assert.ok(m, 'delivered');
      const first = await jsm.consumers.info(streamNameOf(swarm), consumerNameOf('reviewer'));
      assert.equal(first.num_ack_pending, 1);
      await ensureConsumer(jsm, swarm, 'reviewer', settings);
      const second = await jsm.consumers.info(streamNameOf(swarm), consumerNameOf('reviewer'));
      assert.equal(second.created, first.created);
      assert.deepEqual(second.config, first.config);
      assert.equal(second.num_ack_pending, 1, 'the delivered message is still waiting for its ack');
    });

    it('updates a changed ack wait in place, its filter, ack policy and redelivery kept', async () => {
      await ensureStream(jsm, swarm, settings);
      await ensureConsumer(jsm, swarm, 'QA', settings);
      const first = await jsm.consumers.info(streamNameOf(swarm), consumerNameOf('QA'));
      await ensureConsumer(jsm, swarm, 'QA', { ...settings, ackWaitMs: 1_500 });
      const info = await jsm.consumers.info(streamNameOf(swarm), consumerNameOf('QA'));
      assert.equal(info.config.ack_wait, nanos(1_500));
      assert.equal(info.created, first.created, 'updated, not made anew');
      assert.equal(info.config.filter_subject, `baton.${swarm}.inbox.QA`);
      assert.equal(info.config.ack_policy, AckPolicy.Explicit);
      assert.equal(info.config.max_deliver, -1);
    });

    it('fails (throws) without the stream: the link retries its whole set-up', async () => {
      await assert.rejects(ensureConsumer(jsm, swarm, 'QA', settings));
    });
  });

  describe('openOwners', () => {
    it('creates the bucket baton_<swarm>_owners: file storage, one value per key', async () => {
      const kv = await openOwners(nc, swarm);
      const status = await kv.status();
      assert.equal(status.bucket, ownersBucketOf(swarm));
      assert.equal(status.history, 1);
      assert.equal(status.storage, StorageType.File);
      await kv.put('reviewer', 'a');
      await kv.put('reviewer', 'b');
      assert.equal((await kv.get('reviewer'))?.string(), 'b');
    });

    it('opens an existing bucket without losing its values', async () => {
      const kv = await openOwners(nc, swarm);
      const revision = await kv.create('reviewer', 'node-a');
      const again = await openOwners(nc, swarm);
      const entry = await again.get('reviewer');
      assert.equal(entry?.string(), 'node-a');
      assert.equal(entry?.revision, revision);
    });
  });
});
