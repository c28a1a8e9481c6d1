// Figure 13: handoffd across two nodes (docs/bridge.md), each figure against handoffd on a
// one-node project measured in the same run. Two ROOTs share a roster on a real
// nats-server -js on 127.0.0.1 (test/support/twoNodes.ts: coder on node a; reviewer and QA
// on node b), a built handoffd per node (BATON_NODE, the default 1 s poll) and a third on
// a one-node project; each ROOT has a private tmux server with `cat` panes for its roles,
// so wake-ups are real. All three daemons run for the whole section.
// 13a: latency as figure 4 samples it (bench/support/deliveryLanes.ts): one fsync'd handoff
// renamed into a coder outbox/, timed until its copy is in a reviewer's inbox/new/; the
// next one once both daemons are done with it. Interleaved: node a's coder → node b's
// reviewer, the one-node project's coder → reviewer (the baseline), and node a's coder →
// coder (a local delivery by a daemon that has a bridge, for attribution).
// 13b: throughput as figure 5's "handoffd running as it arrives": a backlog renamed into
// the coder's outbox of a running daemon, timed from the first rename to the last log line
// that completes it (node b's last `received` or node a's last `delivered`, whichever is
// later; on one node, the last `delivered`), runs alternating (ABBA). Every handoff is
// fresh: the server drops a repeated id within its duplicate window.
// 13c and 13d (docs/bridge.md §5): the same two lanes across two more nodes whose roster
// says `replicas 3`, on a local 3-server cluster (test/support/nats.ts), node a on its first
// server and node b on its second, against the one-server cross-node figures of the same
// run (13a's and 13b's a → b samples), interleaved and ABBA as those are.
import * as fs from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { mailboxOf } from '../../lib/project/layout.js';
import { type Mailbox } from '../../lib/queue/mailbox.js';
import { startPanes, waitFor } from '../../test/support/daemon.js';
import {
  startNatsCluster,
  startNatsServer,
  type NatsClusterHandle,
  type NatsServerHandle,
} from '../../test/support/nats.js';
import { itemsIn, makeProject, type Project } from '../../test/support/project.js';
import { makeTwoNodes } from '../../test/support/twoNodes.js';
import { rawFsyncDir } from '../support/baselines.js';
import { Cleanups } from '../support/cleanups.js';
import {
  healthOf,
  logEvents,
  startDaemon,
  waitDelivered,
  type Daemon,
} from '../support/daemonChild.js';
import { laneOf, sender, type Lane } from '../support/deliveryLanes.js';
import { settle } from '../support/fixtureWrites.js';
import { handoffFile, stageBacklog, type HandoffFile } from '../support/handoffFiles.js';
import { interleave } from '../support/interleave.js';
import { clockTicks, cpuTicksOf } from '../support/procCpu.js';
import {
  atLeast,
  atMost,
  figureOf,
  printFigure,
  printHeading,
  PER_SECOND,
  type Figure,
} from '../support/report.js';
import { formatMs, quantile, summarize } from '../support/stats.js';

const WARMUP = 10;
const RUNS = 200;
/** Handoffs per throughput run. */
const BACKLOG = 500;
/** Throughput rounds over the two contenders, in ABBA order (three, so that one run slowed by another process does not set the median). */
const ROUNDS = 3;
const SENDER = 'coder';
const RECIPIENT = 'reviewer';

/** What the section runs on: the server, the two nodes, the one-node project, their daemons. */
interface Setup {
  nats: NatsServerHandle;
  a: Project;
  b: Project;
  single: Project;
  daemons: { a: Daemon; b: Daemon; single: Daemon; ra: Daemon; rb: Daemon };
  /** The cluster and the two nodes on it (`replicas 3`). */
  cluster: NatsClusterHandle;
  ra: Project;
  rb: Project;
}

function load(): string {
  return loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
}

