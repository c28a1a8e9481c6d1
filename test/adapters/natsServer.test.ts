// lib/adapters/natsServer.ts against a real nats-server (installed by scripts/ensureTestTools.mjs):
// up and healthy, already up, a busy port (found before spawning, and said by the server
// itself), a failed start quoting the log, down with and without escalation, stale pid
// files, a SIGKILLed server started again; and test/support/nats.ts. Every test kills
// what it started (afterEach), whatever the assertions did.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import {
  findNatsServer,
  natsInfoOf,
  NatsPortBusy,
  NatsServerFailed,
  natsServerDown,
  natsServerUp,
  portFree,
  runningNatsServer,
  spawnNatsServer,
  waitUntilHealthy,
  writePidFile,
  type SpawnedNatsServer,
} from '../../lib/adapters/natsServer.js';
import { waitFor } from '../support/daemon.js';
import { startSleeper } from '../support/deadProcess.js';
import { freePort, startNatsServer, type NatsServerHandle } from '../support/nats.js';
import { tempDir } from '../support/project.js';

/** True while `pid` runs (a zombie counts as gone). */
const alive = (pid: number) => {
  try {
    return !/\) Z /.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
};

/** A listener on 127.0.0.1:`port` standing in for another program. */
const occupy = (port: number) =>
  new Promise<Server>((done) => {
    const server = createServer();
    server.listen({ port, host: '127.0.0.1' }, () => done(server));
  });

describe('lib/adapters/natsServer', () => {
  let store: string;
  let pidFile: string;
  let port: number;
  const cleanups: (() => Promise<void> | void)[] = [];
  const up = (extra: { port?: number; timeoutMs?: number } = {}) =>
    natsServerUp({ port, storeDir: store, pidFile, ...extra });

  beforeEach(async () => {
    store = join(tempDir('baton-nats-adapter-'), 'nats');
    pidFile = join(store, 'nats-server.pid');
    port = await freePort();
  });

  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    const left = runningNatsServer(pidFile, store);
    if (left) {
      process.kill(left.pid, 'SIGKILL');
      await waitFor('the left-over server to exit', () => !alive(left.pid));
    }
    fs.rmSync(join(store, '..'), { recursive: true, force: true });
  });

  it('up: starts a server on 127.0.0.1:<port> with its store, writes its pid, returns once it answers with JetStream', async () => {
    const server = await up();
    assert.deepEqual(server, {
      pid: server.pid,
      port,
      url: `nats://127.0.0.1:${port}`,
      started: true,
    });
    assert.equal(fs.readFileSync(pidFile, 'utf8'), `${server.pid}\n`);
    assert.deepEqual(runningNatsServer(pidFile, store), { pid: server.pid, port });
    const info = await natsInfoOf(port);
    assert.deepEqual([info?.port, info?.jetstream, info?.host], [port, true, '127.0.0.1']);
    assert.ok(
      fs.statSync(join(store, 'jetstream')).isDirectory(),
      'the JetStream store is in the store folder',
    );
    assert.match(fs.readFileSync(join(store, 'nats-server.log'), 'utf8'), /Server is ready/);
  });

  it('up twice: the second finds it already up (same pid and port, started false) and starts nothing', async () => {
    const first = await up();
    const second = await up({ port: await freePort() });
    assert.deepEqual(
      second,
      { ...first, started: false },
      "the running server's own port, not the one asked for",
    );
  });

  it('a server of this store that runs but does not answer: up waits its bound, then NatsServerFailed naming the URL', async () => {
    const { pid } = await up();
    process.kill(pid, 'SIGSTOP');
    // kill() returns before the stop takes hold: on another core the server could still
    // answer one more connection (seen under load), which is not what this case is about.
    await waitFor('the server to be stopped', () =>
      / [Tt] /.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\)/, ')')),
    );
    await assert.rejects(
      up({ timeoutMs: 300 }),
      (err: Error) =>
        err instanceof NatsServerFailed &&
        err.message === `nats-server did not answer on nats://127.0.0.1:${port} within 300 ms`,
    );
  });

  it('up on a busy port: NatsPortBusy naming the port, nothing spawned, no pid file', async () => {
    const other = await occupy(port);
    cleanups.push(() => new Promise<void>((done) => other.close(() => done())));
    assert.equal(await portFree(port), false);
    await assert.rejects(
      up(),
      (err: Error) =>
        err instanceof NatsPortBusy && err.message.includes(`port ${port} on 127.0.0.1 is busy`),
    );
    assert.equal(fs.existsSync(pidFile), false);
  });

  it('the server\'s own "address already in use" (the port taken after the check) is a busy port too', async () => {
    const other = await occupy(port);
    cleanups.push(() => new Promise<void>((done) => other.close(() => done())));
    const server = spawnNatsServer({ port, storeDir: store, detached: false });
    cleanups.push(() => killSpawned(server));
    await assert.rejects(
      waitUntilHealthy(server),
      (err: Error) => err instanceof NatsPortBusy && err.message.includes(String(port)),
    );
  });

  it('a server that ends during start-up: NatsServerFailed naming the log and quoting its last line; no pid file left', async () => {
    fs.mkdirSync(store, { recursive: true });
    fs.writeFileSync(join(store, 'jetstream'), 'not a folder');
    await assert.rejects(
      up(),
      (err: Error) =>
        err instanceof NatsServerFailed &&
        err.message.includes(`'${join(store, 'nats-server.log')}'`) &&
        /storage directory is not a directory$/.test(err.message),
    );
    assert.equal(fs.existsSync(pidFile), false);
  });

  it('down: SIGTERM, the server exits, the pid file goes, the port is free; down again finds nothing', async () => {
    const { pid } = await up();
    assert.deepEqual(await natsServerDown({ storeDir: store, pidFile }), { pid, escalated: false });
    assert.equal(alive(pid), false);
    assert.equal(fs.existsSync(pidFile), false);
    assert.equal(await portFree(port), true);
    assert.equal(await natsServerDown({ storeDir: store, pidFile }), undefined);
    assert.match(fs.readFileSync(join(store, 'nats-server.log'), 'utf8'), /Server Exiting/);
  });

  it('down escalates to SIGKILL after the bound when SIGTERM does not end it (a stopped server)', async () => {
    const { pid } = await up();
    process.kill(pid, 'SIGSTOP');
    assert.deepEqual(await natsServerDown({ storeDir: store, pidFile, timeoutMs: 200 }), {
      pid,
      escalated: true,
    });
    assert.equal(alive(pid), false);
    assert.equal(fs.existsSync(pidFile), false);
  });

  it("a stale pid file (a live process that is not this store's nats-server, or garbage) is never signalled: down removes it, up replaces it", async () => {
    const sleeper = startSleeper();
    cleanups.push(() => void sleeper.kill('SIGKILL'));
    await waitFor('the sleeper to run', () => alive(sleeper.pid!));
    fs.mkdirSync(store, { recursive: true });
    writePidFile(pidFile, sleeper.pid!);
    assert.equal(runningNatsServer(pidFile, store), undefined);
    assert.equal(await natsServerDown({ storeDir: store, pidFile }), undefined);
    assert.equal(fs.existsSync(pidFile), false);
    assert.equal(alive(sleeper.pid!), true, 'the process the stale file named still runs');
    writePidFile(pidFile, sleeper.pid!);
    const server = await up();
    assert.equal(server.started, true);
    assert.equal(fs.readFileSync(pidFile, 'utf8'), `${server.pid}\n`);
    fs.writeFileSync(pidFile, 'not a pid\n');
    assert.equal(runningNatsServer(pidFile, store), undefined);
    writePidFile(pidFile, server.pid);
  });

  it("another store's nats-server named by the pid file is not ours", async () => {
    const other = await startNatsServer();
    cleanups.push(() => other.stop());
    fs.mkdirSync(store, { recursive: true });
    writePidFile(pidFile, other.pid);
    assert.equal(runningNatsServer(pidFile, store), undefined);
    assert.deepEqual(
      runningNatsServer(pidFile, other.storeDir),
      { pid: other.pid, port: other.port },
      'the same pid file read for its own store: the -sd decides',
    );
    assert.equal(await natsServerDown({ storeDir: store, pidFile }), undefined);
    assert.equal(alive(other.pid), true);
  });

  it('a SIGKILLed server leaves its pid file stale; up starts it again on the same port and store', async () => {
    const first = await up();
    fs.writeFileSync(join(store, 'marker'), 'kept');
    process.kill(first.pid, 'SIGKILL');
    await waitFor('the killed server to be gone', () => !alive(first.pid));
    assert.equal(
      fs.readFileSync(pidFile, 'utf8'),
      `${first.pid}\n`,
      'the pid file outlives the server',
    );
    const second = await up();
    assert.deepEqual([second.started, second.port], [true, port]);
    assert.notEqual(second.pid, first.pid);
    assert.equal(fs.readFileSync(join(store, 'marker'), 'utf8'), 'kept');
  });

  it('finds nats-server in /usr/sbin when PATH does not have it', function () {
    if (!fs.existsSync('/usr/sbin/nats-server')) this.skip();
    assert.equal(findNatsServer({ PATH: '/nonexistent' }), '/usr/sbin/nats-server');
  });
});

