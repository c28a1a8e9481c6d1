// Black-box: findings carry across cycles (runtime.md §11.8) on the built `baton run`: a run
// reviewed twice shows in `status` how the second cycle's findings stand against the first
// (new, open, reopened, closed), and resolve-review leaves the first cycle's findings with
// their validation and resolution as an artifact for the second cycle's reviewers.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import {
  batonRun,
  evidence,
  laneFile,
  makeRunRepo,
  ok,
  runAtReview,
  runDirOf,
} from '../support/runs.js';

describe('baton run: findings across review cycles (built bin)', function () {
  this.timeout(60_000);
  let root: string;
  beforeEach(() => {
    root = makeRunRepo();
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  it('status shows the counts of the current cycle after two cycles; the first cycle’s findings are kept with their validation and resolution', async () => {
    const { runId, token } = await runAtReview(root);
    const review = (cycle: number, structured: string[], independent: string[]) =>
      ok(
        batonRun(root, [
          'review',
          runId,
          '--cycle',
          String(cycle),
          '--lane',
          `structured=${laneFile(root, 'structured', cycle, structured)}`,
          '--lane',
          `independent=${laneFile(root, 'independent', cycle, independent)}`,
          '--lease',
          token,
        ]),
      );
    const status = () => ok(batonRun(root, ['status', runId]));

    const first = review(
      1,
      ['sec-1 Critical the token is logged', 'perf-1 Important slow loop', 'n-1 Minor naming'],
      ['arch-1 Important two owners of one file'],
    );
    assert.deepEqual(first.findings, { new: 4, open: 0, reopened: 0, closed: 0 });

    const validation = evidence(
      root,
      'validation.json',
      JSON.stringify({
        cycle: 1,
        findings: [
          { id: 'sec-1', valid: true, reason: 'logged at debug level' },
          { id: 'perf-1', valid: true, reason: 'measured' },
          { id: 'arch-1', valid: false, reason: 'one owner, one reader' },
        ],
      }),
    );
    const resolution = evidence(
      root,
      'resolution.json',
      JSON.stringify({
        cycle: 1,
        resolved: [
          { id: 'sec-1', change: 'token masked', tests: 'log test' },
          { id: 'perf-1', change: 'loop hoisted', tests: 'bench' },
        ],
      }),
    );
    const resolved = ok(
      batonRun(root, [
        'resolve-review',
        runId,
        '--cycle',
        '1',
        '--validation',
        validation,
        '--resolution',
        resolution,
        '--lease',
        token,
      ]),
    );
    assert.deepEqual(
      [resolved.review_cycle, resolved.findings],
      [2, { new: 0, open: 0, reopened: 0, closed: 0 }],
      'nothing is closed before the second cycle is reviewed',
    );
    const carried = JSON.parse(
      fs.readFileSync(join(runDirOf(root, runId), 'artifacts/review-c1-findings.json'), 'utf8'),
    ) as { payload: { findings: Record<string, unknown>[] } };
    assert.deepEqual(
      carried.payload.findings.map((f) => [f.id, f.validation, f.resolution]),
      [
        [
          'sec-1',
          { valid: true, reason: 'logged at debug level' },
          { change: 'token masked', tests: 'log test' },
        ],
        ['perf-1', { valid: true, reason: 'measured' }, { change: 'loop hoisted', tests: 'bench' }],
        ['n-1', null, null],
        ['arch-1', { valid: false, reason: 'one owner, one reader' }, null],
      ],
    );

    ok(batonRun(root, ['acceptance', runId, '--lease', token]));
    // sec-1 was resolved and is back (reopened), arch-1 was judged invalid and is reported
    // again (open), new-1 is new, perf-1 (blocking) is not reported again (closed).
    review(
      2,
      ['sec-1 Critical the token is still logged', 'new-1 Minor a new nit'],
      ['arch-1 Important two owners of one file'],
    );
    const second = status();
    assert.equal(second.review_cycle, 2);
    assert.equal(second.phase, 'FINDINGS_PENDING');
    assert.deepEqual(second.findings, { new: 1, open: 1, reopened: 1, closed: 1 });
  });
});
