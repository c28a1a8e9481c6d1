// Messages a role's consumer will never deliver. A nats-server 2.9 killed with SIGKILL can
// restart with its stream's state behind its consumers' (the stream's tail, or its
// deletions, were not yet on disk; the consumer's ack floor was): new messages then get
// sequence numbers the consumer counts as delivered and acknowledged, and it skips them,
// or acknowledged messages come back behind the floor. In a work-queue stream nothing at
// or below a consumer's ack floor should still be there, so whatever is there is handed
// to the daemon like an arrival: copied unless its id is already held, then removed from
// the stream (the acknowledgement of a work-queue message). The bridge's fault tests and
// the soak found both cases.
import {
  type ConsumerInfo,
  type JetStreamManager,
  type MsgRequest,
  type StoredMsg,
} from '@nats-io/jetstream';
import { consumerNameOf, streamNameOf, streamSubjectsOf, subjectOf } from './wireNames.js';

/**
 * Removes `orphan` from the stream once its copy is made or found held, only if its sequence
 * number still holds it: a server restarted on a store that lost its tail can give the number to
 * another message meanwhile, which a blind delete by number would lose. Never throws.
 */
export async function removeOrphan(
  jsm: JetStreamManager,
  swarm: string,
  orphan: StoredMsg,
): Promise<void> {
  const there = await storedAt(jsm, swarm, orphan.seq).catch(() => null);
  if (there && sameStoredMessage(there, orphan))
    await jsm.streams.deleteMessage(streamNameOf(swarm), orphan.seq).catch(() => false);
}

/**
 * The swarm stream's message at `seq`, or null when it holds none there; throws when the
 * server cannot say now (a timeout during an election).
 */
export async function storedAt(
  jsm: JetStreamManager,
  swarm: string,
  seq: number,
): Promise<StoredMsg | null> {
  return jsm.streams.getMessage(streamNameOf(swarm), { seq }).catch((err: unknown) => {
    const code = (err as { code?: unknown }).code;
    if (code === 10037 || /no message found/i.test((err as Error).message)) return null;
    throw err;
  });
}

/** True when two reads of a stream's message are one message: its id, subject and bytes. */
function sameStoredMessage(a: StoredMsg, b: StoredMsg): boolean {
  return (
    a.subject === b.subject &&
    a.header?.get('Nats-Msg-Id') === b.header?.get('Nats-Msg-Id') &&
    Buffer.from(a.data).equals(Buffer.from(b.data))
  );
}

/** At most this many orphans are taken per role and round (the next round takes more). */
const ROUND_LIMIT = 256;

/** How many of `stored` messages of a role's subject its consumer neither delivers nor waits on. */
export function orphansAmong(stored: number, consumer: ConsumerInfo): number {
  return Math.max(0, stored - consumer.num_pending - consumer.num_ack_pending);
}

/**
 * How many messages of `role`'s subject the stream holds that its consumer neither delivers nor
 * waits on.
 */
export async function orphanCountOf(
  jsm: JetStreamManager,
  swarm: string,
  role: string,
): Promise<number> {
  return (await orphanStateOf(jsm, swarm, role)).count;
}

/** A role's consumer and how many orphans the stream holds for it. */
export interface OrphanState {
  count: number;
  consumer: ConsumerInfo;
}

/** The role's consumer and how many orphans the stream holds for it (one read of each). */
export async function orphanStateOf(
  jsm: JetStreamManager,
  swarm: string,
  role: string,
): Promise<OrphanState> {
  const stream = streamNameOf(swarm);
  const [info, consumer] = await Promise.all([
    jsm.streams.info(stream, { subjects_filter: streamSubjectsOf(swarm) }),
    jsm.consumers.info(stream, consumerNameOf(role)),
  ]);
  return {
    count: orphansAmong(info.state.subjects?.[subjectOf(swarm, role)] ?? 0, consumer),
    consumer,
  };
}

/**
 * The messages of `role`'s subject at or below its consumer's ack floor, oldest first (none when
 * the counts agree); `state` when the caller read it already.
 */
export async function orphansOf(
  jsm: JetStreamManager,
  swarm: string,
  role: string,
  state?: OrphanState,
): Promise<StoredMsg[]> {
  const { count, consumer } = state ?? (await orphanStateOf(jsm, swarm, role));
  if (count === 0) return [];
  const stream = streamNameOf(swarm);
  // Behind the ack floor; with nothing awaiting an acknowledgement, behind what the
  // consumer counts as delivered (a consumer that skipped a range never acked it).
  const floor =
    consumer.num_ack_pending === 0 ? consumer.delivered.stream_seq : consumer.ack_floor.stream_seq;
  const found: StoredMsg[] = [];
  for (let seq = 1; found.length < ROUND_LIMIT;) {
    // next_by_subj: the server's "first message of this subject at or after seq" (2.9+).
    const query = { seq, next_by_subj: subjectOf(swarm, role) } as unknown as MsgRequest;
    const m = await jsm.streams.getMessage(stream, query).catch(() => null);
    if (!m || m.seq > floor) break;
    found.push(m);
    seq = m.seq + 1;
  }
  return found;
}