/** Starts the server, both nodes and the one-node project with their panes and daemons; waits until both nodes are connected. */
async function setUp(cleanups: Cleanups): Promise<Setup> {
  const nats = await startNatsServer();
  cleanups.add(() => nats.stop());
  const nodes = makeTwoNodes(nats);
  cleanups.add(() => nodes.cleanup());
  const cluster = await startNatsCluster(3);
  cleanups.add(() => cluster.stop());
  const [u1, u2, u3] = cluster.urls;
  const replicated = makeTwoNodes({ url: u1! }, 'replicas 3\n', {
    a: [u1, u2, u3].join(','),
    b: [u2, u3, u1].join(','),
  });
  cleanups.add(() => replicated.cleanup());
  const single = makeProject();
  cleanups.add(() => single.cleanup());
  const panesOf: [string, string[]][] = [
    [single.root, [SENDER, RECIPIENT, 'QA']],
    [nodes.a.root, [SENDER]],
    [nodes.b.root, [RECIPIENT, 'QA']],
    [replicated.a.root, [SENDER]],
    [replicated.b.root, [RECIPIENT, 'QA']],
  ];
  for (const [root, roles] of panesOf) {
    const panes = await startPanes(root, roles);
    cleanups.add(() => panes.kill());
  }
  const start = async (root: string, env: Record<string, string> = {}) => {
    const daemon = await startDaemon(root, [], env);
    cleanups.add(() => daemon.stop());
    return daemon;
  };
  const daemons = {
    single: await start(single.root),
    a: await start(nodes.a.root, { BATON_NODE: 'a' }),
    b: await start(nodes.b.root, { BATON_NODE: 'b' }),
    ra: await start(replicated.a.root, { BATON_NODE: 'a' }),
    rb: await start(replicated.b.root, { BATON_NODE: 'b' }),
  };
  const connected = (p: Project) => logEvents(p.root).some((e) => e.event === 'bridge-connected');
  await waitFor(
    'all four nodes to connect to their servers',
    () => [nodes.a, nodes.b, replicated.a, replicated.b].every(connected),
    30_000,
  );
  return {
    nats,
    a: nodes.a,
    b: nodes.b,
    single,
    daemons,
    cluster,
    ra: replicated.a,
    rb: replicated.b,
  };
}

/**
 * The four latency lanes: a → b across the nodes, coder → reviewer on one node, coder → coder on
 * node a, and a → b across the nodes on the cluster.
 */
function latencyLanes(s: Setup): { remote: Lane; single: Lane; onA: Lane; replicated: Lane } {
  const box = (p: Project, role: string) => mailboxOf(p.root, role);
  // node a's daemon counts the deliveries of both lanes that send from it
  const fromA = (): number => lanes.remote.sent + lanes.onA.sent;
  const lanes: { remote: Lane; single: Lane; onA: Lane; replicated: Lane } = {
    remote: laneOf(
      'a → b',
      SENDER,
      box(s.a, SENDER),
      RECIPIENT,
      box(s.b, RECIPIENT),
      async (_name, count) => {
        await waitDelivered(s.b.root, count);
        await waitDelivered(s.a.root, fromA());
      },
    ),
    single: laneOf(
      'one node',
      SENDER,
      box(s.single, SENDER),
      RECIPIENT,
      box(s.single, RECIPIENT),
      (_name, count) => waitDelivered(s.single.root, count),
    ),
    onA: laneOf('a → a', SENDER, box(s.a, SENDER), SENDER, box(s.a, SENDER), () =>
      waitDelivered(s.a.root, fromA()),
    ),
    replicated: laneOf(
      'a → b (R3)',
      SENDER,
      box(s.ra, SENDER),
      RECIPIENT,
      box(s.rb, RECIPIENT),
      async (_name, count) => {
        await waitDelivered(s.rb.root, count);
        await waitDelivered(s.ra.root, count);
      },
    ),
  };
  return lanes;
}

/**
 * 13a: cross-node delivery latency against the one-node latency; 13c: the same on the R3 cluster
 * against 13a's. Sampled interleaved.
 */
