// A local JetStream cluster of 3 or 5 nats-server processes on 127.0.0.1, for trying a
// replicated swarm on one machine and for tests (docs/bridge.md §5): member n (1-based) has
// client port P+n-1, route port P+100+n-1, server_name `n<n>`, and its store and pid file
// in `<natsDir>/<n>/`. Each member is a server as natsServer.ts runs one (argv, no shell,
// identified through /proc by its store), with the cluster's arguments added. Up means more
// than each member answering: the members have formed the cluster and elected a JetStream
// meta leader, asked with a raw `$JS.API.INFO` request (this module loads no NATS client).
import { connect } from 'node:net';
import { join } from 'node:path';
import { until } from '../proc/ending.js';
import {
  NATS_HOST,
  NatsPortBusy,
  NatsServerFailed,
  natsServerDown,
  natsServerUp,
  natsUrlOf,
  portFree,
  natsServerArgv,
  runningNatsServer,
  type ClusterMember,
  type RunningNatsServer,
} from './natsServer.js';

/** The largest cluster, hence the member folders `down` looks in. */
const MAX_MEMBERS = 5;

/** How far above the client ports the route ports are. */
export const ROUTE_PORT_OFFSET = 100;

/** The name of every local cluster. */
const CLUSTER_NAME = 'baton';

/** How long the members may take to elect a meta leader once each answers. */
const FORMED_WITHIN_MS = 15_000;

/** One member of a local cluster: where it listens and where it keeps its store and pid. */
export interface MemberPlan {
  index: number;
  port: number;
  storeDir: string;
  pidFile: string;
  member: ClusterMember;
}

/** The members of a cluster of `count` servers from client port `port`, stores under `natsDir`. */
export function clusterPlan(count: number, port: number, natsDir: string): MemberPlan[] {
  const routes = Array.from({ length: count }, (_, i) => port + ROUTE_PORT_OFFSET + i);
  return routes.map((routePort, i) => ({
    index: i + 1,
    port: port + i,
    storeDir: memberStoreOf(natsDir, i + 1),
    pidFile: join(memberStoreOf(natsDir, i + 1), 'nats-server.pid'),
    member: { name: `n${i + 1}`, cluster: CLUSTER_NAME, routePort, routes },
  }));
}

/** Member `index`'s store folder. */
function memberStoreOf(natsDir: string, index: number): string {
  return join(natsDir, String(index));
}

/** One member as `up` found or started it. */
export interface MemberUp {
  name: string;
  url: string;
  pid: number;
  started: boolean;
}

/** What `baton nats up --cluster` found or started. */
export interface NatsClusterUp {
  /** False when every member was already up. */
  started: boolean;
  urls: string[];
  members: MemberUp[];
}

/** Options of natsClusterUp. */
export interface ClusterUpOptions {
  count: number;
  port: number;
  natsDir: string;
  /** The lone server's pid file (`baton nats up` without --cluster): none may run beside. */
  lonePidFile: string;
  timeoutMs?: number;
}

/** The members running now (any size of cluster), by index. */
export function runningMembers(natsDir: string): Map<number, RunningNatsServer> {
  const found = new Map<number, RunningNatsServer>();
  for (let index = 1; index <= MAX_MEMBERS; index++) {
    const storeDir = memberStoreOf(natsDir, index);
    const running = runningNatsServer(join(storeDir, 'nats-server.pid'), storeDir);
    if (running) found.set(index, running);
  }
  return found;
}

/**
 * Starts the members of the cluster that are not running (a member killed earlier restarts
 * on its store), waits until each answers and the cluster has a meta leader. Refused (an
 * environment failure) while the lone server or a cluster of another shape runs; a busy
 * client or route port is refused before spawning. Members this call started are stopped
 * again when another fails. Callers serialise calls (`baton nats up` holds the lock).
 */
export async function natsClusterUp(options: ClusterUpOptions): Promise<NatsClusterUp> {
  const plan = clusterPlan(options.count, options.port, options.natsDir);
  const lone = runningNatsServer(options.lonePidFile, options.natsDir);
  if (lone)
    throw new NatsServerFailed(
      `a lone nats-server runs (pid ${lone.pid}) '${options.lonePidFile}': baton nats down first`,
    );
  const running = runningMembers(options.natsDir);
  refuseOtherShape(plan, running);
  for (const m of plan.filter((m) => !running.has(m.index)))
    for (const port of [m.port, m.member.routePort])
      if (!(await until(() => portFree(port), 1_000))) throw new NatsPortBusy(port);
  const members: MemberUp[] = [];
  try {
    // Started together: a member waits for its routes, and answers only once it is listening.
    const ups = await Promise.all(
      plan.map((m) =>
        natsServerUp({
          port: m.port,
          storeDir: m.storeDir,
          pidFile: m.pidFile,
          member: m.member,
          ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
        }),
      ),
    );
    ups.forEach((up, i) =>
      members.push({ name: plan[i]!.member.name, url: up.url, pid: up.pid, started: up.started }),
    );
    await waitUntilFormed(plan, options.timeoutMs ?? FORMED_WITHIN_MS);
  } catch (err) {
    await stopStarted(plan, running);
    throw err;
  }
  return {
    started: members.some((m) => m.started),
    urls: plan.map((m) => natsUrlOf(m.port)),
    members,
  };
}

