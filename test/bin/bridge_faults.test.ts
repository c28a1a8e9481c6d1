// Faults on the bridge's path (docs/bridge.md §3), black-box: two ROOTs, two built
// handoffds, one real nats-server. Each case SIGKILLs one party at one step (the sending
// handoffd after the server stored its publishes and before the move to sent/, the
// receiving handoffd after its copy and before the acknowledgement, the server itself
// mid-stream) or repeats a publish after the duplicate window and after a server restart;
// in every case each (id, recipient) pair ends up held exactly once.
import assert from 'node:assert/strict';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { streamNameOf } from '../../lib/bridge/wireNames.js';
import { daemonLog, waitFor } from '../support/daemon.js';
import { startNatsServer, type NatsServerHandle } from '../support/nats.js';
import { itemsIn, runBin } from '../support/project.js';
import { bridgeDrained, heldCopies, makeTwoNodes, type TwoNodes } from '../support/twoNodes.js';

/** Short timings so a redelivery or an expired window shows in about a second. */
const QUICK = {
  BATON_BRIDGE_ACK_WAIT_MS: '1500',
  BATON_BRIDGE_DUPLICATE_WINDOW_MS: '1000',
  BATON_BRIDGE_BACKOFF_CAP_MS: '500',
};

describe('the bridge under faults (built bins, real nats-server, SIGKILL)', function () {
  this.timeout(90_000);
  let nats: NatsServerHandle;
  let nodes: TwoNodes;
  beforeEach(async () => {
    nats = await startNatsServer();
    nodes = makeTwoNodes(nats);
  });
  afterEach(async () => {
    await nodes.cleanup();
    await nats.stop();
  });

  const logged = (node: 'a' | 'b', event: string) =>
    daemonLog(nodes[node].root).filter((l) => l.split(' ')[1] === event);
  const nameOf = (path: string) => path.split('/').pop()!;
  const drained = (node: 'a' | 'b') => bridgeDrained(nodes[node]);
  /** The stream's last sequence: how many messages the server ever stored for this swarm. */
  const storedMessages = async () => {
    const nc = await connect({ servers: nats.url });
    try {
      return (await (await jetstreamManager(nc)).streams.info(streamNameOf(nodes.swarm))).state
        .last_seq;
    } finally {
      await nc.close();
    }
  };
  const exactlyOnce = async (role: 'reviewer' | 'QA', ids: string[]) => {
    const held = await heldCopies(nodes.b, role);
    assert.deepEqual([...held.keys()].sort(), ids.map((id) => `${id}:${role}`).sort());
    assert.ok(
      [...held.values()].every((n) => n === 1),
      `one copy each: ${JSON.stringify([...held])}`,
    );
  };
  const idOf = (name: string) => name.replace(/^\d+_/, '').replace(/_to_.*$/, '');

  it('sending handoffd killed after the publish was stored, before the move to sent/: the restart finishes it, one copy', async () => {
    await nodes.start('b', QUICK);
    const dying = await nodes.start('a', { ...QUICK, BATON_CRASH_AT: 'bridge:publish-stored' });
    const name = nameOf(nodes.send('a', 'coder', 'reviewer', 'once'));
    await dying.exited;
    assert.deepEqual(
      itemsIn(nodes.a.box('coder').outbox),
      [name],
      'still in the outbox after the kill',
    );
    await waitFor('the copy on b', () => itemsIn(nodes.b.box('reviewer').inboxNew).length === 1);
    await nodes.start('a', QUICK);
    await waitFor('sent/ on a', () => itemsIn(nodes.a.box('coder').sent).length === 1);
    await waitFor('b drained', () => drained('b'));
    await exactlyOnce('reviewer', [idOf(name)]);
    assert.equal(logged('b', 'received').length, 1);
  });

  it('receiving handoffd killed after its copy, before the acknowledgement: the redelivery is found by id, one copy', async () => {
    await nodes.start('a', QUICK);
    const dying = await nodes.start('b', { ...QUICK, BATON_CRASH_AT: 'bridge:copies-synced' });
    const name = nameOf(nodes.send('a', 'coder', 'reviewer', 'once'));
    await dying.exited;
    assert.deepEqual(
      itemsIn(nodes.b.box('reviewer').inboxNew),
      [name],
      'the copy was made before the kill',
    );
    // The agent claims it meanwhile: the redelivery must find it in in_process/, not by its name in new/.
    assert.equal(runBin('ready_for_next', [], { role: 'reviewer', cwd: nodes.b.root }).code, 0);
    assert.deepEqual(itemsIn(nodes.b.box('reviewer').inProcess), [name]);
    await nodes.start('b', QUICK);
    await waitFor('the redelivered message acknowledged on b', () => drained('b'), 30_000);
    await exactlyOnce('reviewer', [idOf(name)]);
    assert.deepEqual(
      logged('b', 'received'),
      [],
      'the copy before the kill was not logged; the redelivery made none',
    );
    assert.deepEqual(itemsIn(nodes.a.box('coder').sent), [name]);
  });

  it('nats-server killed mid-stream and restarted on the same store: every pair once', async () => {
    await nodes.start('a', QUICK);
    await nodes.start('b', QUICK);
    const names: string[] = [];
    for (let i = 0; i < 40; i++) {
      names.push(nameOf(nodes.send('a', 'coder', 'reviewer,QA', `m${i}`)));
      if (i === 15) await nats.kill();
    }
    await nats.restart();
    await waitFor(
      'every handoff sent',
      () => itemsIn(nodes.a.box('coder').sent).length === 40,
      45_000,
    );
    // b's bridge.json may still show the counts of before the last publishes: wait for the
    // copies themselves (a lost one times out here), then for the stream to be drained.
    const copiesOnB = async () =>
      (await heldCopies(nodes.b, 'reviewer')).size === 40 &&
      (await heldCopies(nodes.b, 'QA')).size === 40;
    await waitFor('a copy of each handoff for both roles on b', copiesOnB, 45_000);
    await waitFor('b drained', () => drained('b'), 30_000);
    await exactlyOnce('reviewer', names.map(idOf));
    await exactlyOnce('QA', names.map(idOf));
    assert.deepEqual(itemsIn(nodes.a.box('coder').outbox), []);
  });

  it('a publish repeated after the duplicate window: the server stores it again, the receiver keeps one copy', async () => {
    await nodes.start('b', QUICK);
    const dying = await nodes.start('a', { ...QUICK, BATON_CRASH_AT: 'bridge:publish-stored' });
    const name = nameOf(nodes.send('a', 'coder', 'reviewer', 'twice on the wire'));
    await dying.exited;
    const killedAt = Date.now();
    await waitFor('b drained', () => drained('b'));
    // The agent works it off meanwhile: the repeat must find it in completed/.
    assert.equal(runBin('ready_for_next', [], { role: 'reviewer', cwd: nodes.b.root }).code, 0);
    assert.equal(runBin('done_with_current', [], { role: 'reviewer', cwd: nodes.b.root }).code, 0);
    assert.deepEqual(itemsIn(nodes.b.box('reviewer').completed), [name]);
    await waitFor('the duplicate window (1 s) to pass', () => Date.now() > killedAt + 1500);
    await nodes.start('a', QUICK);
    await waitFor('sent/ on a', () => itemsIn(nodes.a.box('coder').sent).length === 1);
    await waitFor('b drained again', async () => drained('b') && (await storedMessages()) === 2);
    await exactlyOnce('reviewer', [idOf(name)]);
    assert.equal(logged('b', 'received').length, 1);
  });

  it('a publish repeated after a server restart: one copy', async () => {
    await nodes.start('b', QUICK);
    const dying = await nodes.start('a', { ...QUICK, BATON_CRASH_AT: 'bridge:publish-stored' });
    const name = nameOf(nodes.send('a', 'coder', 'reviewer,QA', 'across a restart'));
    await dying.exited;
    await waitFor('b drained', () => drained('b'));
    await nats.kill();
    await nats.restart();
    await nodes.start('a', QUICK);
    await waitFor('sent/ on a', () => itemsIn(nodes.a.box('coder').sent).length === 1, 30_000);
    await waitFor('b drained again', () => drained('b'), 30_000);
    await exactlyOnce('reviewer', [idOf(name)]);
    await exactlyOnce('QA', [idOf(name)]);
  });
});
