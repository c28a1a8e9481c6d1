// `npm run soak`: the test files of the four stochastic tests with those tests at their
// full size (BATON_TEST_TIER=full, see test/support/tier.ts): the swarm_handoff fuzz (1000
// drafts), the task-mode race (8 processes, 500 items), the handoffd crash soak (2,000
// handoffs, 32 SIGKILLs), the notification overflow (20,000 handoffs) and the review races
// (200 verdict races, 100 lock takeovers) and the bridge soak (2,000 handoffs × 3 recipients
// over two nodes, 24 kills of either handoffd or the nats-server). `npm test` runs
// the same tests at their short size. Expects the bins built (`npm run soak` builds first).
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';

const FILES = [
  'test/bin/fuzz.test.ts',
  'test/bin/concurrency.test.ts',
  'test/bin/handoffd_crash.test.ts',
  'test/bin/review_concurrency.test.ts',
  'test/bin/bridge_soak.test.ts',
];
const mocha = createRequire(import.meta.url).resolve('mocha/bin/mocha.js');
const started = Date.now();
const run = spawnSync(process.execPath, [mocha, '--parallel', '--jobs', '2', ...FILES], {
  stdio: 'inherit',
  env: { ...process.env, BATON_TEST_TIER: 'full' },
});
process.stderr.write(
  `soak: ${run.status === 0 ? 'passed' : 'FAILED'} in ${Math.round((Date.now() - started) / 1000)} s\n`,
);
process.exit(run.status ?? 1);
