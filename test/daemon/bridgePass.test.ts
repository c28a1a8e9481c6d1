// The bridge's part of a pass on a real project, with a small stand-in for the Bridge
// (the real one runs against a real nats-server in test/bridge/bridge.test.ts and, with
// two handoffds, in test/bin/bridge_*.test.ts). Send: a handoff leaves the outbox only
// when every remote publish was stored; too large goes to failed/; a failure for now
// keeps it in the outbox. Receive: each arrival is copied, new/ is fsync'd, and only
// then is the message acknowledged; bad ones are refused and logged; a copy that throws
// is not acknowledged (the server redelivers it).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import type { Arrival, Bridge, Outgoing, PublishOutcome } from '../../lib/bridge/bridge.js';
import { bridgeSettingsOf } from '../../lib/bridge/bridgeSettings.js';
import { receiveArrivals, settlePublishes, startPublishing } from '../../lib/daemon/bridgePass.js';
import {
  copyHandoff,
  finishHandoffs,
  type Copied,
  type DeliveryScope,
} from '../../lib/daemon/deliver.js';
import { runPass } from '../../lib/daemon/pass.js';
import { boxOf, currentRoles, type DaemonState } from '../../lib/daemon/state.js';
import { parseLogLine } from '../../lib/project/daemonRecord.js';
import { parseEnvelope, serializeEnvelope } from '../../lib/queue/envelope.js';
import { daemonLog, daemonStateFor } from '../support/daemon.js';
import { followDurability } from '../support/durability.js';
import { itemsIn, makeProject, placeItem, type Project } from '../support/project.js';

/** What the stand-in bridge was asked to do. */
interface StandIn {
  bridge: Bridge;
  publishes: { role: string; handoff: Outgoing }[];
  /** The outcome of the next publishes, per role (a rejection for a failure for now). */
  outcomeOf: (role: string) => Promise<PublishOutcome>;
  canPublish: boolean;
  arrivals: Arrival[];
  /** The receipts put: `<role> <id>`. */
  confirmed: string[];
}

function standIn(): StandIn {
  const s: StandIn = {
    publishes: [],
    arrivals: [],
    confirmed: [],
    canPublish: true,
    outcomeOf: () => Promise.resolve({ kind: 'stored', seq: 7 }),
  } as unknown as StandIn;
  s.bridge = {
    canPublish: () => s.canPublish,
    publish: (role: string, handoff: Outgoing) => {
      s.publishes.push({ role, handoff });
      return s.outcomeOf(role);
    },
    takeArrivals: () => s.arrivals.splice(0),
    confirm: (role: string, id: string) => void s.confirmed.push(`${role} ${id}`),
    settings: bridgeSettingsOf({}),
  } as unknown as Bridge;
  return s;
}

