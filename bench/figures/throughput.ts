// Figure 5: throughput, with every fsync, to 1 and to 3 recipients. A backlog of handoffs
// is queued in the sender's outbox before the deliverer starts; handoffd (the built bin,
// started after queueing) is timed from its `started` log line to its last `delivered`
// line (both in its own log, so neither Node's start-up nor our polling is counted), the
// raw loop (bench/support/baselines.ts rawDeliverAll, in this process) from its first
// readdir to its last fsync. Same project, same files, runs alternating (ABBA over the
// contenders). For attribution, handoffd also runs already started when the backlog is
// renamed in (its steady state: a backlog present at start-up takes the "deep" path, since
// any of it may have been partly delivered before a crash). The fsyncs per handoff are
// counted on the library's own deliverHandoff.
import * as fs from 'node:fs';
import { join } from 'node:path';
import { mailboxOf, swarmDirOf } from '../../lib/project/layout.js';
import { ensureMailbox, type Mailbox } from '../../lib/queue/mailbox.js';
import { waitFor } from '../../test/support/daemon.js';
import { itemsIn, makeProject, type Project } from '../../test/support/project.js';
import { rawDeliverAll, rawFsyncDir } from '../support/baselines.js';
import { Cleanups } from '../support/cleanups.js';
import { clearLog, healthOf, logEvents, startDaemon, type Daemon } from '../support/daemonChild.js';
import { deliveryFsyncs } from '../support/deliveryFsyncs.js';
import { settle } from '../support/fixtureWrites.js';
import {
  handoffFile,
  queueBacklog,
  stageBacklog,
  type HandoffFile,
} from '../support/handoffFiles.js';
import { clockTicks, cpuTicksOf } from '../support/procCpu.js';
import {
  atLeast,
  figureOf,
  printFigure,
  printHeading,
  PER_SECOND,
  type Figure,
} from '../support/report.js';
import { formatMs, msSince, summarize } from '../support/stats.js';

/** Handoffs per run: at 0.5-3 ms per fsync (this VM, quiet to busy), seconds per run, and the suite stays within minutes. */
const BACKLOG = 250;
/** Rounds over the contenders, in ABBA order. */
const ROUNDS = 2;
const SENDER = 'coder';
const RECIPIENTS = ['a', 'b', 'c'];
const CONF = [SENDER, ...RECIPIENTS].map((r) => `window ${r} claude master\n`).join('');

/** One timed drain: handoffs per second and CPU milliseconds per handoff. */
interface Drain {
  rate: number;
  cpuMsPerHandoff: number;
}

/** What every run of a figure shares. */
interface Bench {
  project: Project;
  sender: Mailbox;
  recipients: string[];
  files: HandoffFile[];
  /** Temp folder of the raw loop and of the counted deliveries. */
  tmp: string;
  hz: number;
}

/** Empties every recipient's new/ and the sender's sent/, synced, and drops the daemon's log (untimed, between runs). */
function clearDeliveries(b: Bench): void {
  for (const box of [b.sender, ...b.recipients.map((r) => mailboxOf(b.project.root, r))]) {
    for (const dir of [box.inboxNew, box.sent]) {
      fs.rmSync(dir, { recursive: true, force: true });
      fs.mkdirSync(dir, { mode: 0o700 });
      rawFsyncDir(join(dir, '..'));
    }
  }
  clearLog(b.project.root);
}

/** Throws unless every recipient holds every copy and the outbox is empty. */
function checkDelivered(b: Bench): void {
  const outbox = itemsIn(b.sender.outbox);
  const short = b.recipients.filter(
    (r) => itemsIn(mailboxOf(b.project.root, r).inboxNew).length !== b.files.length,
  );
  if (outbox.length > 0 || short.length > 0)
    throw new Error(
      `backlog not delivered: ${outbox.length} left in outbox, copies missing for ${short.join(',')}`,
    );
}

/** Waits until the outbox is empty (each original leaves after its copies) and the last delivery is logged; the delivered log times. */
async function drained(b: Bench): Promise<number[]> {
  await waitFor(
    'the backlog to be delivered',
    () => itemsIn(b.sender.outbox).length === 0,
    300_000,
  );
  const deliveredAt = () =>
    logEvents(b.project.root)
      .filter((e) => e.event === 'delivered')
      .map((e) => e.at);
  await waitFor(
    `handoffd to log ${b.files.length} deliveries`,
    () => deliveredAt().length >= b.files.length,
    10_000,
  );
  return deliveredAt();
}

function drainOf(b: Bench, ms: number, cpuMs: number): Drain {
  return { rate: b.files.length / (ms / 1000), cpuMsPerHandoff: cpuMs / b.files.length };
}

async function withDaemon<T>(b: Bench, fn: (daemon: Daemon) => Promise<T>): Promise<T> {
  const daemon = await startDaemon(b.project.root);
  try {
    return await fn(daemon);
  } finally {
    await daemon.stop();
  }
}

/** handoffd started on a queued backlog: from its `started` line to its last delivery. */
async function daemonOnBacklog(b: Bench): Promise<Drain> {
  queueBacklog(b.sender, b.files);
  settle();
  return withDaemon(b, async (daemon) => {
    const ticks0 = cpuTicksOf(daemon.pid);
    const delivered = await drained(b);
    const cpuMs = ((cpuTicksOf(daemon.pid) - ticks0) / b.hz) * 1000;
    const started = logEvents(b.project.root).find((e) => e.event === 'started');
    if (!started) throw new Error('handoffd logged no started line');
    return drainOf(b, delivered.at(-1)! - started.at, cpuMs);
  });
}

