// Creates or updates, idempotently, what the bridge needs on the server (docs/bridge.md
// §2): the swarm's stream, the durable pull consumers of the local roles and the owners'
// KV bucket. Every handoffd does this at each connect, so a node running alone can publish
// to a node that is offline, and a server restarted on a fresh store is set up again.
import {
  AckPolicy,
  DeliverPolicy,
  RetentionPolicy,
  StorageType,
  type JetStreamManager,
} from '@nats-io/jetstream';
import { Kvm, type KV } from '@nats-io/kv';
import { nanos, type NatsConnection } from '@nats-io/transport-node';
import { type BridgeSettings } from './bridgeSettings.js';
import {
  consumerNameOf,
  ownersBucketOf,
  streamNameOf,
  streamSubjectsOf,
  subjectOf,
} from './wireNames.js';

/** True when `err` is the server's answer that the named thing does not exist. */
function isNotFound(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  return code === 10059 || code === 10014 || /not found/i.test((err as Error).message);
}

/** The swarm's stream: work-queue retention, file storage, the duplicate window. */
export async function ensureStream(
  jsm: JetStreamManager,
  swarm: string,
  settings: BridgeSettings,
): Promise<void> {
  const name = streamNameOf(swarm);
  const config = {
    subjects: [streamSubjectsOf(swarm)],
    duplicate_window: nanos(settings.duplicateWindowMs),
  };
  try {
    const info = await jsm.streams.info(name);
    if (
      info.config.duplicate_window !== config.duplicate_window ||
      info.config.subjects.join() !== config.subjects.join()
    )
      await jsm.streams.update(name, config);
  } catch (err) {
    if (!isNotFound(err)) throw err;
    await jsm.streams.add({
      name,
      ...config,
      retention: RetentionPolicy.Workqueue,
      storage: StorageType.File,
    });
  }
}

/**
 * The durable pull consumer of `role`: its subject only, explicit ack, the ack wait, unlimited
 * redelivery.
 */
export async function ensureConsumer(
  jsm: JetStreamManager,
  swarm: string,
  role: string,
  settings: BridgeSettings,
): Promise<void> {
  const stream = streamNameOf(swarm);
  const durable = consumerNameOf(role);
  const ackWait = nanos(settings.ackWaitMs);
  try {
    const info = await jsm.consumers.info(stream, durable);
    if (info.config.ack_wait !== ackWait)
      await jsm.consumers.update(stream, durable, { ack_wait: ackWait, max_deliver: -1 });
  } catch (err) {
    if (!isNotFound(err)) throw err;
    await jsm.consumers.add(stream, {
      durable_name: durable,
      filter_subject: subjectOf(swarm, role),
      ack_policy: AckPolicy.Explicit,
      ack_wait: ackWait,
      max_deliver: -1,
      deliver_policy: DeliverPolicy.All,
    });
  }
}

/** The owners' KV bucket (created if missing; file storage, one value per key). */
export async function openOwners(nc: NatsConnection, swarm: string): Promise<KV> {
  return new Kvm(nc).create(ownersBucketOf(swarm), { history: 1, storage: StorageType.File });
}
