// A real nats-server for tests and benchmarks: `-js` on 127.0.0.1, a free port, a store of
// its own, spawned through lib/adapters/natsServer.ts (argv, no shell) and waited for by
// polling its INFO line with a deadline (never a fixed sleep). startNatsCluster starts a
// local JetStream cluster of such servers (lib/adapters/natsCluster.ts's plan), each member
// a handle of its own to kill and restart on its store.
//
// Cleaning up: every caller stops what it started, in an `after`/`afterEach` hook:
//   let nats: NatsServerHandle;
//   before(async () => { nats = await startNatsServer(); });
//   after(() => nats.stop());
// stop() ends the server and removes a store this module made; kill() and restart() keep
// the store (a crash, then the same server again). As a safety net every server started
// here is SIGKILLed when the test process exits, and on SIGTERM/SIGHUP. The servers run in
// the test process's process group (not detached), so Ctrl-C in a terminal reaches them
// too. Only a test process killed with SIGKILL can leave one behind.
import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import * as fs from 'node:fs';
import { createServer } from 'node:net';
import {
  clusterPlan,
  jetStreamAnswers,
  ROUTE_PORT_OFFSET,
} from '../../lib/adapters/natsCluster.js';
import {
  NATS_HOST,
  NatsPortBusy,
  natsUrlOf,
  spawnNatsServer,
  waitUntilHealthy,
  type ClusterMember,
  type SpawnedNatsServer,
} from '../../lib/adapters/natsServer.js';
import { waitFor } from './daemon.js';
import { tempDir } from './project.js';

/** A running test server. */
export interface NatsServerHandle {
  /** `nats://127.0.0.1:<port>`. */
  url: string;
  port: number;
  storeDir: string;
  /** The pid of the current process (a restart changes it). */
  pid: number;
  /** Sends `signal` (SIGKILL by default) and waits for the exit; the store stays. */
  kill: (signal?: NodeJS.Signals) => Promise<void>;
  /** Starts the server again on the same port and store (killing the current one first if it runs); waits until healthy. */
  restart: () => Promise<void>;
  /** SIGTERM, wait (SIGKILL after 5 s), then remove the store if this module made it. Call it in `after`. */
  stop: () => Promise<void>;
  /** True while its current process runs (false after kill(), until restart()). */
  running: () => boolean;
  /** For a failure message: whether the server runs, else how it ended, and its log's last lines. */
  state: () => string;
}

/** Options of startNatsServer. */
export interface NatsServerOptions {
  /** The store; a new temporary folder by default (removed by stop()). */
  storeDir?: string;
  /** The port; a free one on 127.0.0.1 by default. */
  port?: number;
  /** Joins it to a local cluster (startNatsCluster). */
  member?: ClusterMember;
}

/** What is running, for the exit-time safety net. */
const running = new Set<SpawnedNatsServer>();
const ownedStores = new Set<string>();

/**
 * A port on 127.0.0.1 nobody listens on right now, drawn at random below the kernel's ephemeral
 * range (32768-60999 here). A port the kernel hands out for port 0 may be one a parallel test
 * just freed by killing its server, which it restarts on that same port a moment later: two
 * tests' servers would then swap clients. Below the range no bind(0) and no client
 * connection ever gets it.
 */
export async function freePort(): Promise<number> {
  for (let attempt = 1; ; attempt += 1) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if (await bindable(port)) return port;
    if (attempt === 50) throw new Error('no free port for a nats-server in 20000-31999');
  }
}

/**
 * A first client port P for a local cluster of `count`: P..P+count-1 and the route ports
 * P+100.. all free now, drawn as freePort draws one.
 */
export async function freeClusterPort(count: number): Promise<number> {
  for (let attempt = 1; ; attempt += 1) {
    const port = 20_000 + Math.floor(Math.random() * (12_000 - ROUTE_PORT_OFFSET - count));
    const ports = Array.from({ length: count }, (_, i) => [port + i, port + ROUTE_PORT_OFFSET + i]);
    if ((await Promise.all(ports.flat().map(bindable))).every(Boolean)) return port;
    if (attempt === 50) throw new Error(`no ${count} free cluster ports in 20000-31999`);
  }
}

