// Orphans on a real nats-server: messages of a role's subject at or below its consumer's
// ack floor, which the consumer will never deliver (a SIGKILLed server 2.9 can restart
// that way; see lib/bridge/orphanSweep.ts). Made here on purpose, which a work-queue
// stream does not allow (its consumers must deliver all): the test's stream keeps limits
// retention, the messages are stored first, then the role's consumer starts after them.
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
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { orphanCountOf, orphansOf, removeOrphan } from '../../lib/bridge/orphanSweep.js';
import {
  consumerNameOf,
  streamNameOf,
  streamSubjectsOf,
  subjectOf,
} from '../../lib/bridge/wireNames.js';
import { startNatsServer, type NatsServerHandle } from '../support/nats.js';

describe('lib/bridge/orphanSweep', function () {
  this.timeout(30_000);
  let nats: NatsServerHandle;
  let nc: NatsConnection;
  let jsm: JetStreamManager;
  let swarms = 0;
  let swarm: string;
  before(async () => {
    nats = await startNatsServer();
    nc = await connect({ servers: nats.url });
    jsm = await jetstreamManager(nc);
  });
  after(async () => {
    await nc?.close();
    await nats?.stop();
  });
  beforeEach(async () => {
    swarms += 1;
    swarm = `orphans-${swarms}`;
    await jsm.streams.add({
      name: streamNameOf(swarm),
      subjects: [streamSubjectsOf(swarm)],
      retention: RetentionPolicy.Limits,
      storage: StorageType.File,
    });
  });

  const publish = (role: string, text: string) =>
    jetstream(nc).publish(subjectOf(swarm, role), text);
  /** The role's consumer, starting after sequence `after` (everything before it is behind its ack floor). */
  const consumerAfter = (role: string, after: number) =>
    jsm.consumers.add(streamNameOf(swarm), {
      durable_name: consumerNameOf(role),
      filter_subject: subjectOf(swarm, role),
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.StartSequence,
      opt_start_seq: after + 1,
    });

  it('none while the stream and the consumer agree', async () => {
    await consumerAfter('reviewer', 0);
    await publish('reviewer', 'one');
    assert.equal(await orphanCountOf(jsm, swarm, 'reviewer'), 0);
    assert.deepEqual(await orphansOf(jsm, swarm, 'reviewer'), []);
  });

  it("the messages of the role behind its ack floor, oldest first, with their data; not another role's, not the ones still to deliver", async () => {
    await publish('reviewer', 'lost one');
    await publish('QA', 'not mine');
    await publish('reviewer', 'lost two');
    await consumerAfter('reviewer', 3);
    await publish('reviewer', 'still to deliver');
    assert.equal(await orphanCountOf(jsm, swarm, 'reviewer'), 2);
    const found = await orphansOf(jsm, swarm, 'reviewer');
    assert.deepEqual(
      found.map((m) => [m.seq, new TextDecoder().decode(m.data)]),
      [
        [1, 'lost one'],
        [3, 'lost two'],
      ],
    );
    await jsm.streams.deleteMessage(streamNameOf(swarm), 1);
    assert.equal(await orphanCountOf(jsm, swarm, 'reviewer'), 1);
  });

  it('removeOrphan removes the orphan, and only the orphan: another message given its number meanwhile stays', async () => {
    await publish('reviewer', 'lost one');
    await consumerAfter('reviewer', 1);
    const [orphan] = await orphansOf(jsm, swarm, 'reviewer');
    // As a server restarted on a store that lost its tail: number 1 now holds another one.
    await jsm.streams.delete(streamNameOf(swarm));
    await jsm.streams.add({
      name: streamNameOf(swarm),
      subjects: [streamSubjectsOf(swarm)],
      retention: RetentionPolicy.Limits,
      storage: StorageType.File,
    });
    assert.equal((await publish('reviewer', 'another one')).seq, 1, "the orphan's number");
    await removeOrphan(jsm, swarm, orphan!);
    const kept = await jsm.streams.getMessage(streamNameOf(swarm), { seq: 1 });
    assert.equal(new TextDecoder().decode(kept!.data), 'another one', 'the other message stays');
    // The orphan itself, still at its number, is removed.
    await consumerAfter('reviewer', 1);
    const [again] = await orphansOf(jsm, swarm, 'reviewer');
    await removeOrphan(jsm, swarm, again!);
    assert.equal((await jsm.streams.info(streamNameOf(swarm))).state.messages, 0);
  });
});