describe('test/support/nats', () => {
  let nats: NatsServerHandle | undefined;
  afterEach(async () => {
    await nats?.stop();
    nats = undefined;
  });

  it('starts a healthy server on a free port with a store of its own; kill, restart on the same port and store; stop removes the store', async () => {
    nats = await startNatsServer();
    assert.equal(nats.url, `nats://127.0.0.1:${nats.port}`);
    assert.equal((await natsInfoOf(nats.port))?.jetstream, true);
    const { pid, storeDir } = nats;
    await nats.kill();
    assert.equal(alive(pid), false);
    assert.equal(await natsInfoOf(nats.port, 200), undefined);
    await nats.restart();
    assert.notEqual(nats.pid, pid);
    assert.equal((await natsInfoOf(nats.port))?.port, nats.port);
    await nats.stop();
    nats = undefined;
    assert.equal(fs.existsSync(storeDir), false);
  });

  it('a given store and port are used as they are, and the store is kept after stop', async () => {
    const dir = tempDir('baton-nats-given-');
    try {
      const port = await freePort();
      nats = await startNatsServer({ storeDir: dir, port });
      assert.deepEqual([nats.port, nats.storeDir], [port, dir]);
      await nats.stop();
      nats = undefined;
      assert.ok(fs.existsSync(join(dir, 'jetstream')));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** Ends a server spawned by a test itself and waits for its exit. */
async function killSpawned(server: SpawnedNatsServer): Promise<void> {
  if (server.ended()) return;
  const exited = new Promise((done) => server.child.once('exit', done));
  server.child.kill('SIGKILL');
  await exited;
}