describe('lib/daemon/bridgePass', function () {
  this.timeout(30_000);
  let p: Project;
  let state: DaemonState;
  let scope: DeliveryScope;
  let s: StandIn;
  let seq = 0;
  beforeEach(() => {
    p = makeProject();
    state = daemonStateFor(p.root);
    // This node holds coder; reviewer is on another node.
    scope = {
      root: p.root,
      roles: currentRoles(state),
      tmp: state.paths.tmp,
      ensured: state.ensured,
      boxOf: (role) => boxOf(state, role),
      isRemote: (role) => role === 'reviewer',
      tooLargeForBridge: () => undefined,
    };
    s = standIn();
  });
  afterEach(() => {
    state.log.close();
    p.cleanup();
  });

  const events = (event: string) =>
    daemonLog(p.root)
      .map((l) => parseLogLine(l)!)
      .filter((e) => e.event === event);
  /** Queues a handoff from coder to `to` and runs the copy step; returns the Copied. */
  const copied = async (to: string): Promise<Copied> => {
    seq += 1;
    const id = `20260615T140531Z_${String(seq).padStart(6, '0')}_from_coder`;
    const name = `50_${id}_to_${to.replace(/,/g, '_')}.handoff`;
    await placeItem(
      p.box('coder').outbox,
      { id, from: 'coder', to, recipient: '' },
      'body\r\n',
      name,
    );
    const result = await copyHandoff(scope, 'coder', name, false);
    assert.equal(result.kind, 'copied');
    return result as Copied;
  };

  describe('startPublishing', () => {
    it('publishes the outbox bytes to each remote recipient, with the id, name and sender', async () => {
      const c = await copied('reviewer,QA');
      assert.deepEqual(c.remote?.roles, ['reviewer']);
      assert.equal(startPublishing(s.bridge, c), true);
      assert.equal(s.publishes.length, 1);
      const { role, handoff } = s.publishes[0]!;
      assert.deepEqual(
        { role, id: handoff.id, name: handoff.name, from: handoff.from },
        { role: 'reviewer', id: c.id, name: c.name, from: 'coder' },
      );
      assert.ok(
        Buffer.from(handoff.bytes).equals(fs.readFileSync(c.path)),
        'the exact bytes of the outbox file',
      );
    });

    it('a handoff with local recipients only: nothing to publish', async () => {
      const c = await copied('QA');
      assert.equal(c.remote, undefined);
      assert.equal(startPublishing(s.bridge, c), true);
      assert.deepEqual(s.publishes, []);
    });

    it('false, and no publish, while the bridge cannot publish (disconnected or backing off)', async () => {
      s.canPublish = false;
      const c = await copied('reviewer');
      assert.equal(startPublishing(s.bridge, c), false);
      assert.deepEqual(s.publishes, []);
    });
  });

  describe('settlePublishes', () => {
    it('every publish stored: ready for sent/ (then finished like any handoff)', async () => {
      const c = await copied('reviewer,QA');
      startPublishing(s.bridge, c);
      const ready = await settlePublishes(state, scope, [c]);
      assert.deepEqual(ready, [c]);
      const [delivered] = finishHandoffs(scope, ready);
      assert.deepEqual(delivered!.remote, ['reviewer']);
      assert.deepEqual(itemsIn(p.box('coder').sent), [c.name]);
      assert.deepEqual(itemsIn(p.box('QA').inboxNew), [c.name]);
      assert.deepEqual(itemsIn(p.box('reviewer').inboxNew), [], 'no local copy for a remote role');
    });

    it('local-only handoffs pass through; one whose publishes could not start stays in the outbox, not failed', async () => {
      const local = await copied('QA');
      const waiting = await copied('reviewer');
      s.canPublish = false;
      startPublishing(s.bridge, local);
      startPublishing(s.bridge, waiting);
      assert.deepEqual(await settlePublishes(state, scope, [local, waiting]), [local]);
      assert.deepEqual(itemsIn(p.box('coder').outbox), [local.name, waiting.name].sort());
      assert.deepEqual(itemsIn(p.box('coder').failed), []);
    });

    it('too large: moved to failed/ with the reason in its .error, counted and logged; not ready', async () => {
      const c = await copied('reviewer');
      const reason =
        "too large for the bridge: 2000000 bytes is over the server's max_payload of 1048576";
      s.outcomeOf = () => Promise.resolve({ kind: 'too-large', reason });
      startPublishing(s.bridge, c);
      assert.deepEqual(await settlePublishes(state, scope, [c]), []);
      assert.deepEqual(itemsIn(p.box('coder').outbox), []);
      assert.deepEqual(itemsIn(p.box('coder').failed), [c.name]);
      assert.equal(
        fs.readFileSync(join(p.box('coder').failed, `${c.name}.error`), 'utf8'),
        `${reason}\n`,
      );
      assert.equal(state.stats.failed, 1);
      assert.deepEqual(
        events('failed').map((e) => e.details),
        [{ name: c.name, from: 'coder', reason }],
      );
    });

    it('too large found only at the publish (the limit was unknown when the local copies were made): the .error names the local recipients that received it', async () => {
      const c = await copied('reviewer,QA');
      const reason =
        "too large for the bridge: 2000000 bytes is over its limit of 1047552 (the server's max_payload of 1048576 less room for the headers)";
      s.outcomeOf = () => Promise.resolve({ kind: 'too-large', reason });
      startPublishing(s.bridge, c);
      assert.deepEqual(await settlePublishes(state, scope, [c]), []);
      assert.deepEqual(itemsIn(p.box('coder').failed), [c.name]);
      assert.equal(
        fs.readFileSync(join(p.box('coder').failed, `${c.name}.error`), 'utf8'),
        `${reason}; the local recipients QA received it\n`,
      );
      assert.deepEqual(itemsIn(p.box('QA').inboxNew), [c.name], 'the local copy stays');
    });

    it("a publish that failed for now: kept in the outbox, marked for a deep retry, never failed; its local copies fsync'd", async () => {
      const c = await copied('reviewer,QA');
      s.outcomeOf = () => Promise.reject(new Error('not connected'));
      startPublishing(s.bridge, c);
      const { order, restore } = followDurability();
      try {
        assert.deepEqual(await settlePublishes(state, scope, [c]), []);
      } finally {
        restore();
      }
      assert.deepEqual(order, [`fsync ${p.box('QA').inboxNew}`]);
      assert.deepEqual(itemsIn(p.box('coder').outbox), [c.name]);
      assert.deepEqual(itemsIn(p.box('coder').failed), []);
      assert.deepEqual([...state.retryDeep], [`coder/${c.name}`]);
      assert.equal(state.stats.failed, 0);
    });

    it('one recipient stored and one failed for now: the handoff waits (it is published again, a duplicate for the stored one)', async () => {
      scope.isRemote = (role) => role === 'reviewer' || role === 'QA';
      const c = await copied('reviewer,QA');
      s.outcomeOf = (role) =>
        role === 'QA'
          ? Promise.reject(new Error('timeout'))
          : Promise.resolve({ kind: 'stored', seq: 7 });
      startPublishing(s.bridge, c);
      assert.deepEqual(
        s.publishes.map((x) => x.role),
        ['reviewer', 'QA'],
      );
      assert.deepEqual(await settlePublishes(state, scope, [c]), []);
      assert.deepEqual(itemsIn(p.box('coder').outbox), [c.name]);
    });
  });

  describe('through a pass (runPass with the stand-in as state.bridge)', () => {
    let order: string[];
    let restore: (() => void) | undefined;
    beforeEach(() => {
      ({ order, restore } = followDurability());
      state.bridge = Object.assign(s.bridge, {
        isRemote: (role: string) => role === 'reviewer',
        tooLarge: () => undefined,
      });
    });
    afterEach(() => restore?.());

    it("a handoff whose local copies were made while the bridge could not publish: new/ is fsync'd before the original moves to sent/", async () => {
      s.canPublish = false;
      seq += 1;
      const id = `20260615T140531Z_${String(seq).padStart(6, '0')}_from_coder`;
      const name = `50_${id}_to_reviewer_QA.handoff`;
      await placeItem(
        p.box('coder').outbox,
        { id, from: 'coder', to: 'reviewer,QA', recipient: '' },
        'body\n',
        name,
      );
      await runPass(state, false);
      assert.deepEqual(
        [itemsIn(p.box('QA').inboxNew), itemsIn(p.box('coder').outbox)],
        [[name], [name]],
        'the local copy made, the original waiting',
      );
      assert.ok(
        order.includes(`fsync ${p.box('QA').inboxNew}`),
        `the local copy (its recipient is woken) is durable at once:\n${order.join('\n')}`,
      );
      order.length = 0;
      s.canPublish = true;
      await runPass(state, false);
      assert.deepEqual(itemsIn(p.box('coder').sent), [name]);
      const moved = order.indexOf(
        `rename ${join(p.box('coder').outbox, name)} -> ${join(p.box('coder').sent, name)}`,
      );
      assert.ok(moved >= 0, order.join('\n'));
      const synced = order.indexOf(`fsync ${p.box('QA').inboxNew}`);
      assert.ok(
        synced >= 0 && synced < moved,
        `QA's new/ must be fsync'd before the original leaves the outbox:\n${order.join('\n')}`,
      );
    });
  });

  describe('receiveArrivals', () => {
    let order: string[];
    let restore: (() => void) | undefined;
    beforeEach(() => {
      ({ order, restore } = followDurability());
    });
    afterEach(() => restore?.());

    /** An arrival as the bridge queues it; records its ack and refusal in `order`. */
    const arrival = (
      role: string,
      name: string | undefined,
      bytes: Uint8Array,
      ack: () => Promise<void> = () => Promise.resolve(),
    ): Arrival & { refused?: string; deferred?: number } => {
      const a: Arrival & { refused?: string; deferred?: number } = {
        role,
        name,
        bytes,
        ack: async () => {
          order.push(`ack ${name}`);
          await ack();
        },
        refuse: (reason) => {
          a.refused = reason;
          order.push(`refuse ${name}`);
        },
        retryLater: (ms) => {
          a.deferred = ms;
          order.push(`defer ${name}`);
        },
      };
      return a;
    };
    let n = 0;
    const handoff = async (to = 'coder') => {
      n += 1;
      const id = `20260615T140531Z_${String(n).padStart(6, '0')}_from_reviewer`;
      const name = `50_${id}_to_${to}.handoff`;
      return {
        id,
        name,
        bytes: await serializeEnvelope(
          { id, from: 'reviewer', to, priority: '50', type: 'note', message: 'm' },
          Buffer.from('body\r\n\x00'),
        ),
      };
    };

    it('copies each arrival, fsyncs new/, then acknowledges it; counts, logs received, returns the roles that got a copy', async () => {
      const h1 = await handoff('coder');
      const h2 = await handoff('QA');
      const newDir = p.box('coder').inboxNew;
      s.arrivals.push(
        arrival('coder', h1.name, h1.bytes, async () =>
          assert.ok(fs.existsSync(join(newDir, h1.name)), 'the copy exists when acknowledged'),
        ),
      );
      s.arrivals.push(arrival('QA', h2.name, h2.bytes));
      const received = await receiveArrivals(state, scope, s.bridge);
      assert.deepEqual(received, new Set(['coder', 'QA']));
      const copy = await parseEnvelope(fs.readFileSync(join(newDir, h1.name)));
      assert.equal(copy.headers.recipient, 'coder');
      assert.ok(copy.body.equals(Buffer.from('body\r\n\x00')));
      for (const [role, name] of [
        ['coder', h1.name],
        ['QA', h2.name],
      ] as const) {
        const synced = order.indexOf(`fsync ${p.box(role).inboxNew}`);
        assert.ok(synced >= 0, `${role}'s new/ fsync'd`);
        assert.ok(
          synced < order.indexOf(`ack ${name}`),
          `new/ fsync'd before the ack: ${order.join(', ')}`,
        );
      }
      assert.equal(state.stats.delivered, 2);
      assert.deepEqual(
        events('received').map((e) => e.details),
        [
          { id: h1.id, name: h1.name, to: 'coder' },
          { id: h2.id, name: h2.name, to: 'QA' },
        ],
      );
    });

    it('an arrival the recipient already holds is acknowledged, and neither counted nor logged as received', async () => {
      const h = await handoff();
      fs.writeFileSync(join(p.box('coder').completed, h.name), h.bytes);
      s.arrivals.push(arrival('coder', h.name, h.bytes));
      assert.deepEqual(await receiveArrivals(state, scope, s.bridge), new Set());
      assert.deepEqual(
        order.filter((o) => o.startsWith('ack')),
        [`ack ${h.name}`],
      );
      assert.deepEqual(itemsIn(p.box('coder').inboxNew), []);
      assert.equal(state.stats.delivered, 0);
      assert.deepEqual(events('received'), []);
    });

    it('a bad arrival is refused (not acknowledged) and logged as bridge-refused with its role, name and problem; the others go on', async () => {
      const good = await handoff();
      const bad = arrival('coder', 'no-suffix', good.bytes);
      const noName = arrival('QA', undefined, good.bytes);
      s.arrivals.push(bad, noName, arrival('coder', good.name, good.bytes));
      assert.deepEqual(await receiveArrivals(state, scope, s.bridge), new Set(['coder']));
      assert.equal(bad.refused, "bad Baton-Name header 'no-suffix'");
      assert.equal(noName.refused, "bad Baton-Name header ''");
      assert.deepEqual(
        order.filter((o) => !o.startsWith('fsync')),
        ['refuse no-suffix', 'refuse undefined', `ack ${good.name}`],
      );
      assert.deepEqual(
        events('bridge-refused').map((e) => e.details),
        [
          { role: 'coder', name: 'no-suffix', problem: "bad Baton-Name header 'no-suffix'" },
          { role: 'QA', name: '', problem: "bad Baton-Name header ''" },
        ],
      );
    });

    it('an arrival this node cannot take now (its role not in roles.tsv yet) is given back for later: neither acknowledged nor refused, reported once', async () => {
      const h = await handoff();
      const early = arrival('newrole', h.name, h.bytes);
      s.arrivals.push(early, arrival('newrole', h.name, h.bytes));
      assert.deepEqual(await receiveArrivals(state, scope, s.bridge), new Set());
      assert.equal(early.deferred, 5_000);
      assert.equal(early.refused, undefined);
      assert.deepEqual(
        order.filter((o) => !o.startsWith('fsync')),
        [`defer ${h.name}`, `defer ${h.name}`],
      );
      assert.deepEqual(
        events('error').map((e) => e.details),
        [
          {
            what: 'receive',
            role: 'newrole',
            name: h.name,
            problem: 'newrole is not in roles.tsv (run baton init)',
          },
        ],
      );
      assert.deepEqual(events('bridge-refused'), []);
    });

    it('a copy that throws is not acknowledged nor refused (the server redelivers it); the error is logged once; the mailbox cache is cleared', async () => {
      const h = await handoff();
      state.ensured.add('QA');
      scope.tmp = join(p.root, 'no-such-tmp');
      s.arrivals.push(arrival('coder', h.name, h.bytes));
      assert.deepEqual(await receiveArrivals(state, scope, s.bridge), new Set());
      assert.deepEqual(
        order.filter((o) => !o.startsWith('fsync')),
        [],
      );
      assert.equal(state.ensured.size, 0);
      s.arrivals.push(arrival('coder', h.name, h.bytes));
      await receiveArrivals(state, scope, s.bridge);
      const errors = events('error');
      assert.equal(errors.length, 1, 'the same failure is logged once');
      assert.equal(errors[0]!.details.what, 'receive');
      assert.equal(errors[0]!.details.role, 'coder');
      assert.match(errors[0]!.details.problem!, /ENOENT/);
      assert.deepEqual(itemsIn(p.box('coder').inboxNew), []);
    });

    it('an acknowledgement the server does not confirm is logged; the copy stays and counts as received (a redelivery finds it by id)', async () => {
      const h = await handoff();
      s.arrivals.push(
        arrival('coder', h.name, h.bytes, () =>
          Promise.reject(new Error('the server did not confirm the acknowledgement')),
        ),
      );
      assert.deepEqual(await receiveArrivals(state, scope, s.bridge), new Set(['coder']));
      assert.deepEqual(itemsIn(p.box('coder').inboxNew), [h.name]);
      assert.deepEqual(
        events('error').map((e) => [e.details.what, e.details.id, e.details.problem]),
        [['ack', h.id, 'the server did not confirm the acknowledgement']],
      );
    });

    it('nothing arrived: nothing done', async () => {
      assert.deepEqual(await receiveArrivals(state, scope, s.bridge), new Set());
      assert.deepEqual(order, []);
    });
  });
});
