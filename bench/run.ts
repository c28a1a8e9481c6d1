// Entry point of `npm run bench`: start-up, claim and swarm_handoff figures, each a ratio to
// a baseline measured in the same run, then one summary table. Expects the bins built.
import * as fs from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN_DIR } from '../test/support/project.js';
import { benchClaim } from './claim.js';
import { benchHandoff } from './handoff.js';
import { printHeading, printTable, type Figure } from './report.js';
import { benchStartup } from './startup.js';
import { msSince } from './stats.js';

function load(): string {
  return loadavg().map((l) => l.toFixed(2)).join(' ');
}

/** Runs every benchmark section and prints the summary table. */
export async function runBenchmarks(): Promise<Figure[]> {
  for (const bin of ['ready_for_next', 'swarm_handoff', 'baton']) {
    if (!fs.existsSync(join(BIN_DIR, `${bin}.js`))) throw new Error(`missing ${join(BIN_DIR, `${bin}.js`)}: run \`node scripts/build.mjs\` first`);
  }
  const start = process.hrtime.bigint();
  console.log(`Baton benchmarks: node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, temp dirs in ${tmpdir()}, load ${load()}`);
  console.log('Every figure is a ratio of medians (subject / baseline) sampled interleaved in this run, after warm-up.');
  const figures = [...(await benchStartup()), ...(await benchClaim()), ...(await benchHandoff())];
  printHeading('Summary');
  printTable(figures);
  console.log(`Total ${(msSince(start) / 1000).toFixed(1)} s; load average now ${load()} (fsync-heavy figures swing with other disk activity on the machine).`);
  return figures;
}

await runBenchmarks();