/**
 * Refuses to start beside members of a cluster with another size or other ports (their routes
 * differ: the servers would not form the cluster asked for).
 */
function refuseOtherShape(plan: MemberPlan[], running: Map<number, RunningNatsServer>): void {
  const routes = natsServerArgv(0, '', plan[0]!.member).at(-1);
  for (const [index, { pid, port, routes: theirs }] of running) {
    const planned = plan.find((m) => m.index === index);
    if (planned && (port === undefined || port === planned.port) && theirs === routes) continue;
    throw new NatsServerFailed(
      `a local cluster of another shape runs (member ${index}, pid ${pid}` +
        `${port ? `, port ${port}` : ''}): baton nats down first`,
    );
  }
}

/** Stops the members that were not running before this call (a failed start leaves none). */
async function stopStarted(plan: MemberPlan[], before: Map<number, unknown>): Promise<void> {
  for (const m of plan.filter((m) => !before.has(m.index)))
    await natsServerDown({ storeDir: m.storeDir, pidFile: m.pidFile, timeoutMs: 2_000 }).catch(
      () => undefined,
    );
}

/** Waits until every member answers `$JS.API.INFO` without an error (a meta leader is known). */
async function waitUntilFormed(plan: MemberPlan[], timeoutMs: number): Promise<void> {
  const formed = await until(
    async () => (await Promise.all(plan.map((m) => jetStreamAnswers(m.port)))).every(Boolean),
    timeoutMs,
  );
  if (!formed)
    throw new NatsServerFailed(
      `the local cluster on ${plan.map((m) => natsUrlOf(m.port)).join(',')} ` +
        `elected no JetStream leader within ${timeoutMs} ms`,
    );
}

/**
 * True when the server at 127.0.0.1:`port` answers a `$JS.API.INFO` request with account info
 * (not an error such as "JetStream system temporarily unavailable") within `timeoutMs`. The
 * NATS protocol by hand: CONNECT, SUB to a reply subject, PUB the request, read the MSG.
 */
export function jetStreamAnswers(port: number, timeoutMs = 1_000): Promise<boolean> {
  return new Promise((done) => {
    const socket = connect({ port, host: NATS_HOST });
    let seen = Buffer.alloc(0);
    let asked = false;
    const finish = (ok: boolean) => {
      socket.destroy();
      done(ok);
    };
    socket.setTimeout(timeoutMs, () => finish(false));
    socket.on('error', () => finish(false));
    socket.on('close', () => finish(false));
    socket.on('data', (chunk: Buffer) => {
      seen = Buffer.concat([seen, chunk]);
      if (!asked && seen.includes('\r\n')) {
        asked = true;
        socket.write(
          'CONNECT {"verbose":false,"pedantic":false}\r\nSUB _baton_probe 1\r\n' +
            'PUB $JS.API.INFO _baton_probe 0\r\n\r\n',
        );
      }
      const head = /MSG _baton_probe 1 (\d+)\r\n/.exec(seen.toString('latin1'));
      if (!head) return;
      const start = head.index + head[0].length;
      const size = Number(head[1]);
      if (seen.length < start + size) return;
      try {
        const reply = JSON.parse(seen.subarray(start, start + size).toString('utf8')) as {
          error?: unknown;
        };
        finish(reply.error === undefined);
      } catch {
        finish(false);
      }
    });
  });
}

/** One member `down` stopped. */
export interface MemberDown {
  name: string;
  pid: number;
  escalated: boolean;
}

/** Stops every running member of a local cluster (any size), each as natsServerDown stops one. */
export async function natsClusterDown(options: {
  natsDir: string;
  timeoutMs?: number;
}): Promise<MemberDown[]> {
  const stopped: MemberDown[] = [];
  const members = [...runningMembers(options.natsDir).keys()];
  await Promise.all(
    members.map(async (index) => {
      const storeDir = memberStoreOf(options.natsDir, index);
      const down = await natsServerDown({
        storeDir,
        pidFile: join(storeDir, 'nats-server.pid'),
        ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
      });
      if (down) stopped.push({ name: `n${index}`, ...down });
    }),
  );
  return stopped.sort((x, y) => x.name.localeCompare(y.name));
}