async function latencyFigures(s: Setup, cleanups: Cleanups): Promise<Figure[]> {
  const lanes = latencyLanes(s);
  for (const lane of Object.values(lanes)) cleanups.add(() => lane.arrivals.close());
  console.log(`  load average before 13a: ${load()}`);
  const [remoteMs, singleMs, onAMs, replicatedMs] = await interleave(
    [sender(lanes.remote), sender(lanes.single), sender(lanes.onA), sender(lanes.replicated)],
    WARMUP,
    RUNS,
  );
  const figure = figureOf(
    '13a',
    'cross-node delivery latency, node a → node b',
    summarize(remoteMs!),
    'handoffd on one node, coder → reviewer',
    summarize(singleMs!),
    atMost(3),
  );
  printFigure(figure);
  const onA = summarize(onAMs!);
  console.log(
    `    node a's coder → coder (a local delivery by a daemon with a bridge): median ${formatMs(onA.median)}, p90 ${formatMs(onA.p90)},` +
      ` ${(onA.median / figure.baseline.median).toFixed(2)}× one node`,
  );
  console.log(
    `    cross-node p10 ${formatMs(quantile(remoteMs!, 0.1))}, max ${formatMs(Math.max(...remoteMs!))}; one node p10 ${formatMs(quantile(singleMs!, 0.1))}, max ${formatMs(Math.max(...singleMs!))}`,
  );
  const arrivals = Object.values(lanes).map((l) => l.arrivals);
  console.log(
    `    detection: fs.watch saw ${arrivals.reduce((n, a) => n + a.byWatch, 0)} arrivals, the 2 ms fallback poll ${arrivals.reduce((n, a) => n + a.byPoll, 0)}; load average after: ${load()}`,
  );
  const replicated = figureOf(
    '13c',
    'cross-node delivery latency on a 3-server cluster, replicas 3',
    summarize(replicatedMs!),
    'the same across nodes on one server (13a)',
    summarize(remoteMs!),
    atMost(1.5),
  );
  printFigure(replicated);
  return [figure, replicated];
}

/** One throughput contender: where its backlog goes in and comes out, which processes do the work. */
interface DrainLane {
  label: string;
  sender: Mailbox;
  senderRoot: string;
  recipient: Mailbox;
  recipientRoot: string;
  /** The log line that completes a handoff on the recipient's side. */
  arrivedEvent: 'received' | 'delivered';
  pids: number[];
  seq: number;
}

/** One timed drain: handoffs per second and CPU milliseconds per handoff (all processes of the lane). */
interface Drain {
  rate: number;
  cpuMsPerHandoff: number;
}

/** The time of the last `event` in `root`'s log after its first `skip` of that event, and how many there are. */
function eventsAfter(root: string, event: string, skip: number): { count: number; last: number } {
  const times = logEvents(root)
    .filter((e) => e.event === event)
    .slice(skip)
    .map((e) => e.at);
  return { count: times.length, last: Math.max(...times) };
}

function eventCount(root: string, event: string): number {
  return logEvents(root).filter((e) => e.event === event).length;
}

/** Removes the backlog's copies and originals (daemons running; they never look there), syncs both folders, checks every copy was there. */
function clearBacklog(d: DrainLane, files: HandoffFile[]): void {
  const missing = files.filter((f) => !fs.existsSync(join(d.recipient.inboxNew, f.name)));
  if (missing.length > 0 || itemsIn(d.sender.outbox).length > 0)
    throw new Error(
      `${d.label}: ${missing.length} copies missing, ${itemsIn(d.sender.outbox).length} left in outbox`,
    );
  for (const f of files) {
    fs.unlinkSync(join(d.recipient.inboxNew, f.name));
    fs.unlinkSync(join(d.sender.sent, f.name));
  }
  rawFsyncDir(d.recipient.inboxNew);
  rawFsyncDir(d.sender.sent);
}

/** Renames a fresh backlog into the running daemon's outbox; from the first rename to the last log line that completes it. */
async function drainOnce(d: DrainLane, hz: number): Promise<Drain> {
  const files: HandoffFile[] = [];
  for (let i = 0; i < BACKLOG; i++) files.push(await handoffFile(++d.seq, SENDER, [RECIPIENT]));
  const publish = stageBacklog(d.sender, files);
  settle();
  const skipDelivered = eventCount(d.senderRoot, 'delivered');
  const skipArrived = eventCount(d.recipientRoot, d.arrivedEvent);
  const sentBefore = healthOf(d.senderRoot)?.delivered ?? 0;
  const arrivedBefore = healthOf(d.recipientRoot)?.delivered ?? 0;
  const cpu = () => d.pids.reduce((sum, pid) => sum + cpuTicksOf(pid), 0);
  const ticks0 = cpu();
  const start = Date.now();
  publish();
  await waitFor(
    `${d.label}: the backlog to leave the outbox`,
    () => itemsIn(d.sender.outbox).length === 0,
    300_000,
  );
  await waitDelivered(d.recipientRoot, arrivedBefore + BACKLOG, 300_000);
  await waitDelivered(d.senderRoot, sentBefore + BACKLOG, 300_000);
  const cpuMs = ((cpu() - ticks0) / hz) * 1000;
  const delivered = eventsAfter(d.senderRoot, 'delivered', skipDelivered);
  const arrived = eventsAfter(d.recipientRoot, d.arrivedEvent, skipArrived);
  if (delivered.count !== BACKLOG || arrived.count !== BACKLOG)
    throw new Error(
      `${d.label}: logged ${delivered.count} delivered, ${arrived.count} ${d.arrivedEvent} of ${BACKLOG}`,
    );
  clearBacklog(d, files);
  return {
    rate: BACKLOG / ((Math.max(delivered.last, arrived.last) - start) / 1000),
    cpuMsPerHandoff: cpuMs / BACKLOG,
  };
}

