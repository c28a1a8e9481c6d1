// The bridge's soak (issue 12): handoffs to three recipients each over two nodes (senders
// on both), while either handoffd or the nats-server is SIGKILLed at random moments and
// restarted (the server on the same store), and an agent on node b works its inbox off
// meanwhile. In the end: 0 lost, 0 duplicated, 0 torn (every copy parses and carries its
// body), and nothing pending (both outboxes empty, every stream message acknowledged).
// `npm test` runs the short size; `npm run soak` 2,000 handoffs with 24 kills.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { daemonLog, waitFor } from '../support/daemon.js';
import { startNatsServer, type NatsServerHandle } from '../support/nats.js';
import { itemsIn, runBinAsync } from '../support/project.js';
import { byTier, sizeFrom } from '../support/tier.js';
import {
  bodiesHeld,
  makeTwoNodes,
  queueSoakHandoff,
  settledCheck,
  SOAK_ROUTES,
  type TwoNodes,
} from '../support/twoNodes.js';
import { mulberry32 } from '../support/seededRandom.js';

const QUICK = {
  BATON_BRIDGE_ACK_WAIT_MS: '1500',
  BATON_BRIDGE_BACKOFF_CAP_MS: '500',
  BATON_BRIDGE_CONFIRM_AFTER_MS: '2000',
};

describe('the bridge soak (built bins, real nats-server, random SIGKILLs)', function () {
  const HANDOFFS = sizeFrom('BATON_BRIDGE_SOAK_HANDOFFS', { short: 60, full: 2000 });
  const KILLS = sizeFrom('BATON_BRIDGE_SOAK_KILLS', { short: 2, full: 24 });
  const seed = Number(process.env.BATON_BRIDGE_SOAK_SEED ?? Math.floor(Math.random() * 2 ** 31));
  this.timeout(byTier({ short: 240_000, full: 1_800_000 }));
  let nats: NatsServerHandle;
  let nodes: TwoNodes;
  let working = true;
  before(async () => {
    nats = await startNatsServer();
    nodes = makeTwoNodes(nats);
  });
  after(async () => {
    working = false;
    await nodes.cleanup();
    await nats.stop();
  });

  /** An agent on node b working reviewer's inbox off during the soak (its copies move to in_process/ and completed/). */
  async function work(): Promise<void> {
    const options = { role: 'reviewer', cwd: nodes.b.root };
    while (working) {
      const done = await runBinAsync('done_with_current', [], options);
      if (done.code !== 0) await runBinAsync('ready_for_next', [], options);
      await waitFor('a moment', () => true);
    }
  }

  /** Both handoffds and the server up, nothing in either outbox, every message acknowledged. */
  const settledNow = () =>
    settledCheck([nodes.a, nodes.b], [nodes.a.box('coder').outbox, nodes.b.box('reviewer').outbox]);

  /** What each node holds and reports, for a failure message. */
  function stateOf(): string {
    return (['a', 'b'] as const)
      .map((node) => {
        const p = nodes[node];
        const root = p.root;
        const outbox = itemsIn(p.box(SOAK_ROUTES[node].from).outbox).length;
        const report = fs.existsSync(join(root, '.swarmforge', 'bridge.json'))
          ? fs.readFileSync(join(root, '.swarmforge', 'bridge.json'), 'utf8').trim()
          : 'no bridge.json';
        const log = daemonLog(root)
          .filter((l) => !/ (delivered|received|wake-failed|woke) /.test(l))
          .slice(-8)
          .join(' | ');
        return `node ${node}: outbox ${outbox}; ${report}; log: ${log}`;
      })
      .join(' ;; ');
  }

  it(`delivers handoffs × 3 recipients over two nodes exactly once across random kills of either handoffd or the server`, async () => {
    const rand = mulberry32(seed);
    process.stderr.write(
      `      bridge soak: ${HANDOFFS} handoffs, ${KILLS} kills, seed ${seed} (BATON_BRIDGE_SOAK_SEED replays)\n`,
    );
    await nodes.start('a', QUICK);
    await nodes.start('b', QUICK);
    const worker = work();
    const bodies = new Map<string, string>();
    const killAt = new Set(
      Array.from({ length: KILLS }, (_, i) => Math.floor(((i + 1) * HANDOFFS) / (KILLS + 1))),
    );
    const killed: string[] = [];
    for (let i = 0; i < HANDOFFS; i++) {
      const node = rand() < 0.5 ? 'a' : 'b';
      const body = Buffer.from(
        `handoff ${i}\n${'x'.repeat(Math.floor(rand() * 2000))}\n---\nend ${i} é ✓\n`,
      );
      await queueSoakHandoff(nodes[node], node, i, body, bodies);
      if (killAt.has(i)) {
        const target = (['a', 'b', 'server'] as const)[Math.floor(rand() * 3)]!;
        killed.push(target);
        if (target === 'server') await nats.restart();
        else {
          await nodes.kill(target);
          await nodes.start(target, QUICK);
        }
      }
    }
    await waitFor(
      'both outboxes empty and every message acknowledged',
      settledNow(),
      byTier({ short: 120_000, full: 1_200_000 }),
    ).catch((err: Error) => {
      throw new Error(`${err.message} (seed ${seed}): ${stateOf()}`);
    });
    working = false;
    await worker;
    assert.equal(killed.length, KILLS);
    for (const role of ['coder', 'reviewer', 'QA']) {
      const node = role === 'coder' ? nodes.a : nodes.b;
      const copies = await bodiesHeld(node, role);
      const expected = [...bodies.keys()].sort();
      assert.deepEqual([...copies.keys()].sort(), expected, `${role}: every handoff once (0 lost)`);
      for (const [id, hashes] of copies) {
        assert.equal(hashes.length, 1, `${role}: ${id} held ${hashes.length} times (0 duplicated)`);
        assert.equal(hashes[0], bodies.get(id), `${role}: ${id}'s body intact (0 torn)`);
      }
    }
    assert.equal(
      itemsIn(nodes.a.box('coder').sent).length + itemsIn(nodes.b.box('reviewer').sent).length,
      HANDOFFS,
    );
    assert.deepEqual(
      [...itemsIn(nodes.a.box('coder').failed), ...itemsIn(nodes.b.box('reviewer').failed)],
      [],
    );
  });
});
