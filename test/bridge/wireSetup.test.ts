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
  type ConsumerInfo,
  type JetStreamManager,
  type StreamInfo,
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
import { waitFor } from '../support/daemon.js';
import {
  startNatsCluster,
  startNatsServer,
  type NatsClusterHandle,
  type NatsServerHandle,
} from '../support/nats.js';

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

    it('replicas 3 on a lone server: a new stream is refused in the server\'s words; an existing one (which nats-server 2.9 would "update" and keep at one copy) is refused and left as it was', async () => {
      await assert.rejects(
        ensureStream(jsm, swarm, settings, 3),
        /replicas > 1 not supported in non-clustered mode/,
      );
      await ensureStream(jsm, swarm, settings, 1);
      await assert.rejects(
        ensureStream(jsm, swarm, settings, 3),
        new RegExp(
          `stream ${streamNameOf(swarm)} cannot have 3 replicas: its server is not clustered`,
        ),
      );
      assert.equal((await jsm.streams.info(streamNameOf(swarm))).config.num_replicas, 1);
      await assert.rejects(openOwners(nc, `${swarm}-kv`, 3), /replicas > 1 not supported/);
      await openOwners(nc, `${swarm}-kv2`, 1);
      await assert.rejects(openOwners(nc, `${swarm}-kv2`, 3), /its server is not clustered/);
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

  describe('on a 3-server cluster (§5)', function () {
    let cluster: NatsClusterHandle;
    let cnc: NatsConnection;
    let cjsm: JetStreamManager;
    before(async () => {
      cluster = await startNatsCluster(3);
      cnc = await connect({ servers: cluster.urls });
      cjsm = await jetstreamManager(cnc);
    });
    after(async () => {
      await cnc?.close();
      await cluster?.stop();
    });

    it('creates the stream, a consumer and the bucket with 3 replicas, placed on the three servers', async () => {
      await ensureStream(cjsm, swarm, settings, 3);
      // As the link does: a request that times out while the scaled stream's consumer moves
      // fails this set-up, and it is tried again.
      await waitFor('the consumer scaled', () =>
        ensureConsumer(cjsm, swarm, 'reviewer', settings, 3).then(
          () => true,
          (err: Error) => {
            if (!/timeout/i.test(err.message)) throw err;
            return false;
          },
        ),
      );
      await openOwners(cnc, swarm, 3);
      const stream = await cjsm.streams.info(streamNameOf(swarm));
      assert.equal(stream.config.num_replicas, 3);
      const consumer = await cjsm.consumers.info(streamNameOf(swarm), consumerNameOf('reviewer'));
      assert.equal(consumer.config.num_replicas, 3);
      const bucket = await cjsm.streams.info(`KV_${ownersBucketOf(swarm)}`);
      assert.equal(bucket.config.num_replicas, 3);
      const peers = (i: StreamInfo | ConsumerInfo) =>
        [i.cluster?.leader, ...(i.cluster?.replicas ?? []).map((r) => r.name)].sort();
      assert.deepEqual(peers(stream), cluster.names);
      assert.deepEqual(peers(consumer), cluster.names);
    });

    it('an existing stream, consumer and bucket with one replica are updated to 3 in place: same creation time, messages, delivered-not-acked state and values kept', async () => {
      await ensureStream(cjsm, swarm, settings, 1);
      await ensureConsumer(cjsm, swarm, 'reviewer', settings, 1);
      const kv = await openOwners(cnc, swarm, 1);
      await kv.create('reviewer', 'node-b');
      for (const text of ['one', 'two'])
        await jetstream(cnc).publish(subjectOf(swarm, 'reviewer'), text);
      const consumer = await jetstream(cnc).consumers.get(
        streamNameOf(swarm),
        consumerNameOf('reviewer'),
      );
      assert.ok(await consumer.next({ expires: 5_000 }), 'one delivered, not acknowledged');
      const before = await cjsm.consumers.info(streamNameOf(swarm), consumerNameOf('reviewer'));
      const created = (await cjsm.streams.info(streamNameOf(swarm))).created;

      await ensureStream(cjsm, swarm, settings, 3);
      // While the stream scales, its consumer may answer nobody for a moment, or JetStream may
      // answer that it is "temporarily unavailable": the link then tries its set-up again
      // (bridgeLink.ts), as this does.
      await waitFor('the consumer to be scaled to 3', () =>
        ensureConsumer(cjsm, swarm, 'reviewer', settings, 3).then(
          () => true,
          (err: unknown) => {
            const { name, message } = err as Error;
            if (name !== 'TimeoutError' && !/temporarily unavailable/.test(message)) throw err;
            return false;
          },
        ),
      );
      await openOwners(cnc, swarm, 3);
      // Scaled up, the consumer elects a leader among its new peers: its state is read from it.
      const info = () => cjsm.consumers.info(streamNameOf(swarm), consumerNameOf('reviewer'));
      await waitFor('the scaled consumer to elect a leader', async () =>
        Boolean((await info().catch(() => undefined))?.cluster?.leader),
      );

      const stream = await cjsm.streams.info(streamNameOf(swarm));
      assert.deepEqual(
        [stream.config.num_replicas, stream.created, stream.state.messages],
        [3, created, 2],
      );
      const after = await info();
      assert.deepEqual(
        [after.config.num_replicas, after.created, after.num_ack_pending, after.num_pending],
        [3, before.created, 1, 1],
      );
      assert.equal((await cjsm.streams.info(`KV_${ownersBucketOf(swarm)}`)).config.num_replicas, 3);
      assert.equal((await kv.get('reviewer'))?.string(), 'node-b');
    });

    it("replicas 5 on three servers: refused in the server's own words", async () => {
      await assert.rejects(
        ensureStream(cjsm, swarm, settings, 5),
        /no suitable peers for placement/,
      );
    });
  });
});