/**
 * 13b: a backlog to a recipient on the other node against the same backlog on one node; 13d: the
 * same across nodes on the R3 cluster against 13b's. Rounds alternate their order.
 */
async function throughputFigures(s: Setup): Promise<Figure[]> {
  const { hz } = clockTicks();
  const lanes: DrainLane[] = [
    {
      label: 'a → b',
      sender: mailboxOf(s.a.root, SENDER),
      senderRoot: s.a.root,
      recipient: mailboxOf(s.b.root, RECIPIENT),
      recipientRoot: s.b.root,
      arrivedEvent: 'received',
      pids: [s.daemons.a.pid, s.daemons.b.pid, s.nats.pid],
      seq: 100_000,
    },
    {
      label: 'one node',
      sender: mailboxOf(s.single.root, SENDER),
      senderRoot: s.single.root,
      recipient: mailboxOf(s.single.root, RECIPIENT),
      recipientRoot: s.single.root,
      arrivedEvent: 'delivered',
      pids: [s.daemons.single.pid],
      seq: 100_000,
    },
    {
      label: 'a → b R3',
      sender: mailboxOf(s.ra.root, SENDER),
      senderRoot: s.ra.root,
      recipient: mailboxOf(s.rb.root, RECIPIENT),
      recipientRoot: s.rb.root,
      arrivedEvent: 'received',
      pids: [s.daemons.ra.pid, s.daemons.rb.pid, ...s.cluster.servers.map((server) => server.pid)],
      seq: 100_000,
    },
  ];
  console.log(`  load average before 13b: ${load()}`);
  const drains = lanes.map(() => [] as Drain[]);
  for (let round = 0; round < ROUNDS; round++) {
    const order = lanes.map((_, i) => i);
    if (round % 2 === 1) order.reverse();
    for (const i of order) drains[i]!.push(await drainOnce(lanes[i]!, hz));
  }
  const rates = drains.map((runs) => summarize(runs.map((d) => d.rate)));
  const figure = figureOf(
    '13b',
    `throughput to a remote recipient (${BACKLOG} queued)`,
    rates[0]!,
    'handoffd on one node, same backlog',
    rates[1]!,
    atLeast(0.5),
    PER_SECOND,
  );
  printFigure(figure);
  for (const [i, lane] of lanes.entries()) {
    const rate = rates[i]!.median;
    const cpu = summarize(drains[i]!.map((d) => d.cpuMsPerHandoff)).median;
    console.log(
      `    ${lane.label.padEnd(8)} : ${drains[i]!.map((d) => PER_SECOND.format(d.rate)).join(', ')}; per handoff ${formatMs(1000 / rate)} wall,` +
        ` ${formatMs(cpu)} CPU (user+sys of ${['both daemons and nats-server', 'the daemon', 'both daemons and the three servers'][i]})`,
    );
  }
  const replicated = figureOf(
    '13d',
    `throughput to a remote recipient on a 3-server cluster, replicas 3 (${BACKLOG} queued)`,
    rates[2]!,
    'the same across nodes on one server (13b)',
    rates[0]!,
    atLeast(0.7),
    PER_SECOND,
  );
  printFigure(replicated);
  console.log(`    load average after: ${load()}`);
  return [figure, replicated];
}

/** Measures cross-node delivery latency and throughput through the bridge against one node. */
export async function benchBridge(): Promise<Figure[]> {
  printHeading('13. handoffd across two nodes (NATS JetStream) vs one node, and on a cluster');
  const cleanups = new Cleanups();
  try {
    const s = await setUp(cleanups);
    return [...(await latencyFigures(s, cleanups)), ...(await throughputFigures(s))];
  } finally {
    await cleanups.run();
  }
}
