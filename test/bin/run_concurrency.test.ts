// Concurrency of `baton run start` on the built bin (docs/runtime.md §4): two starts of one
// request released at the same instant make exactly one run, every time; the other is
// refused (exit 2) and leaves nothing behind. 6 repetitions in `npm test`, 300 in
// `npm run soak` (BATON_RUN_START_RACES sets it).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { runBinsTogether } from '../support/project.js';
import { makeRunRepo, ok, batonRun } from '../support/runs.js';
import { sizeFrom } from '../support/tier.js';

const RACES = sizeFrom('BATON_RUN_START_RACES', { short: 3, full: 300 });

describe('baton run start concurrency (built bin)', function () {
  this.timeout(900_000);
  let root: string;
  before(() => {
    root = makeRunRepo();
  });
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  const runsOf = (request: string) => {
    const dir = join(root, '.swarmforge', 'runs');
    return fs
      .readdirSync(dir)
      .filter((n) => n.startsWith('run-'))
      .filter((n) => {
        const record = join(dir, n, 'workflow.json');
        return (
          fs.existsSync(record) &&
          (JSON.parse(fs.readFileSync(record, 'utf8')) as { request_id: string }).request_id ===
            request
        );
      });
  };

  it(`two starts of one request released at one instant make exactly one run (${RACES} races)`, async () => {
    for (let i = 0; i < RACES; i++) {
      const request = `req-${i}`;
      const args = [
        'run',
        'start',
        '--request',
        request,
        '--task',
        't',
        '--spec',
        'spec.md',
        '--acceptance',
        'node accept.mjs',
      ];
      const results = await runBinsTogether(
        [0, 1].map(() => ({ bin: 'baton', args, options: { cwd: root } })),
      );
      const codes = results.map((r) => r.code).sort();
      assert.deepEqual(codes, [0, 2], `race ${i}: ${results.map((r) => r.stderr).join('')}`);
      const loser = results.find((r) => r.code === 2)!;
      assert.match(loser.stderr, new RegExp(`request ${request} already has run run-`));
      assert.equal(loser.stdout, '');
      const runs = runsOf(request);
      assert.equal(runs.length, 1, `race ${i}: ${runs.join(' ')}`);
      assert.equal(JSON.parse(results.find((r) => r.code === 0)!.stdout).run_id, runs[0]);
    }
    const all = ok(batonRun(root, ['list'])) as unknown as unknown[];
    assert.equal(all.length, RACES);
  });
});
