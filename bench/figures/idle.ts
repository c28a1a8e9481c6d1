// Figure 6: idle CPU with 100 roles. handoffd (default 1 s poll) on a project of 100 roles
// with nothing to deliver, against a Node child that only keeps a 1 s timer, both running
// over the same windows and measured the same way: utime + stime from /proc/<pid>/stat.
// The first window after start-up is reported on its own: V8 is still compiling the pass
// code and collecting start-up garbage there, a one-off cost of a process that then runs
// for hours. The figure is the steady state: a longer window after that one (ticks are
// 10 ms, so a longer window also resolves a small difference better).
// Then one pass's work, timed in this process with the library's own functions, to show
// where the daemon's idle time goes.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import { daemonPathsOf } from '../../lib/handoff/layout.js';
import { WakePolicy } from '../../lib/daemon/wakePolicy.js';
import { mailboxOf } from '../../lib/handoff/layout.js';
import { readRoles } from '../../lib/handoff/roles.js';
import { inProcessOf } from '../../lib/queue/claim.js';
import { itemNamesIn } from '../../lib/queue/names.js';
import { afterPasses } from '../../test/support/daemon.js';
import { makeProject } from '../../test/support/project.js';
import { Cleanups } from '../support/cleanups.js';
import { healthOf, startDaemon } from '../support/daemonChild.js';
import { sampleAlone } from '../support/interleave.js';
import { clockTicks, cpuTicksOf } from '../support/procCpu.js';
import { budget, figureOf, printFigure, printHeading, PERCENT_OF_CORE, type Figure } from '../support/report.js';
import { formatMs, msSince, single, summarize } from '../support/stats.js';

const ROLES = 100;
/** The first window after start-up (reported, not judged) and the steady-state window (the figure). */
const SETTLING_MS = 10_000;
const WINDOW_MS = 20_000;
const CONF = Array.from({ length: ROLES }, (_, i) => `window r${i + 1} claude master\n`).join('');
const BASELINE_PROGRAM = 'setInterval(() => {}, 1000)';
/** Allowed excess over the baseline, in percent of a core. */
const MARGIN = 0.5;

async function sleep(ms: number): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, ms));
}

/** Median ms of each part of one idle pass over `root`'s roles (as handoffd's pass and scheduleWakes do them). */
async function passParts(root: string): Promise<{ roles: number; outboxes: number; wakeViews: number; health: number; whole: number }> {
  const roles = [...readRoles(root).roles.values()];
  const policy = new WakePolicy({ rewakeIntervalMs: 60_000 });
  const median = async (run: () => void) => summarize(await sampleAlone(run, 3, 21)).median;
  const outboxes = () => {
    for (const role of roles) itemNamesIn(mailboxOf(root, role.role).outbox);
  };
  const wakeViews = () => {
    for (const role of roles) {
      const box = mailboxOf(root, role.role);
      const state = inProcessOf(box);
      policy.decide(role.role, { waiting: itemNamesIn(box.inboxNew).length, busy: state.files.length + state.batches.length > 0 }, false, Date.now());
    }
  };
  const scratch = `${daemonPathsOf(root).health}.bench`;
  const health = () => fs.writeFileSync(scratch, JSON.stringify({ pid: 1, passes: 1, delivered: 0, failed: 0, errors: 0 }), { mode: 0o600 });
  const parts = {
    roles: await median(() => void readRoles(root)),
    outboxes: await median(outboxes),
    wakeViews: await median(wakeViews),
    health: await median(health),
    whole: await median(() => {
      readRoles(root);
      outboxes();
      wakeViews();
      health();
    }),
  };
  fs.rmSync(scratch, { force: true });
  return parts;
}

/** Measures handoffd's idle CPU with 100 roles against an idle Node timer. */
export async function benchIdle(): Promise<Figure[]> {
  printHeading(`6. handoffd idle CPU, ${ROLES} roles, 1 s poll: vs node with a 1 s timer`);
  const cleanups = new Cleanups();
  try {
    const project = makeProject(CONF);
    cleanups.add(() => project.cleanup());
    const { hz, source } = clockTicks();
    const daemon = await startDaemon(project.root);
    cleanups.add(() => daemon.stop());
    const baseline = spawn(process.execPath, ['-e', BASELINE_PROGRAM], { stdio: 'ignore' });
    const baselineExit = new Promise<void>((resolve) => baseline.on('exit', () => resolve()));
    cleanups.add(async () => {
      if (baseline.exitCode === null && baseline.signalCode === null) baseline.kill('SIGTERM');
      await baselineExit;
    });
    // both past start-up: the daemon has finished two passes (its first one creates nothing here)
    await afterPasses(project.root, 2);
    const settlingStart = process.hrtime.bigint();
    const settling0 = [cpuTicksOf(daemon.pid), cpuTicksOf(baseline.pid!)];
    await sleep(SETTLING_MS);
    const settlingSeconds = msSince(settlingStart) / 1000;
    const passes0 = healthOf(project.root)?.passes ?? 0;
    const start = process.hrtime.bigint();
    const d0 = cpuTicksOf(daemon.pid);
    const b0 = cpuTicksOf(baseline.pid!);
    const settlingPercent = (ticks: number) => ((ticks / hz / settlingSeconds) * 100).toFixed(2);
    await sleep(WINDOW_MS);
    const d1 = cpuTicksOf(daemon.pid);
    const b1 = cpuTicksOf(baseline.pid!);
    const seconds = msSince(start) / 1000;
    const passes = (healthOf(project.root)?.passes ?? passes0) - passes0;
    const percent = (ticks: number) => (ticks / hz / seconds) * 100;
    const figure = figureOf('6', `idle CPU, ${ROLES} roles, steady state (% of a core)`, single(percent(d1 - d0)), `node -e '${BASELINE_PROGRAM}'`, single(percent(b1 - b0)),
      budget(`≤ baseline + ${MARGIN} %`, (s, b) => s.median <= b.median + MARGIN), PERCENT_OF_CORE);
    printFigure(figure);
    const cpuMs = ((d1 - d0) / hz) * 1000;
    console.log(`    first ${settlingSeconds.toFixed(1)} s after start-up (not judged): handoffd ${settlingPercent(d0 - settling0[0]!)} %, baseline ${settlingPercent(b0 - settling0[1]!)} %.`);
    console.log(`    steady-state window ${seconds.toFixed(1)} s; ticks: handoffd ${d1 - d0}, baseline ${b1 - b0}, at ${hz} per second (${source}); ` +
      `difference ${(figure.subject.median - figure.baseline.median).toFixed(2)} % of a core.`);
    console.log(`    handoffd ran ${passes} passes in the window: ${passes > 0 ? formatMs(cpuMs / passes) : '—'} CPU per pass (tick resolution ${formatMs(1000 / hz)}).`);
    const p = await passParts(project.root);
    const row = (label: string, ms: number) => console.log(`      ${label.padEnd(50, '.')} ${formatMs(ms).padStart(9)}`);
    console.log(`    one idle pass over ${ROLES} roles, its parts timed in this process (median):`);
    row('read roles.tsv ', p.roles);
    row(`list ${ROLES} outboxes (itemNamesIn) `, p.outboxes);
    row(`wake views: ${ROLES} × (inProcessOf + list inbox/new) `, p.wakeViews);
    row('write health.json ', p.health);
    row('the whole pass ', p.whole);
    return [figure];
  } finally {
    await cleanups.run();
  }
}
