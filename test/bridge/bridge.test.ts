// The bridge of one handoffd against a real nats-server (docs/bridge.md §2–3): a publish
// resolves only once the server stored it (a repeat of the same id is a duplicate, still
// stored), an over-size one is refused for good, one that fails for now throws and backs
// off; messages for a local role are queued as arrivals with their name and exact bytes,
// acknowledged or refused by the daemon; a role whose lease another node holds is not
// consumed, and the refusal is logged with the role.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import {
  AckPolicy,
  DeliverPolicy,
  RetentionPolicy,
  StorageType,
  jetstream,
  jetstreamManager,
  type JetStreamManager,
} from '@nats-io/jetstream';
import { connect, headers as natsHeaders, type NatsConnection } from '@nats-io/transport-node';
import { Bridge, type Arrival, type Outgoing } from '../../lib/bridge/bridge.js';
import { type BridgeReport } from '../../lib/project/bridgeRecord.js';
import { bridgeSettingsOf, type BridgeSettings } from '../../lib/bridge/bridgeSettings.js';
import { consumerNameOf, streamNameOf, subjectOf, wireSizeOf } from '../../lib/bridge/wireNames.js';
import { openOwners } from '../../lib/bridge/wireSetup.js';
import { type Roster } from '../../lib/handoff/roster.js';
import { waitFor } from '../support/daemon.js';
import { startNatsServer, type NatsServerHandle } from '../support/nats.js';
import { tempDir } from '../support/project.js';

/** A bridge and what it told its host. */
interface Hosted {
  bridge: Bridge;
  events: { event: string; details: Record<string, string> }[];
  /** When each event was logged (Date.now()), in the order of `events`. */
  loggedAt: number[];
  notified: number;
  arrivals: Arrival[];
  reportPath: string;
}

