// The bridge's connection to a real nats-server (docs/bridge.md §3): it connects in the
// background and sets up the stream, the local roles' consumers and the owners' bucket
// before it says it is up; a lost server is reported once and the link comes back up by
// itself when the server does; a link started without a server keeps trying; every error
// text is redacted before it is logged or kept.
import assert from 'node:assert/strict';
import { connect as netConnect, createServer, type Server, type Socket } from 'node:net';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { BridgeLink, type LinkConfig, type Wire } from '../../lib/bridge/bridgeLink.js';
import { bridgeSettingsOf } from '../../lib/bridge/bridgeSettings.js';
import { consumerNameOf, ownersBucketOf, streamNameOf } from '../../lib/bridge/wireNames.js';
import { waitFor } from '../support/daemon.js';
import { freePort, startNatsServer, type NatsServerHandle } from '../support/nats.js';

/** A link and what it reported. */
interface Watched {
  link: BridgeLink;
  events: { event: string; details: Record<string, string> }[];
  ups: Wire[];
  downs: number;
}

describe('lib/bridge/bridgeLink', function () {
  this.timeout(30_000);
  const settings = { ...bridgeSettingsOf({}), backoffCapMs: 200 };
  let nats: NatsServerHandle;
  const servers: NatsServerHandle[] = [];
  const links: BridgeLink[] = [];
  let swarms = 0;
  before(async () => {
    nats = await startNatsServer();
    servers.push(nats);
  });
  afterEach(async () => {
    await Promise.all(links.splice(0).map((l) => l.close()));
  });
  after(async () => {
    await Promise.all(servers.map((s) => s.stop()));
  });

  const watched = (urls: string[], extra: Partial<LinkConfig> = {}): Watched => {
    swarms += 1;
    const w: Watched = { events: [], ups: [], downs: 0 } as unknown as Watched;
    w.link = new BridgeLink({
      urls,
      swarm: `link-${swarms}`,
      node: 'b',
      roles: ['reviewer', 'QA'],
      replicas: 1,
      credentials: '',
      settings,
      log: (event, details) => w.events.push({ event, details }),
      onUp: (wire) => w.ups.push(wire),
      onDown: () => void (w.downs += 1),
      ...extra,
    });
    links.push(w.link);
    return w;
  };
  const named = (w: Watched, event: string) => w.events.filter((e) => e.event === event);

  it('connects in the background, sets up stream, consumers and bucket, then calls onUp with a wire and logs bridge-connected', async () => {
    const w = watched([nats.url]);
    assert.equal(w.link.connected, false);
    w.link.start();
    await waitFor('onUp', () => w.ups.length === 1);
    const wire = w.ups[0]!;
    assert.equal(w.link.connected, true);
    assert.equal(w.link.wire, wire);
    assert.equal(w.link.lastError, null);
    assert.equal(wire.maxPayload, 1024 * 1024, "the server's announced max_payload");
    const swarm = `link-${swarms}`;
    assert.equal(
      (await wire.jsm.streams.info(streamNameOf(swarm))).config.name,
      streamNameOf(swarm),
    );
    for (const role of ['reviewer', 'QA'])
      assert.equal(
        (await wire.jsm.consumers.info(streamNameOf(swarm), consumerNameOf(role))).name,
        consumerNameOf(role),
      );
    assert.equal((await wire.owners.status()).bucket, ownersBucketOf(swarm));
    assert.deepEqual(w.events, [
      { event: 'bridge-connected', details: { server: `127.0.0.1:${nats.port}` } },
    ]);
    assert.equal(w.downs, 0);
  });

  it('server killed: onDown and one bridge-error however many reconnects fail; restarted: onUp and bridge-connected again', async () => {
    const w = watched([nats.url]);
    w.link.start();
    await waitFor('onUp', () => w.ups.length === 1);
    const nc = w.ups[0]!.nc;
    let reconnecting = 0;
    void (async () => {
      for await (const s of nc.status()) if (s.type === 'reconnecting') reconnecting += 1;
    })();
    await nats.kill();
    await waitFor('onDown', () => w.downs === 1);
    assert.equal(w.link.connected, false);
    assert.equal(w.link.wire, undefined);
    await waitFor('three failed reconnects', () => reconnecting >= 3);
    const errors = named(w, 'bridge-error');
    assert.equal(errors.length, 1, JSON.stringify(w.events));
    assert.equal(errors[0]!.details.problem, `disconnected from 127.0.0.1:${nats.port}`);
    assert.equal(w.link.lastError, `disconnected from 127.0.0.1:${nats.port}`);
    assert.equal(w.ups.length, 1);

    await nats.restart();
    await waitFor('onUp again', () => w.ups.length === 2);
    assert.equal(w.link.connected, true);
    assert.equal(w.link.lastError, null);
    assert.equal(named(w, 'bridge-connected').length, 2);
    assert.equal(w.downs, 1);
    await w.ups[1]!.jsm.streams.info(streamNameOf(`link-${swarms}`));

    // A second outage is a new change of state: logged again.
    await nats.kill();
    await waitFor('onDown again', () => w.downs === 2);
    assert.equal(named(w, 'bridge-error').length, 2);
    await nats.restart();
    await waitFor('onUp a third time', () => w.ups.length === 3);
  });

  it('a server restarted on an empty store: the set-up is done again (stream, consumers, bucket back)', async () => {
    const port = await freePort();
    let server = await startNatsServer({ port });
    servers.push(server);
    const w = watched([server.url]);
    w.link.start();
    await waitFor('onUp', () => w.ups.length === 1);
    await server.stop();
    await waitFor('onDown', () => w.downs === 1);
    server = await startNatsServer({ port });
    servers.push(server);
    await waitFor('onUp again', () => w.ups.length === 2);
    const swarm = `link-${swarms}`;
    await w.ups[1]!.jsm.streams.info(streamNameOf(swarm));
    await w.ups[1]!.jsm.consumers.info(streamNameOf(swarm), consumerNameOf('QA'));
  });

  it('a set-up that fails after the connect (another stream owns the subjects): one loop of retries, never onDown, then up once fixed', async () => {
    // Each try of the set-up asks the server for the stream's info first: a plain subscriber sees every request.
    const swarm = `link-${swarms + 1}`;
    const watcher = await connect({ servers: nats.url });
    try {
      const jsm = await jetstreamManager(watcher);
      await jsm.streams.add({ name: `SQUAT_${swarms + 1}`, subjects: [`baton.${swarm}.>`] });
      const tries: number[] = [];
      const sub = watcher.subscribe(`$JS.API.STREAM.INFO.${streamNameOf(swarm)}`, {
        callback: () => void tries.push(Date.now()),
      });
      await watcher.flush();
      const w = watched([nats.url]);
      w.link.start();
      await waitFor('six tries of the set-up', () => tries.length >= 6);
      // One loop waits 250 ms, then 200 ms (the cap) between tries: six tries take a second at least. Loops that multiply take far less.
      assert.ok(
        tries[5]! - tries[0]! >= 900,
        `six tries in ${tries[5]! - tries[0]!} ms: more than one retry loop`,
      );
      assert.equal(w.downs, 0, 'never up, so never down');
      assert.deepEqual(
        [w.ups.length, named(w, 'bridge-error').length],
        [0, 1],
        JSON.stringify(w.events.slice(0, 5)),
      );
      assert.match(w.link.lastError!, /overlap/);
      sub.unsubscribe();
      await jsm.streams.delete(`SQUAT_${swarms}`);
      await waitFor('onUp', () => w.ups.length === 1);
      assert.equal(w.downs, 0);
    } finally {
      await watcher.close();
    }
  });

  describe('started without a server', () => {
    let fake: Server | undefined;
    const sockets = new Set<Socket>();
    afterEach(async () => {
      for (const s of sockets) s.destroy();
      if (fake?.listening) await new Promise((done) => fake!.close(done));
      fake = undefined;
    });

    it('keeps trying (bridge-error logged once), then connects when the server comes up', async () => {
      // What listens on the port first answers nothing and hangs up: each try of the link shows as a connection.
      const port = await freePort();
      let tries = 0;
      fake = createServer((socket) => {
        tries += 1;
        sockets.add(socket);
        socket.destroy();
      });
      await new Promise<void>((done) => fake!.listen(port, '127.0.0.1', () => done()));
      const w = watched([`nats://127.0.0.1:${port}`]);
      w.link.start();
      await waitFor('four tries', () => tries >= 4);
      assert.equal(named(w, 'bridge-error').length, 1, JSON.stringify(w.events));
      assert.equal(w.link.connected, false);
      assert.notEqual(w.link.lastError, null);
      assert.deepEqual([w.ups.length, w.downs], [0, 0]);
      await new Promise((done) => fake!.close(done));
      const server = await startNatsServer({ port });
      servers.push(server);
      await waitFor('onUp', () => w.ups.length === 1);
      assert.equal(w.link.connected, true);
      assert.equal(w.link.lastError, null);
      // Between the hang-ups and the server, a refused connection may add one error of another text; never one text twice.
      assert.equal(w.events.at(-1)!.event, 'bridge-connected', JSON.stringify(w.events));
      const problems = named(w, 'bridge-error').map((e) => e.details.problem);
      assert.ok(
        problems.every((p, i) => i === 0 || p !== problems[i - 1]),
        JSON.stringify(problems),
      );
    });

    it('close() ends the retries at once, even in the middle of a backoff', async () => {
      const port = await freePort();
      const w = watched([`nats://127.0.0.1:${port}`], {
        settings: { ...settings, backoffCapMs: 60_000 },
      });
      w.link.start();
      await waitFor('a first failure', () => w.link.lastError !== null);
      const started = Date.now();
      await w.link.close();
      assert.ok(Date.now() - started < 1_000);
      assert.equal(w.link.connected, false);
    });
  });

  describe('closed while connecting', () => {
    let proxy: Server | undefined;
    const held: Socket[] = [];
    afterEach(async () => {
      for (const s of held.splice(0)) s.destroy();
      if (proxy?.listening) await new Promise((done) => proxy!.close(done));
    });

    it('a connect that completes after close() is closed too (no connection left behind to keep handoffd alive)', async () => {
      // A proxy holds the link's connection until told, then joins it to the server.
      const port = await freePort();
      let release: () => void = () => undefined;
      const released = new Promise<void>((done) => (release = done));
      let clientClosed = false;
      proxy = createServer((client) => {
        held.push(client);
        client.on('close', () => (clientClosed = true));
        client.pause();
        void released.then(() => {
          const upstream = netConnect(nats.port, '127.0.0.1');
          held.push(upstream);
          client.pipe(upstream).pipe(client);
          client.resume();
        });
      });
      await new Promise<void>((done) => proxy!.listen(port, '127.0.0.1', () => done()));
      const w = watched([`nats://127.0.0.1:${port}`]);
      w.link.start();
      await waitFor("the link's connection at the proxy", () => held.length === 1);
      await w.link.close();
      release();
      await waitFor(
        'the link to hang up the connection it got after close()',
        () => clientClosed,
        5_000,
      );
      assert.equal(w.ups.length, 0);
    });
  });

  describe('redaction', () => {
    const SECRET = 'my-secret-token-0123456789';
    const CREDS = `-----BEGIN NATS USER JWT-----\n${SECRET}\n------END NATS USER JWT------\n`;

    it('error(): the text logged and kept has every line of the credentials content and any seed or JWT removed', () => {
      const w = watched([nats.url], { credentials: CREDS });
      const seed = `SU${'A'.repeat(56)}`;
      w.link.error(new Error(`authorization violation for ${SECRET} (seed ${seed})`));
      assert.deepEqual(w.events, [
        {
          event: 'bridge-error',
          details: { problem: 'authorization violation for [redacted] (seed [redacted])' },
        },
      ]);
      assert.equal(w.link.lastError, 'authorization violation for [redacted] (seed [redacted])');
      assert.ok(!JSON.stringify(w.events).includes(SECRET));
    });

    it('error(): the same text twice in a row is logged once; another text is logged; a non-Error is shown too', () => {
      const w = watched([nats.url], { credentials: CREDS });
      w.link.error(new Error('one'));
      w.link.error(new Error('one'));
      w.link.error('two');
      w.link.error(new Error('one'));
      assert.deepEqual(
        named(w, 'bridge-error').map((e) => e.details.problem),
        ['one', 'two', 'one'],
      );
    });

    it('credentials the client cannot use: a bridge-error that says so without their content, and no connection', async () => {
      const w = watched([nats.url], { credentials: `${SECRET}\n` });
      w.link.start();
      await waitFor('a bridge-error', () => named(w, 'bridge-error').length === 1);
      assert.equal(w.link.connected, false);
      assert.ok(!JSON.stringify(w.events).includes(SECRET), JSON.stringify(w.events));
      assert.match(w.link.lastError!, /credentials/);
      assert.ok(!w.link.lastError!.includes(SECRET));
      assert.equal(w.ups.length, 0);
    });
  });
});