/** handoffd already running (first pass done) when the backlog is renamed into the outbox: from the first rename to its last delivery. */
async function daemonRunning(b: Bench): Promise<Drain> {
  const publish = stageBacklog(b.sender, b.files);
  settle();
  return withDaemon(b, async (daemon) => {
    await waitFor('the first pass', () => (healthOf(b.project.root)?.passes ?? 0) >= 1);
    const ticks0 = cpuTicksOf(daemon.pid);
    const start = Date.now();
    publish();
    const delivered = await drained(b);
    return drainOf(b, delivered.at(-1)! - start, ((cpuTicksOf(daemon.pid) - ticks0) / b.hz) * 1000);
  });
}

/** The raw durable loop in this process. */
async function rawLoop(b: Bench): Promise<Drain> {
  queueBacklog(b.sender, b.files);
  settle();
  const cpu0 = process.cpuUsage();
  const start = process.hrtime.bigint();
  const names = rawDeliverAll(
    b.sender.outbox,
    b.sender.sent,
    b.recipients.map((r) => mailboxOf(b.project.root, r).inboxNew),
    b.tmp,
  );
  const ms = msSince(start);
  const cpu = process.cpuUsage(cpu0);
  if (names.length !== b.files.length)
    throw new Error(`raw loop delivered ${names.length} of ${b.files.length}`);
  return drainOf(b, ms, (cpu.user + cpu.system) / 1000);
}

/** fsyncs of one delivery through deliverHandoff, deep and not (counted on extra handoffs after a first deep one has created the lock folders; untimed). */
async function fsyncsPerDelivery(b: Bench): Promise<{ deep: number; shallow: number }> {
  const extra: HandoffFile[] = [];
  for (let i = 1; i <= 3; i++) extra.push(await handoffFile(BACKLOG + i, SENDER, b.recipients));
  queueBacklog(b.sender, extra);
  const deliver = (file: HandoffFile, deep: boolean) =>
    deliveryFsyncs(b.project.root, b.tmp, SENDER, file.name, deep);
  await deliver(extra[0]!, true);
  const counts = { deep: await deliver(extra[1]!, true), shallow: await deliver(extra[2]!, false) };
  clearDeliveries(b);
  return counts;
}

const CONTENDERS = [
  { label: 'handoffd started on the backlog', run: daemonOnBacklog },
  { label: 'handoffd running as it arrives', run: daemonRunning },
  { label: 'raw loop', run: rawLoop },
];

async function throughputFigure(
  label: string,
  project: Project,
  recipients: string[],
  hz: number,
): Promise<Figure> {
  const files: HandoffFile[] = [];
  for (let seq = 1; seq <= BACKLOG; seq++) files.push(await handoffFile(seq, SENDER, recipients));
  const tmp = join(swarmDirOf(project.root), 'bench-tmp');
  fs.mkdirSync(tmp, { recursive: true, mode: 0o700 });
  const b: Bench = { project, sender: mailboxOf(project.root, SENDER), recipients, files, tmp, hz };
  const fsyncs = await fsyncsPerDelivery(b);
  const drains = CONTENDERS.map(() => [] as Drain[]);
  for (let round = 0; round < ROUNDS; round++) {
    const order = CONTENDERS.map((_, i) => i);
    if (round % 2 === 1) order.reverse();
    for (const i of order) {
      drains[i]!.push(await CONTENDERS[i]!.run(b));
      checkDelivered(b);
      clearDeliveries(b);
    }
  }
  const rates = drains.map((runs) => summarize(runs.map((d) => d.rate)));
  const rawFsyncs = recipients.length * 2 + 2;
  const figure = figureOf(
    label,
    `throughput, ${recipients.length} recipient${recipients.length > 1 ? 's' : ''} (${BACKLOG} queued)`,
    rates[0]!,
    `raw loop, ${rawFsyncs} fsyncs per handoff`,
    rates.at(-1)!,
    atLeast(0.7),
    PER_SECOND,
  );
  printFigure(figure);
  const width = Math.max(...CONTENDERS.map((c) => c.label.length));
  for (const [i, c] of CONTENDERS.entries()) {
    const rate = rates[i]!.median;
    const cpu = summarize(drains[i]!.map((d) => d.cpuMsPerHandoff)).median;
    console.log(
      `    ${c.label.padEnd(width)} : ${PER_SECOND.format(rate).padStart(7)}  ${(rate / figure.baseline.median).toFixed(2)}× raw;` +
        ` per handoff ${formatMs(1000 / rate)} wall, ${formatMs(cpu)} CPU (user+sys)`,
    );
  }
  console.log(
    `    fsyncs per handoff: deliverHandoff alone deep ${fsyncs.deep} (it also takes and releases each recipient's inbox lock), not deep ${fsyncs.shallow},` +
      ` raw ${rawFsyncs}; handoffd finishes a backlog in groups, sharing the new/, sent/ and outbox/ fsyncs. Wall minus CPU is time blocked on the disk.`,
  );
  return figure;
}

/** Measures backlog throughput of handoffd against the raw loop, to 1 and to 3 recipients. */
export async function benchThroughput(): Promise<Figure[]> {
  printHeading(`5. handoffd throughput: a queued backlog, fsync'd, vs the raw durable loop`);
  const cleanups = new Cleanups();
  try {
    const project = makeProject(CONF);
    cleanups.add(() => project.cleanup());
    for (const role of [SENDER, ...RECIPIENTS]) ensureMailbox(mailboxOf(project.root, role));
    const { hz } = clockTicks();
    return [
      await throughputFigure('5a', project, RECIPIENTS.slice(0, 1), hz),
      await throughputFigure('5b', project, RECIPIENTS, hz),
    ];
  } finally {
    await cleanups.run();
  }
}
