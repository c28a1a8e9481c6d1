// Creates or updates, idempotently, what the bridge needs on the server (docs/bridge.md
// §2): the swarm's stream, the durable pull consumers of the local roles and the owners'
// KV bucket. Every handoffd does this at each connect, so a node running alone can publish
// to a node that is offline, and a server restarted on a fresh store is set up again.
// Each is created with the roster's replica count (§5) and updated in place when it has
// another: the server moves the data, and the messages and the consumers' state are kept
// (never deleted and made anew). A count the servers cannot hold fails the set-up with the
// server's own words; the link logs them and retries.
import {
  AckPolicy,
  DeliverPolicy,
  jetstreamManager,
  RetentionPolicy,
  StorageType,
  type JetStreamManager,
  type StreamInfo,
} from '@nats-io/jetstream';
import { Kvm, type KV } from '@nats-io/kv';
import { nanos, type NatsConnection } from '@nats-io/transport-node';
import { type BridgeSettings } from './bridgeSettings.js';
import {
  consumerNameOf,
  ownersBucketOf,
  receiptsBucketOf,
  streamNameOf,
  streamSubjectsOf,
  subjectOf,
} from './wireNames.js';

/** True when `err` is the server's answer that the named thing does not exist. */
function isNotFound(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  return code === 10059 || code === 10014 || /not found/i.test((err as Error).message);
}

/** How long a stream or consumer whose replicas changed may take to elect its leader again. */
const RELEAD_WITHIN_MS = 15_000;

/**
 * Waits until a replicated stream or consumer just made, or whose replica count was just
 * changed, has a leader: until then the server answers nothing about it (a request times
 * out), and the next step of the set-up (or the first lease) would fail for that alone.
 * Bounded; the last failure is thrown at the deadline.
 */
