// Entry point of `npm run bench`: start-up, claim, swarm_handoff and handoffd figures, each
// a ratio to a baseline measured in the same run, then one summary table. Expects the bins
// built. Arguments name sections to run (startup claim handoff latency throughput idle
// wake review teachers runs hooks controller bridge web; bridge needs nats-server on the PATH);
// none runs them all. bench/figures/ holds one file per figure of docs/performance.md's
// section (named after its section), bench/support/ the code they share.
import * as fs from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN_DIR } from '../test/support/project.js';
import { benchBridge } from './figures/bridge.js';
import { benchClaim } from './figures/claim.js';
import { benchController } from './figures/controller.js';
import { benchHandoff } from './figures/handoff.js';
import { benchHooks } from './figures/hooks.js';
import { benchIdle } from './figures/idle.js';
import { benchLatency } from './figures/latency.js';
import { benchReview } from './figures/review.js';
import { benchRuns } from './figures/runs.js';
import { benchStartup } from './figures/startup.js';
import { benchTeachers } from './figures/teachers.js';
import { benchThroughput } from './figures/throughput.js';
import { benchWake } from './figures/wake.js';
import { benchWeb } from './figures/web.js';
import { printHeading, printTable, type Figure } from './support/report.js';
import { msSince } from './support/stats.js';

const SECTIONS: Record<string, () => Promise<Figure[]>> = {
  startup: benchStartup,
  claim: benchClaim,
  handoff: benchHandoff,
  latency: benchLatency,
  throughput: benchThroughput,
  idle: benchIdle,
  wake: benchWake,
  review: benchReview,
  teachers: benchTeachers,
  runs: benchRuns,
  hooks: benchHooks,
  controller: benchController,
  bridge: benchBridge,
  web: benchWeb,
};

function load(): string {
  return loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
}

// A machine that sets NODE_EXTRA_CA_CERTS (the development VM does, to its whole CA bundle)
// makes every node process parse those certificates at start-up, before any of its code runs:
// `node -e 0` took 61 ms with it and 22 ms without. Added to the subject and the baseline
// alike, that hid two thirds of a command's cost over Node's own start from every start-up
// ratio. No figure makes a TLS connection, so the children run without it, as the tests'
// do (test/support/testEnv.ts).
const droppedCaCerts = process.env.NODE_EXTRA_CA_CERTS !== undefined;
delete process.env.NODE_EXTRA_CA_CERTS;

/** Runs the named benchmark sections (all when none is named) and prints the summary table. */
export async function runBenchmarks(names: string[] = []): Promise<Figure[]> {
  const unknown = names.filter((n) => !(n in SECTIONS));
  if (unknown.length > 0)
    throw new Error(
      `unknown section ${unknown.join(', ')}; sections: ${Object.keys(SECTIONS).join(' ')}`,
    );
  for (const bin of [
    'ready_for_next',
    'swarm_handoff',
    'baton',
    'handoffd',
    'baton-scripted-reviewer',
    'hook-session-start',
    'hook-stop',
  ]) {
    if (!fs.existsSync(join(BIN_DIR, `${bin}.js`)))
      throw new Error(
        `missing ${join(BIN_DIR, `${bin}.js`)}: run \`node scripts/build.mjs\` first`,
      );
  }
  const start = process.hrtime.bigint();
  console.log(
    `Baton benchmarks: node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, temp dirs in ${tmpdir()}, load ${load()}`,
  );
  console.log(
    'Every figure is a ratio of medians (subject / baseline) sampled interleaved in this run, after warm-up.',
  );
  if (droppedCaCerts)
    console.log('NODE_EXTRA_CA_CERTS is unset for every process of the run (see bench/run.ts).');
  const figures: Figure[] = [];
  for (const [name, section] of Object.entries(SECTIONS)) {
    if (names.length === 0 || names.includes(name)) figures.push(...(await section()));
  }
  printHeading('Summary');
  printTable(figures);
  console.log(
    `Total ${(msSince(start) / 1000).toFixed(1)} s; load average now ${load()} (fsync-heavy figures swing with other disk activity on the machine).`,
  );
  return figures;
}

await runBenchmarks(process.argv.slice(2));