/** A running local cluster of test servers. */
export interface NatsClusterHandle {
  /** Every member's URL, in member order (the `nats` line of a roster). */
  urls: string[];
  /** The members in order; each kill()s and restart()s on its store as a lone server does. */
  servers: NatsServerHandle[];
  /** The members' server_names (`n1`, `n2`, ...), in order. */
  names: string[];
  /** Waits until every running member answers JetStream requests (the cluster has a leader). */
  ready: (timeoutMs?: number) => Promise<void>;
  /** Stops every member and removes the stores. Call it in `after`. */
  stop: () => Promise<void>;
}

/**
 * Starts a local JetStream cluster of `count` servers (lib/adapters/natsCluster.ts's plan, stores
 * in a temporary folder) and resolves once it has elected its meta leader.
 */
export async function startNatsCluster(count = 3): Promise<NatsClusterHandle> {
  const dir = tempDir('baton-nats-cluster-');
  ownedStores.add(dir);
  const plan = clusterPlan(count, await freeClusterPort(count), dir);
  const servers = await Promise.all(
    plan.map((m) => startNatsServer({ storeDir: m.storeDir, port: m.port, member: m.member })),
  );
  const cluster: NatsClusterHandle = {
    urls: servers.map((s) => s.url),
    servers,
    names: plan.map((m) => m.member.name),
    ready: (timeoutMs = 20_000) =>
      waitFor(
        'every running cluster member to answer JetStream requests',
        async () =>
          (
            await Promise.all(servers.map(async (s) => !s.running() || jetStreamAnswers(s.port)))
          ).every(Boolean),
        timeoutMs,
      ),
    stop: async () => {
      await Promise.all(servers.map((s) => s.stop()));
      if (ownedStores.delete(dir)) fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  await cluster.ready();
  await untilPlaceable(cluster.urls, count);
  return cluster;
}

/**
 * Waits until the cluster places a stream on all `count` servers: a meta leader answers before
 * every peer has registered with it, and a stream of `count` replicas made then is refused
 * ("no suitable peers for placement"). A probe stream is made, then deleted.
 */
async function untilPlaceable(urls: string[], count: number): Promise<void> {
  const nc = await connect({ servers: urls });
  try {
    const jsm = await jetstreamManager(nc);
    const name = `PLACEMENT_PROBE_${process.pid}`;
    await waitFor(
      `a stream of ${count} replicas to be placeable`,
      () =>
        jsm.streams.add({ name, subjects: [`probe.${process.pid}`], num_replicas: count }).then(
          () => true,
          () => false,
        ),
      20_000,
    );
    await jsm.streams.delete(name);
  } finally {
    await nc.close();
  }
}

/** Whether `port` can be listened on now. */
function bindable(port: number): Promise<boolean> {
  return new Promise((done) => {
    const probe = createServer();
    probe.once('error', () => done(false));
    probe.listen({ port, host: NATS_HOST }, () => probe.close(() => done(true)));
  });
}

/** Starts a nats-server -js on 127.0.0.1 and resolves once it answers. */
export async function startNatsServer(options: NatsServerOptions = {}): Promise<NatsServerHandle> {
  installSafetyNet();
  const storeDir = options.storeDir ?? tempDir('baton-nats-');
  if (options.storeDir === undefined) ownedStores.add(storeDir);
  let server = await launch(storeDir, options.port, options.member);
  const handle: NatsServerHandle = {
    url: natsUrlOf(server.port),
    port: server.port,
    storeDir,
    pid: server.child.pid!,
    kill: (signal = 'SIGKILL') => endProcess(server, signal),
    restart: async () => {
      await endProcess(server, 'SIGKILL');
      server = await launch(storeDir, handle.port, options.member);
      handle.pid = server.child.pid!;
    },
    stop: async () => {
      await endProcess(server, 'SIGTERM');
      if (ownedStores.delete(storeDir)) fs.rmSync(storeDir, { recursive: true, force: true });
    },
    running: () => !server.ended(),
    state: () => stateOf(server),
  };
  return handle;
}

/**
 * Spawns one server and waits until it is healthy. A free port found by the kernel may be
 * taken by a parallel test before the server binds it: without a port of its own choosing,
 * the caller gets a fresh port and another try (three in all).
 */
async function launch(
  storeDir: string,
  port: number | undefined,
  member?: ClusterMember,
): Promise<SpawnedNatsServer> {
  for (let attempt = 1; ; attempt += 1) {
    const server = spawnNatsServer({
      port: port ?? (await freePort()),
      storeDir,
      detached: false,
      ...(member ? { member } : {}),
    });
    running.add(server);
    installSafetyNet();
    try {
      await waitUntilHealthy(server);
      return server;
    } catch (err) {
      await endProcess(server, 'SIGKILL');
      if (port !== undefined || !(err instanceof NatsPortBusy) || attempt === 3) throw err;
    }
  }
}

/** Whether `server` runs, else its exit code or signal; then the last lines of its log. */
function stateOf(server: SpawnedNatsServer): string {
  const { child } = server;
  const how = server.ended()
    ? `exited (code ${child.exitCode}, signal ${child.signalCode})`
    : 'running';
  let log = '';
  let cause = '';
  try {
    const text = fs.readFileSync(server.logFile, 'utf8');
    log = text.split('\n').slice(-6).join('\n');
    // A Go panic's stack buries its reason: the first `panic:` or `fatal error:` line says it.
    const panic = /^(?:panic|fatal error): .*$/m.exec(text)?.[0];
    if (panic) cause = `; it died with: ${panic}`;
  } catch {
    log = '(no log)';
  }
  return `nats-server pid ${child.pid} ${how}${cause}; its log ends:\n${log}`;
}

/** Signals a server and waits for its exit; SIGKILL after 5 s if `signal` did not end it. */
async function endProcess(server: SpawnedNatsServer, signal: NodeJS.Signals): Promise<void> {
  const { child } = server;
  if (!server.ended()) {
    const exited = new Promise<void>((done) => child.once('exit', () => done()));
    child.kill(signal);
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  }
  running.delete(server);
  if (running.size === 0) removeSignalNet();
}

/** SIGKILLs every server still running (synchronously: it runs at process exit) and removes the stores made here. */
function killAll(): void {
  for (const server of running) if (!server.ended()) server.child.kill('SIGKILL');
  running.clear();
  for (const store of ownedStores) fs.rmSync(store, { recursive: true, force: true });
  ownedStores.clear();
}

/**
 * Kills the servers when the test process ends: at `exit`, and on SIGTERM and SIGHUP (the
 * handler then re-raises the signal so the process still dies of it, as it would have,
 * unless someone else listens for it). The signal handlers are there only while a server
 * runs: a mocha worker runs other test files after this one, and those count and emit
 * signal listeners of their own.
 * SIGINT is left to mocha; the servers share its process group and get the terminal's
 * Ctrl-C themselves.
 */
let exitNetInstalled = false;
const signalNet = new Map<NodeJS.Signals, () => void>();
function installSafetyNet(): void {
  if (!exitNetInstalled) process.once('exit', killAll);
  exitNetInstalled = true;
  for (const sig of ['SIGTERM', 'SIGHUP'] as const) {
    if (signalNet.has(sig)) continue;
    const handler = () => {
      signalNet.delete(sig);
      killAll();
      if (process.listenerCount(sig) === 0) process.kill(process.pid, sig);
    };
    signalNet.set(sig, handler);
    process.once(sig, handler);
  }
}

/** Takes the signal handlers away once no server runs. */
function removeSignalNet(): void {
  for (const [sig, handler] of signalNet) process.off(sig, handler);
  signalNet.clear();
}

/** A server and a client of it, for the tests of one describe block. */
export interface ServedClient {
  nats: NatsServerHandle;
  nc: NatsConnection;
  jsm: JetStreamManager;
}

/**
 * Starts a server and connects a client to it in the calling describe block's `before`, and
 * ends both in its `after`; the fields are set from the `before` on.
 */
export function servedClient(): ServedClient {
  const served = {} as ServedClient;
  before(async () => {
    served.nats = await startNatsServer();
    served.nc = await connect({ servers: served.nats.url });
    served.jsm = await jetstreamManager(served.nc);
  });
  after(async () => {
    await served.nc?.close();
    await served.nats?.stop();
  });
  return served;
}