async function untilLed(info: () => Promise<{ cluster?: { leader?: string } }>): Promise<void> {
  const deadline = Date.now() + RELEAD_WITHIN_MS;
  for (;;) {
    const led = await info().then(
      (i) => i.cluster === undefined || i.cluster.leader !== undefined,
      (err: unknown) => {
        if (Date.now() > deadline) throw err;
        return false;
      },
    );
    if (led) return;
    if (Date.now() > deadline) throw new Error('no leader elected after a change of replicas');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Refuses more than one replica of a stream that exists on a server that is not clustered
 * (its info has no cluster part). Creating one there fails with the server's words
 * ("replicas > 1 not supported in non-clustered mode"), but nats-server 2.9 accepts the
 * update of an existing stream to 3 replicas and keeps one: the set-up would pass and the
 * roster's count would hold nowhere.
 */
function refuseUnclustered(info: StreamInfo, replicas: number): void {
  if (replicas > 1 && info.cluster === undefined)
    throw new Error(
      `stream ${info.config.name} cannot have ${replicas} replicas: ` +
        `its server is not clustered (replicas > 1 not supported in non-clustered mode)`,
    );
}

/**
 * The swarm's stream: work-queue retention, file storage, the duplicate window, `replicas` copies.
 */
export async function ensureStream(
  jsm: JetStreamManager,
  swarm: string,
  settings: BridgeSettings,
  replicas = 1,
): Promise<void> {
  const name = streamNameOf(swarm);
  const config = {
    subjects: [streamSubjectsOf(swarm)],
    duplicate_window: nanos(settings.duplicateWindowMs),
    num_replicas: replicas,
  };
  let info: StreamInfo;
  try {
    info = await jsm.streams.info(name);
  } catch (err) {
    if (!isNotFound(err)) throw err;
    await jsm.streams.add({
      name,
      ...config,
      retention: RetentionPolicy.Workqueue,
      storage: StorageType.File,
    });
    if (replicas > 1) await untilLed(() => jsm.streams.info(name));
    return;
  }
  refuseUnclustered(info, replicas);
  if (
    info.config.duplicate_window !== config.duplicate_window ||
    info.config.subjects.join() !== config.subjects.join() ||
    info.config.num_replicas !== replicas
  )
    await jsm.streams.update(name, config);
  if (info.config.num_replicas !== replicas) await untilLed(() => jsm.streams.info(name));
}

/**
 * The durable pull consumer of `role`: its subject only, explicit ack, the ack wait, unlimited
 * redelivery, `replicas` copies of its state.
 */
export async function ensureConsumer(
  jsm: JetStreamManager,
  swarm: string,
  role: string,
  settings: BridgeSettings,
  replicas = 1,
): Promise<void> {
  const stream = streamNameOf(swarm);
  const durable = consumerNameOf(role);
  const ackWait = nanos(settings.ackWaitMs);
  try {
    const info = await jsm.consumers.info(stream, durable);
    if (info.config.ack_wait !== ackWait || (info.config.num_replicas ?? 0) !== replicas)
      await jsm.consumers.update(stream, durable, {
        ack_wait: ackWait,
        max_deliver: -1,
        num_replicas: replicas,
      });
    if ((info.config.num_replicas ?? 0) !== replicas)
      await untilLed(() => jsm.consumers.info(stream, durable));
  } catch (err) {
    if (!isNotFound(err)) throw err;
    await jsm.consumers.add(stream, {
      durable_name: durable,
      filter_subject: subjectOf(swarm, role),
      ack_policy: AckPolicy.Explicit,
      ack_wait: ackWait,
      max_deliver: -1,
      deliver_policy: DeliverPolicy.All,
      num_replicas: replicas,
    });
    if (replicas > 1) await untilLed(() => jsm.consumers.info(stream, durable));
  }
}

/** How long a receipt is kept: a sender checks its publishes long before (bridge.md §3). */
const RECEIPT_MAX_AGE_MS = 7 * 24 * 3600 * 1000;

/** The owners' KV bucket (openBucket). */
export function openOwners(nc: NatsConnection, swarm: string, replicas = 1): Promise<KV> {
  return openBucket(nc, ownersBucketOf(swarm), replicas);
}

/** The receipts' KV bucket (openBucket; a receipt expires after a week). */
export function openReceipts(nc: NatsConnection, swarm: string, replicas = 1): Promise<KV> {
  return openBucket(nc, receiptsBucketOf(swarm), replicas, RECEIPT_MAX_AGE_MS);
}

/**
 * A KV bucket (created if missing; file storage, one value per key, `replicas` copies, values
 * kept `maxAgeMs` when given). The KV client opens an existing bucket whatever its replica count:
 * its stream is updated here.
 */
async function openBucket(
  nc: NatsConnection,
  bucket: string,
  replicas: number,
  maxAgeMs?: number,
): Promise<KV> {
  const kv = await new Kvm(nc).create(bucket, {
    history: 1,
    storage: StorageType.File,
    replicas,
    ...(maxAgeMs ? { ttl: maxAgeMs } : {}),
  });
  const stream = `KV_${bucket}`;
  const jsm = await jetstreamManager(nc);
  const info = await jsm.streams.info(stream);
  refuseUnclustered(info, replicas);
  if (info.config.num_replicas !== replicas)
    await jsm.streams.update(stream, { num_replicas: replicas });
  // Also just after its creation: the first lease taken must not race the bucket's election.
  await untilLed(() => jsm.streams.info(stream));
  return kv;
}

/**
 * Asks the leader of `role`'s consumer to step down (the server elects another; a replicated
 * consumer only). Throws with the server's words when it refuses.
 */
export async function stepDownConsumer(
  nc: NatsConnection,
  swarm: string,
  role: string,
  timeoutMs: number,
): Promise<void> {
  const subject = `$JS.API.CONSUMER.LEADER.STEPDOWN.${streamNameOf(swarm)}.` + consumerNameOf(role);
  const reply = (await nc.request(subject, '', { timeout: timeoutMs })).json<{
    error?: { description?: string };
  }>();
  if (reply.error) throw new Error(`step-down refused: ${reply.error.description ?? 'no reason'}`);
}