describe('lib/bridge/bridge', function () {
  this.timeout(30_000);
  const quick: BridgeSettings = {
    ...bridgeSettingsOf({}),
    backoffCapMs: 400,
    countsIntervalMs: 200,
  };
  let nats: NatsServerHandle;
  let nc: NatsConnection;
  let jsm: JetStreamManager;
  let dir: string;
  let swarms = 0;
  let swarm: string;
  let roster: Roster;
  const hosted: Hosted[] = [];
  before(async () => {
    nats = await startNatsServer();
    nc = await connect({ servers: nats.url, maxReconnectAttempts: -1, reconnectTimeWait: 100 });
    jsm = await jetstreamManager(nc);
  });
  after(async () => {
    await nc?.close();
    await nats?.stop();
  });
  beforeEach(() => {
    dir = tempDir();
    swarms += 1;
    swarm = `bridge-${swarms}`;
    roster = {
      file: join(dir, 'nodes.conf'),
      swarm,
      urls: [nats.url],
      replicas: 1,
      nodes: new Map([
        ['a', ['coder']],
        ['b', ['reviewer', 'QA']],
      ]),
      nodeOfRole: new Map([
        ['coder', 'a'],
        ['reviewer', 'b'],
        ['QA', 'b'],
      ]),
    };
  });
  afterEach(async () => {
    await Promise.all(hosted.splice(0).map((h) => h.bridge.close()));
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const start = (node: 'a' | 'b', settings: BridgeSettings = quick): Hosted => {
    const h = {
      events: [],
      loggedAt: [],
      notified: 0,
      arrivals: [],
      reportPath: join(dir, `bridge-${node}.json`),
    } as unknown as Hosted;
    h.bridge = new Bridge(
      { roster, node, credentials: '', settings, reportPath: h.reportPath },
      {
        log: (event, details) => {
          h.events.push({ event, details });
          h.loggedAt.push(Date.now());
        },
        notify: () => void (h.notified += 1),
      },
    );
    hosted.push(h);
    h.bridge.start();
    return h;
  };
  const connected = (h: Hosted) => waitFor('the bridge connected', () => h.bridge.canPublish());
  /** Waits until `n` arrivals were taken from `h` in all. */
  const arrivalsOf = async (h: Hosted, n: number) => {
    await waitFor(
      `${n} arrival(s)`,
      () => {
        h.arrivals.push(...h.bridge.takeArrivals());
        return h.arrivals.length >= n;
      },
      25_000,
    );
    return h.arrivals;
  };
  let seq = 0;
  const outgoing = (text = 'body'): Outgoing => {
    seq += 1;
    const id = `20260615T140531Z_${String(seq).padStart(6, '0')}_from_coder`;
    return {
      id,
      name: `50_${id}_to_reviewer.handoff`,
      from: 'coder',
      bytes: Buffer.from(
        `---\nid: ${id}\nfrom: coder\nto: reviewer\n---\n${text}\r\n\x00\xff`,
        'latin1',
      ),
    };
  };
  const streamMessages = async () => (await jsm.streams.info(streamNameOf(swarm))).state.messages;
  const consumerInfo = (role: string) =>
    jsm.consumers.info(streamNameOf(swarm), consumerNameOf(role));

  describe('publish', () => {
    it('resolves {kind: stored} once the server stored it: subject, Nats-Msg-Id, Baton-Name, Baton-From, the exact bytes', async () => {
      const a = start('a');
      await connected(a);
      const h = outgoing();
      const outcome = await a.bridge.publish('reviewer', h);
      const stored = await jsm.streams.getMessage(streamNameOf(swarm), {
        last_by_subj: subjectOf(swarm, 'reviewer'),
      });
      assert.ok(stored);
      assert.deepEqual(outcome, { kind: 'stored', seq: stored.seq }, 'with its sequence number');
      assert.equal(stored.subject, `baton.${swarm}.inbox.reviewer`);
      assert.equal(stored.header.get('Nats-Msg-Id'), `${h.id}:reviewer`);
      assert.equal(stored.header.get('Baton-Name'), h.name);
      assert.equal(stored.header.get('Baton-From'), 'coder');
      assert.ok(Buffer.from(stored.data).equals(h.bytes), 'the bytes as they are in the outbox');
    });

    it('a repeat of the same (id, recipient) is a duplicate for the server and still {kind: stored}; another recipient is a message of its own', async () => {
      const a = start('a');
      await connected(a);
      const h = outgoing();
      await a.bridge.publish('reviewer', h);
      assert.deepEqual(await a.bridge.publish('reviewer', h), { kind: 'stored', seq: 1 });
      assert.deepEqual(
        await a.bridge.publish('reviewer', { ...h, bytes: Buffer.from('other bytes, same id') }),
        { kind: 'stored', seq: 1 },
      );
      assert.equal(await streamMessages(), 1, 'stored once');
      await a.bridge.publish('QA', h);
      assert.equal(await streamMessages(), 2);
    });

    it("a handoff over the server's max_payload is {kind: too-large} with the sizes, nothing stored, and no backoff", async () => {
      const a = start('a');
      await connected(a);
      assert.equal(a.bridge.maxPayload(), 1024 * 1024);
      const big = { ...outgoing(), bytes: Buffer.alloc(1024 * 1024 + 1, 'x') };
      const result = await a.bridge.publish('reviewer', big);
      assert.deepEqual(result, {
        kind: 'too-large',
        reason: `too large for the bridge: ${wireSizeOf('reviewer', big)} bytes with its headers is over the server's max_payload of 1048576`,
      });
      assert.equal(await streamMessages(), 0);
      assert.equal(a.bridge.canPublish(), true);
      assert.deepEqual(
        a.events.filter((e) => e.event === 'bridge-error'),
        [],
      );
    });

    it('a handoff that fits max_payload only without its headers is too-large as well (not a temporary failure retried forever); one within the limit is stored', async () => {
      const a = start('a');
      await connected(a);
      const result = await a.bridge.publish('reviewer', {
        ...outgoing(),
        bytes: Buffer.alloc(1024 * 1024 - 10, 'x'),
      });
      assert.equal(result.kind, 'too-large');
      assert.match(
        (result as { reason: string }).reason,
        /^too large for the bridge: \d+ bytes with its headers is over the server's max_payload of 1048576$/,
      );
      assert.equal(a.bridge.canPublish(), true);
      // Exactly at the limit, headers counted: stored (the client agrees with the count).
      const exact = { ...outgoing(), bytes: Buffer.alloc(0) };
      exact.bytes = Buffer.alloc(1024 * 1024 - wireSizeOf('reviewer', exact), 'x');
      assert.equal(wireSizeOf('reviewer', exact), 1024 * 1024);
      assert.deepEqual(await a.bridge.publish('reviewer', exact), { kind: 'stored', seq: 1 });
    });

    it('while disconnected: publish throws, canPublish() is false; reconnected: true again', async () => {
      const a = start('a');
      await connected(a);
      await nats.kill();
      try {
        await waitFor('the link down', () => !a.bridge.linkState().connected);
        assert.equal(a.bridge.canPublish(), false);
        await assert.rejects(a.bridge.publish('reviewer', outgoing()), /not connected/);
        assert.equal(
          a.bridge.maxPayload(),
          1024 * 1024,
          "the last known limit is kept for the daemon's checks",
        );
      } finally {
        await nats.restart();
      }
      await connected(a);
      assert.equal((await a.bridge.publish('reviewer', outgoing())).kind, 'stored');
    });

    it('a publish that fails for now (the stream deleted under a live link) throws, logs bridge-error once for the group, backs off, asks for a pass, and the stream is set up again', async () => {
      const a = start('a');
      await connected(a);
      // a consumes coder (its own role) first; only then is the stream taken away, so that consume does not fail as well.
      // A request of this check that times out on a loaded machine is one more try, not a failure.
      await waitFor(
        'a pulling for coder',
        async () => ((await consumerInfo('coder').catch(() => undefined))?.num_waiting ?? 0) > 0,
      );
      await jsm.streams.delete(streamNameOf(swarm)); // nothing stores the subject any more: every publish fails
      const notified = a.notified;
      const group = await Promise.allSettled(
        [1, 2, 3, 4, 5].map(() => a.bridge.publish('reviewer', outgoing())),
      );
      const after = Date.now();
      assert.ok(
        group.every((r) => r.status === 'rejected'),
        'each publish of the group failed',
      );
      assert.equal(
        a.bridge.canPublish(after),
        false,
        'backing off (or setting up again): no publish at once',
      );
      await waitFor(
        'a pass asked for (the backoff ended or the link is up again)',
        () => a.notified > notified,
      );
      await waitFor(
        'the stream set up again and a publish stored',
        async () =>
          a.bridge.canPublish() &&
          (await a.bridge.publish('reviewer', outgoing()).then(
            (r) => r.kind === 'stored',
            () => false,
          )),
        10_000,
      ).catch((err: Error) => {
        throw new Error(`${err.message}: ${JSON.stringify(a.events)}`);
      });
      const errors = a.events.filter((e) => e.event === 'bridge-error');
      assert.equal(
        errors.length,
        1,
        `one line for the same error repeated: ${JSON.stringify(errors)}`,
      );
    });
  });

  describe('set-up on a live connection (bridge.md §5: a cluster electing after a death)', () => {
    /** The bridge's link, with its private set-up reachable. */
    const linkOf = (h: Hosted) =>
      (
        h.bridge as unknown as {
          link: { wire: unknown; repair(): void; setUp(...args: unknown[]): Promise<void> };
        }
      ).link;

    it('a publish nobody answered while the stream is there keeps the link: no set-up again', async () => {
      const a = start('a');
      await connected(a);
      const link = linkOf(a);
      const wire = link.wire as { js: { publish: (...args: unknown[]) => Promise<unknown> } };
      const publish = wire.js.publish.bind(wire.js);
      let refusals = 1;
      wire.js.publish = (...args) =>
        refusals-- > 0 ? Promise.reject(new Error('jetstream is not enabled')) : publish(...args);
      await assert.rejects(a.bridge.publish('reviewer', outgoing()), /not enabled/);
      await waitFor('the backoff over', () => a.bridge.canPublish());
      assert.equal((await a.bridge.publish('reviewer', outgoing())).kind, 'stored');
      assert.equal(link.wire, wire, 'the same wire: not torn down');
      assert.equal(a.events.filter((e) => e.event === 'bridge-connected').length, 1);
    });

    it("tries again at most 1 s apart, not at the backoff's 10 s: set up soon after the obstacle goes", async () => {
      const a = start('a', { ...quick, backoffCapMs: 10_000 });
      await connected(a);
      const link = linkOf(a);
      const setUp = link.setUp.bind(link);
      let failures = 6;
      link.setUp = (...args) =>
        failures-- > 0 ? Promise.reject(new Error('timeout')) : setUp(...args);
      const began = Date.now();
      link.repair();
      await connected(a);
      // 250 + 500 + 4 × 1,000 ms between the tries; the backoff's doubling would be 15.75 s.
      const tookMs = Date.now() - began;
      assert.ok(tookMs < 8_000, `set up again ${tookMs} ms after the first try`);
      assert.equal(failures, -1, 'every failing try was made');
    });
  });

  describe('orphans (messages behind the consumer, as a SIGKILLed server 2.9 can leave them)', () => {
    it('are queued as arrivals with their name and bytes, once; ack() removes them from the stream', async () => {
      // Made on purpose (a work-queue stream forbids it): a limits stream, the message first,
      // then reviewer's consumer starting after it.
      await jsm.streams.add({
        name: streamNameOf(swarm),
        subjects: [`baton.${swarm}.inbox.*`],
        retention: RetentionPolicy.Limits,
        storage: StorageType.File,
      });
      const lost = outgoing('lost');
      const h = natsHeaders();
      h.set('Baton-Name', lost.name);
      await jetstream(nc).publish(subjectOf(swarm, 'reviewer'), lost.bytes, { headers: h });
      await jsm.consumers.add(streamNameOf(swarm), {
        durable_name: consumerNameOf('reviewer'),
        filter_subject: subjectOf(swarm, 'reviewer'),
        ack_policy: AckPolicy.Explicit,
        deliver_policy: DeliverPolicy.StartSequence,
        opt_start_seq: 2,
      });
      const b = start('b');
      const [orphan] = await arrivalsOf(b, 1);
      assert.equal(orphan!.role, 'reviewer');
      assert.equal(orphan!.name, lost.name);
      assert.ok(Buffer.from(orphan!.bytes).equals(Buffer.from(lost.bytes)));
      await orphan!.ack();
      assert.equal(
        (await jsm.streams.info(streamNameOf(swarm))).state.messages,
        0,
        'removed from the stream',
      );
    });
  });

  describe('arrivals', () => {
    it('a message for a local role is queued with its role, name and exact bytes; ack() removes it from the stream', async () => {
      const b = start('b');
      const a = start('a');
      await connected(a);
      const h = outgoing();
      await a.bridge.publish('reviewer', h);
      const [arrival] = await arrivalsOf(b, 1);
      assert.equal(arrival!.role, 'reviewer');
      assert.equal(arrival!.name, h.name);
      assert.ok(Buffer.from(arrival!.bytes).equals(h.bytes));
      assert.ok(b.notified > 0, 'the daemon was told');
      assert.deepEqual(b.bridge.takeArrivals(), [], 'taken once');
      assert.equal((await consumerInfo('reviewer')).num_ack_pending, 1);
      await arrival!.ack();
      assert.equal((await consumerInfo('reviewer')).num_ack_pending, 0);
      assert.equal(await streamMessages(), 0, 'acknowledged: gone from the work queue');
    });

    it('a message without a Baton-Name header arrives with name undefined (the daemon refuses it)', async () => {
      const b = start('b');
      await connected(b);
      await jetstream(nc).publish(subjectOf(swarm, 'QA'), 'raw');
      const [arrival] = await arrivalsOf(b, 1);
      assert.deepEqual(
        [arrival!.role, arrival!.name, Buffer.from(arrival!.bytes).toString()],
        ['QA', undefined, 'raw'],
      );
      await arrival!.ack();
    });

    it('refuse() terminates the message: never delivered again, while one left unacknowledged is redelivered after the ack wait', async () => {
      const b = start('b', { ...quick, ackWaitMs: 500 });
      const a = start('a');
      await connected(a);
      const refused = outgoing('refused');
      const left = outgoing('left');
      await a.bridge.publish('reviewer', refused);
      await a.bridge.publish('reviewer', left);
      const first = await arrivalsOf(b, 2);
      first.find((x) => x.name === refused.name)!.refuse('bad Baton-Name header');
      await waitFor(
        'the unacknowledged one redelivered',
        async () => (await arrivalsOf(b, 3)).length >= 3,
      );
      const names = b.arrivals.map((x) => x.name);
      assert.deepEqual(
        names.filter((n) => n === refused.name),
        [refused.name],
        'the refused message came once',
      );
      assert.equal(names.filter((n) => n === left.name).length >= 2, true);
      await b.arrivals.at(-1)!.ack();
      await waitFor(
        'nothing pending for reviewer',
        async () => (await consumerInfo('reviewer').catch(() => undefined))?.num_ack_pending === 0,
      );
      assert.equal(
        await streamMessages(),
        0,
        'the refused message is gone from the work queue too',
      );
    });

    it('ack() rejects when the acknowledgement is not confirmed (here: a second ack of the same message)', async () => {
      const b = start('b');
      await connected(b);
      await jetstream(nc).publish(subjectOf(swarm, 'QA'), 'x');
      const [arrival] = await arrivalsOf(b, 1);
      await arrival!.ack();
      await assert.rejects(arrival!.ack());
    });
  });

  describe('ownership', () => {
    it('a role whose lease another node holds is not consumed, and bridge-refused names the role and the holder', async () => {
      const owners = await openOwners(nc, swarm);
      await owners.create('reviewer', 'a');
      const b = start('b');
      await waitFor('bridge-refused for reviewer', () =>
        b.events.some((e) => e.event === 'bridge-refused'),
      );
      assert.deepEqual(
        b.events.filter((e) => e.event === 'bridge-refused'),
        [
          {
            event: 'bridge-refused',
            details: { role: 'reviewer', problem: 'its lease is held by node a' },
          },
        ],
      );
      await jetstream(nc).publish(subjectOf(swarm, 'reviewer'), 'for reviewer');
      await jetstream(nc).publish(subjectOf(swarm, 'QA'), 'for QA');
      const [arrival] = await arrivalsOf(b, 1);
      assert.equal(arrival!.role, 'QA', 'QA, whose lease b holds, is consumed');
      assert.equal((await owners.get('QA'))?.string(), 'b');
      assert.equal((await owners.get('reviewer'))?.string(), 'a');
      const reviewer = await consumerInfo('reviewer');
      assert.deepEqual(
        [reviewer.num_pending, reviewer.num_ack_pending, reviewer.delivered.stream_seq],
        [1, 0, 0],
        "reviewer's message untouched",
      );
      assert.ok(b.bridge.takeArrivals().every((x) => x.role !== 'reviewer'));
    });

    it('a lease its holder stopped renewing is taken over after the expiry, and the role is consumed from then on', async () => {
      const owners = await openOwners(nc, swarm);
      await owners.create('reviewer', 'a');
      const b = start('b', { ...quick, leaseRenewMs: 100, leaseExpiryMs: 600 });
      await waitFor('bridge-refused for reviewer', () =>
        b.events.some((e) => e.event === 'bridge-refused'),
      );
      const refusedAt = b.loggedAt[b.events.findIndex((e) => e.event === 'bridge-refused')]!;
      await jetstream(nc).publish(subjectOf(swarm, 'reviewer'), 'waited for the lease');
      const [arrival] = await arrivalsOf(b, 1);
      assert.ok(Date.now() - refusedAt >= 500, 'not before the expiry');
      assert.equal(arrival!.role, 'reviewer');
      assert.equal((await owners.get('reviewer'))?.string(), 'b');
      await arrival!.ack();
    });
  });

  describe('a stalled consumer (stallWatch.ts, bridge.md §5)', () => {
    // A short ack wait: on a busy machine the cut subscription's last pull can still take the
    // message (delivered into the void), which only the ack wait gives back.
    // The lease rounds at their 10 s: the stall check runs on its own (every 375 ms here).
    const STALLY = { ...quick, stallAfterMs: 1_500, ackWaitMs: 2_000 };
    /**
     * Cuts `role`'s consume off from its messages behind the bridge's back: its subscription
     * ends, the consume stays open, and the client's pulls are answered into the void (what a
     * cluster's kills were seen to leave: messages waiting, nothing delivered, nothing ended).
     */
    const cutOff = (h: Hosted, role: string) => {
      const consuming = (h.bridge as unknown as { consuming: Map<string, unknown> }).consuming;
      const messages = consuming.get(role) as { sub: { unsubscribe(): void } } | undefined;
      assert.ok(messages?.sub, `${role} is being consumed (the client's subscription is there)`);
      messages.sub.unsubscribe();
      return messages;
    };
    const stalled = (h: Hosted) => h.events.filter((e) => e.event === 'bridge-stalled');
    /**
     * A stall's problem with `remedy`. The count is not pinned: under the suite's load the one
     * message was once counted twice (waiting, and delivered into the void), as 2.9 reports it.
     */
    const UNSERVED = (remedy: string) =>
      new RegExp(`^[1-9]\\d* waiting and nothing delivered for 1\\.5 s: ${remedy}$`);
    /** Waits until b consumes reviewer (one message through), then cuts the consume off. */
    const consumingThenCut = async (b: Hosted) => {
      await connected(b);
      await jetstream(nc).publish(subjectOf(swarm, 'reviewer'), 'before');
      const [first] = await arrivalsOf(b, 1);
      await first!.ack();
      b.arrivals.length = 0;
      return cutOff(b, 'reviewer');
    };

    it('messages waiting and nothing delivered for stallAfterMs: bridge-stalled with the role, consumed afresh, and the message arrives sooner than a lease round', async () => {
      const b = start('b', STALLY);
      await consumingThenCut(b);
      const publishedAt = Date.now();
      await jetstream(nc).publish(subjectOf(swarm, 'reviewer'), 'after the cut');
      const [arrival] = await arrivalsOf(b, 1);
      const tookMs = Date.now() - publishedAt;
      assert.equal(Buffer.from(arrival!.bytes).toString(), 'after the cut');
      assert.ok(tookMs < STALLY.leaseRenewMs, `arrived ${tookMs} ms after the publish`);
      // The first remedy (a busy machine may need the second too before the message is in).
      assert.equal(stalled(b)[0]?.details.role, 'reviewer');
      assert.match(stalled(b)[0]!.details.problem!, UNSERVED('consumed afresh'));
      await arrival!.ack();
      assert.equal((await consumerInfo('reviewer')).num_pending, 0);
    });

    it('a stall that outlives consuming afresh asks the consumer leader to step down (a lone server refuses: logged) and consumes afresh again', async () => {
      const b = start('b', STALLY);
      await consumingThenCut(b);
      // The fresh consume gets no further: it is there and pulls nothing (as when the pulls
      // of a new subscription still reach a consumer leader that does not answer them).
      const bridge = b.bridge as unknown as {
        consume(wire: unknown, role: string): Promise<void>;
        consuming: Map<string, unknown>;
      };
      const consume = bridge.consume.bind(bridge);
      let unanswered = 1;
      bridge.consume = async (wire, role) => {
        if (role !== 'reviewer' || unanswered-- <= 0) return consume(wire, role);
        bridge.consuming.set(role, { stop: () => undefined, closed: () => new Promise(() => {}) });
      };
      await jetstream(nc).publish(subjectOf(swarm, 'reviewer'), 'after two cuts');
      const [arrival] = await arrivalsOf(b, 1);
      assert.equal(Buffer.from(arrival!.bytes).toString(), 'after two cuts');
      const problems = stalled(b).map((e) => e.details.problem!);
      assert.equal(problems.length, 2, JSON.stringify(problems));
      assert.match(problems[0]!, UNSERVED('consumed afresh'));
      assert.match(
        problems[1]!,
        UNSERVED('its consumer leader asked to step down, and consumed afresh'),
      );
      const errors = b.events.filter((e) => e.event === 'bridge-error');
      assert.ok(
        errors.some((e) => /^step-down refused: /.test(e.details.problem!)),
        `the server's refusal logged: ${JSON.stringify(errors)}`,
      );
      await arrival!.ack();
    });

    it('a check that finds the server not answering ends at the first role: the lease round is not held back by a timeout per role', async () => {
      const b = start('b', { ...STALLY, leaseRenewMs: 60_000, leaseExpiryMs: 120_000 });
      await connected(b);
      const bridge = b.bridge as unknown as {
        consuming: Map<string, unknown>;
        watchStall: (wire: unknown, role: string) => Promise<void>;
      };
      await waitFor('both roles consumed', () => bridge.consuming.size === 2);
      const asked: string[] = [];
      bridge.watchStall = (_wire, role) => {
        asked.push(role);
        return Promise.reject(new Error(`no answer about ${role}`));
      };
      await waitFor('three checks', () => asked.length >= 3);
      assert.equal(new Set(asked).size, 1, `one role asked per check: ${asked.join(', ')}`);
      assert.ok(
        b.events.some(
          (e) => e.event === 'bridge-error' && /^no answer about /.test(e.details.problem!),
        ),
        'the failure logged',
      );
    });

    it('no stall while messages flow or nothing waits: a quiet role and a busy one log nothing', async () => {
      const b = start('b', STALLY);
      await connected(b);
      // Paced over more than two judgements (4 s against 1.5 s).
      for (let i = 0; i < 20; i++) {
        await jetstream(nc).publish(subjectOf(swarm, 'QA'), `busy ${i}`);
        const taken = await arrivalsOf(b, i + 1);
        await taken[i]!.ack();
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      assert.deepEqual(stalled(b), []);
    });
  });

  it('isRemote: true only for a role the roster puts on another node', () => {
    const b = start('b');
    assert.deepEqual(
      ['coder', 'reviewer', 'QA', 'nobody'].map((r) => b.bridge.isRemote(r)),
      [true, false, false, false],
    );
    assert.deepEqual(b.bridge.localRoles, ['reviewer', 'QA']);
  });

  it('writes bridge.json at start and when up; close() stops, and its last report says disconnected', async () => {
    const b = start('b');
    const read = () => JSON.parse(fs.readFileSync(b.reportPath, 'utf8')) as BridgeReport;
    await waitFor(
      'a report saying connected',
      () => fs.existsSync(b.reportPath) && read().connected,
    );
    assert.deepEqual(read().remote_roles, { coder: 'a' });
    await b.bridge.close();
    hosted.splice(hosted.indexOf(b), 1);
    assert.equal(read().connected, false);
    assert.equal(b.bridge.canPublish(), false);
  });
});
