// `npm run soak`: the whole suite with BATON_TEST_TIER=full (see test/support/tier.ts):
// every case of every matrix (each crash point of the controller, each baton run action
// from each status), the tests that only the soak runs (the notification overflow past the
// kernel's queue), and the stochastic tests at their full size: the swarm_handoff fuzz
// (1000 drafts), the task-mode race (8 processes, 500 items), the run-start race (300), the
// record fuzz (1000), the handoffd crash soak (2,000 handoffs, 32 SIGKILLs), the review
// races (200 verdict races, 100 lock takeovers) and the bridge soak (2,000 handoffs × 3
// recipients over two nodes, 24 kills of either handoffd or the nats-server). `npm test`
// runs the same files at their short size. Expects the bins built (`npm run soak` builds
// first) and nats-server installed.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';

const mocha = createRequire(import.meta.url).resolve('mocha/bin/mocha.js');
const started = Date.now();
const run = spawnSync(process.execPath, [mocha, '--parallel', '--jobs', '2', 'test/**/*.test.ts'], {
  stdio: 'inherit',
  env: { ...process.env, BATON_TEST_TIER: 'full' },
});
process.stderr.write(
  `soak: ${run.status === 0 ? 'passed' : 'FAILED'} in ${Math.round((Date.now() - started) / 1000)} s\n`,
);
process.exit(run.status ?? 1);
