// The queue's delivery, black-box, through the bridge (docs/bridge.md): two ROOTs, two
// built handoffds and one real nats-server on 127.0.0.1, the recipient on the other node.
// Each case mirrors a delivery case of handoffd.test.ts: exactly one copy, the original
// in sent/, headers and body byte-identical, the recipient woken on its own node.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as net from 'node:net';
import { join } from 'node:path';
import { WAKE_TEXT } from '../../lib/daemon/waker.js';
import { parseEnvelope } from '../../lib/queue/envelope.js';
import { afterPasses, daemonLog, startPanes, stopHandoffd, waitFor } from '../support/daemon.js';
import { startNatsServer, type NatsServerHandle } from '../support/nats.js';
import { itemsIn, placeItem } from '../support/project.js';
import { heldCopies, makeTwoNodes, nodesConf, type TwoNodes } from '../support/twoNodes.js';

describe('handoffd across two nodes (built bins, real nats-server)', function () {
  this.timeout(60_000);
  let nats: NatsServerHandle;
  let nodes: TwoNodes;
  let killPanes: (() => Promise<void>) | undefined;
  before(async () => {
    nats = await startNatsServer();
  });
  after(async () => {
    await nats.stop();
  });
  beforeEach(() => {
    nodes = makeTwoNodes(nats);
  });
  afterEach(async () => {
    await killPanes?.();
    killPanes = undefined;
    await nodes.cleanup();
  });

  const logged = (node: 'a' | 'b', event: string) =>
    daemonLog(nodes[node].root).filter((l) => l.split(' ')[1] === event);
  const nameOf = (path: string) => path.split('/').pop()!;

  it('delivers one handoff to a role on the other node: one copy, original in sent/, bytes kept, recipient woken there', async () => {
    const panes = await startPanes(nodes.b.root, ['reviewer', 'QA']);
    killPanes = panes.kill;
    await nodes.start('a');
    await nodes.start('b');
    const original = nodes.send('a', 'coder', 'reviewer', 'review this');
    const name = nameOf(original);
    const copy = join(nodes.b.box('reviewer').inboxNew, name);
    await waitFor(
      'the copy on b and the original in sent/ on a',
      () => fs.existsSync(copy) && fs.existsSync(join(nodes.a.box('coder').sent, name)),
    );
    const sent = await parseEnvelope(fs.readFileSync(join(nodes.a.box('coder').sent, name)));
    const delivered = await parseEnvelope(fs.readFileSync(copy));
    assert.deepEqual(
      { ...delivered.headers, recipient: undefined, enqueued_at: undefined },
      { ...sent.headers, recipient: undefined, enqueued_at: undefined },
    );
    assert.equal(delivered.headers.recipient, 'reviewer');
    assert.ok(delivered.body.equals(sent.body), 'body bytes unchanged');
    assert.equal(fs.statSync(copy).mode & 0o777, 0o600);
    assert.deepEqual(itemsIn(nodes.a.box('coder').outbox), []);
    assert.deepEqual(itemsIn(nodes.a.box('reviewer').inboxNew), [], 'no copy on the sending node');
    const shown = async () =>
      (await panes.tmux.capturePane(panes.panes.get('reviewer')!)).split(WAKE_TEXT).length - 1;
    await waitFor(
      "the wake-up typed in reviewer's pane on node b",
      async () => (await shown()) === 2,
    );
    assert.equal((await panes.tmux.capturePane(panes.panes.get('QA')!)).includes(WAKE_TEXT), false);
    await waitFor(
      'woke on b, delivered on a',
      () => logged('b', 'woke').length === 1 && logged('a', 'delivered').length === 1,
    );
    assert.match(
      logged('a', 'delivered')[0]!,
      new RegExp(`delivered id=\\S+ name=${name} from=coder to=reviewer$`),
    );
    assert.match(
      logged('b', 'received')[0]!,
      new RegExp(`received id=${sent.headers.id} name=${name} to=reviewer$`),
    );
    assert.deepEqual([...(await heldCopies(nodes.b, 'reviewer')).values()], [1]);
  });

  it('the same copy bytes as a local delivery would write: a handoff from b to a arrives byte-identical but for enqueued_at', async () => {
    await nodes.start('a');
    await nodes.start('b');
    const name = nameOf(nodes.send('b', 'reviewer', 'coder', 'back to you'));
    await waitFor(
      'the copy on a, the original in sent/ on b',
      () =>
        fs.existsSync(join(nodes.a.box('coder').inboxNew, name)) &&
        fs.existsSync(join(nodes.b.box('reviewer').sent, name)),
    );
    const before = fs.readFileSync(join(nodes.b.box('reviewer').sent, name));
    const copy = fs.readFileSync(join(nodes.a.box('coder').inboxNew, name)).toString('utf8');
    const stamped = copy.replace(/^enqueued_at: .*\n/m, '').replace(/^recipient: .*\n/m, '');
    assert.equal(stamped, before.toString('utf8').replace(/^recipient: .*\n/m, ''));
  });

  it('broadcasts to local and remote recipients: one copy each, the original moved once', async () => {
    await nodes.start('a');
    await nodes.start('b');
    const name = nameOf(nodes.send('a', 'coder', 'reviewer,QA,coder'));
    await waitFor(
      'all copies',
      () =>
        fs.existsSync(join(nodes.a.box('coder').inboxNew, name)) &&
        ['reviewer', 'QA'].every((r) => fs.existsSync(join(nodes.b.box(r).inboxNew, name))),
    );
    await waitFor(
      'sent, logged',
      () =>
        itemsIn(nodes.a.box('coder').sent).length === 1 && logged('a', 'delivered').length === 1,
    );
    for (const r of ['reviewer', 'QA'])
      assert.equal(
        (await parseEnvelope(fs.readFileSync(join(nodes.b.box(r).inboxNew, name)))).headers
          .recipient,
        r,
      );
    assert.match(logged('a', 'delivered')[0]!, /to=coder,reviewer,QA$/);
    assert.deepEqual(itemsIn(nodes.a.box('coder').outbox), []);
  });

  it('does not deliver again a copy the remote recipient already claimed or completed', async () => {
    const original = nodes.send('a', 'coder', 'reviewer,QA');
    const name = nameOf(original);
    const copyBytes = fs.readFileSync(original);
    fs.writeFileSync(join(nodes.b.box('reviewer').completed, name), copyBytes);
    fs.mkdirSync(join(nodes.b.box('QA').inProcess, 'batch_20260101T000000Z_000001'));
    fs.writeFileSync(
      join(nodes.b.box('QA').inProcess, 'batch_20260101T000000Z_000001', name),
      copyBytes,
    );
    await nodes.start('b');
    await nodes.start('a');
    await waitFor('sent on a', () => itemsIn(nodes.a.box('coder').sent).length === 1);
    await waitFor('both arrivals acknowledged', async () => {
      const report = JSON.parse(
        fs.readFileSync(join(nodes.b.root, '.swarmforge', 'bridge.json'), 'utf8'),
      ) as { pending: Record<string, number>; unacked: Record<string, number> };
      return (
        report.pending.reviewer === 0 &&
        report.pending.QA === 0 &&
        report.unacked.reviewer === 0 &&
        report.unacked.QA === 0 &&
        itemsIn(nodes.a.box('coder').sent).length === 1
      );
    });
    await afterPasses(nodes.b.root, 2);
    assert.deepEqual(itemsIn(nodes.b.box('reviewer').inboxNew), []);
    assert.deepEqual(itemsIn(nodes.b.box('QA').inboxNew), []);
    assert.deepEqual(logged('b', 'received'), []);
  });

  it("refuses a handoff over the server's max_payload into failed/ with a .error, before any copy", async () => {
    await nodes.start('a');
    await nodes.start('b');
    await waitFor('the link', () => logged('a', 'bridge-connected').length === 1);
    const name = '50_20260101T000000Z_000001_from_coder_to_reviewer_coder.handoff';
    // Written beside the outbox, then renamed in (as swarm_handoff publishes): the daemon never sees a part of it.
    const staged = await placeItem(
      join(nodes.a.root, 'staging'),
      { from: 'coder', to: 'reviewer,coder', id: '20260101T000000Z_000001_from_coder' },
      Buffer.alloc(1100 * 1024, 'x'),
      name,
    );
    fs.renameSync(staged, join(nodes.a.box('coder').outbox, name));
    await waitFor(
      'failed/',
      () =>
        fs.existsSync(join(nodes.a.box('coder').failed, `${name}.error`)) &&
        fs.existsSync(join(nodes.a.box('coder').failed, name)),
    );
    assert.match(
      fs.readFileSync(join(nodes.a.box('coder').failed, `${name}.error`), 'utf8'),
      /^too large for the bridge: \d+ bytes with its headers is over the server's max_payload of 1048576\n$/,
    );
    assert.deepEqual(itemsIn(nodes.a.box('coder').failed), [name]);
    assert.deepEqual(itemsIn(nodes.a.box('coder').inboxNew), [], 'no local copy either');
    await afterPasses(nodes.b.root, 2);
    assert.deepEqual(itemsIn(nodes.b.box('reviewer').inboxNew), []);
  });

  it('a handoff found too large only at a retry, after its local copy was made, names that local recipient in its .error', async () => {
    await nats.kill();
    const name = '50_20260101T000000Z_000002_from_coder_to_coder_reviewer.handoff';
    try {
      await nodes.start('a');
      const staged = await placeItem(
        join(nodes.a.root, 'staging'),
        { from: 'coder', to: 'coder,reviewer', id: '20260101T000000Z_000002_from_coder' },
        Buffer.alloc(1100 * 1024, 'x'),
        name,
      );
      fs.renameSync(staged, join(nodes.a.box('coder').outbox, name));
      await waitFor('the local copy made while no server told the limit', () =>
        fs.existsSync(join(nodes.a.box('coder').inboxNew, name)),
      );
      assert.deepEqual(itemsIn(nodes.a.box('coder').outbox), [name]);
    } finally {
      await nats.restart();
    }
    const error = join(nodes.a.box('coder').failed, `${name}.error`);
    await waitFor(
      'failed/ at the retry, once the server told its limit',
      () => fs.existsSync(error) && fs.existsSync(join(nodes.a.box('coder').failed, name)),
      30_000,
    );
    assert.match(
      fs.readFileSync(error, 'utf8'),
      /^too large for the bridge: \d+ bytes with its headers is over the server's max_payload of 1048576; the local recipients coder received it\n$/,
    );
    assert.deepEqual(itemsIn(nodes.a.box('coder').inboxNew), [name], 'the local copy stays, once');
  });

  it('starts without a server: local delivery goes on, the remote copy waits in the outbox (logged), then goes when the server is back', async () => {
    await nats.kill();
    let remote = '';
    try {
      await nodes.start('a');
      const local = nameOf(nodes.send('a', 'coder', 'coder', 'to myself'));
      remote = nameOf(nodes.send('a', 'coder', 'reviewer', 'over there'));
      await waitFor('the local copy', () =>
        fs.existsSync(join(nodes.a.box('coder').inboxNew, local)),
      );
      await waitFor('a bridge-error', () => logged('a', 'bridge-error').length >= 1);
      await afterPasses(nodes.a.root, 3);
      assert.deepEqual(itemsIn(nodes.a.box('coder').outbox), [remote], 'kept in the outbox');
      assert.deepEqual(
        itemsIn(nodes.a.box('coder').failed),
        [],
        'never failed for an unreachable server',
      );
      assert.equal(
        await stopHandoffd(nodes.a.root, nodes.daemons.a!),
        0,
        'stops cleanly while the server is away',
      );
      assert.deepEqual(
        itemsIn(nodes.a.box('coder').outbox),
        [remote],
        'and the handoff still waits',
      );
    } finally {
      await nats.restart();
    }
    await nodes.start('a');
    await nodes.start('b');
    await waitFor(
      'the remote copy after the server came back',
      () => fs.existsSync(join(nodes.b.box('reviewer').inboxNew, remote)),
      30_000,
    );
    // The original moves once the publish is acknowledged, which may come just after the copy.
    await waitFor('the original in sent/', () =>
      itemsIn(nodes.a.box('coder').sent).includes(remote),
    );
    assert.deepEqual(itemsIn(nodes.a.box('coder').outbox), []);
    assert.ok(logged('a', 'bridge-connected').length >= 1);
  });

  it('with the server away, a handoff to a local and a remote role: the local copy is made and its recipient woken, the original waits', async () => {
    await nats.kill();
    try {
      const panes = await startPanes(nodes.a.root, ['coder']);
      killPanes = panes.kill;
      await nodes.start('a');
      const name = nameOf(nodes.send('a', 'coder', 'coder,reviewer', 'half now'));
      await waitFor('the local copy', () =>
        fs.existsSync(join(nodes.a.box('coder').inboxNew, name)),
      );
      await waitFor('coder woken on a', () =>
        logged('a', 'woke').some((l) => l.includes('role=coder')),
      );
      assert.deepEqual(itemsIn(nodes.a.box('coder').outbox), [name]);
    } finally {
      await nats.restart();
    }
    await nodes.start('b');
    await waitFor(
      'the remote copy and sent/',
      () =>
        itemsIn(nodes.b.box('reviewer').inboxNew).length === 1 &&
        itemsIn(nodes.a.box('coder').sent).length === 1,
      30_000,
    );
    assert.deepEqual(
      itemsIn(nodes.a.box('coder').inboxNew).length,
      1,
      'the local copy was not made twice',
    );
  });

  it('stops promptly when its server accepts connections but never answers (a hung server or a proxy without a backend)', async () => {
    const silent = net.createServer((socket) => socket.on('error', () => undefined));
    await new Promise<void>((done) => silent.listen(0, '127.0.0.1', done));
    try {
      const port = (silent.address() as net.AddressInfo).port;
      fs.writeFileSync(
        join(nodes.a.root, 'swarmforge', 'nodes.conf'),
        nodesConf(nodes.swarm, `nats://127.0.0.1:${port}`),
      );
      const daemon = await nodes.start('a');
      await waitFor(
        'a connect attempt',
        () => silent.connections > 0 || logged('a', 'bridge-error').length > 0,
        20_000,
      );
      const name = nameOf(nodes.send('a', 'coder', 'coder', 'local still works'));
      await waitFor('the local copy', () =>
        fs.existsSync(join(nodes.a.box('coder').inboxNew, name)),
      );
      assert.equal(
        await Promise.race([
          stopHandoffd(nodes.a.root, daemon),
          new Promise((done) => setTimeout(() => done('still running after 20 s'), 20_000)),
        ]),
        0,
      );
    } finally {
      silent.close();
    }
  });
});
