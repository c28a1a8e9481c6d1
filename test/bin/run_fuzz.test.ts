// Generated-input test of how `baton run` reads a record (docs/runtime.md §2, §4): mutated
// workflow.json files (a wrong type anywhere, an unknown enum word, an unknown key at the
// top, in a nested object or in an artifact entry, a required key removed, truncation,
// non-UTF-8 bytes, another schema version, a duplicate artifact path, a bad timestamp, a
// broken cross-field rule, no object at all) go through `status` and a mutating action
// (`pause`, legal for the unmutated run): each call is refused with one stderr line
// naming the record, exit 2, no stack trace, nothing on stdout, and no file of the run
// folder changes.
//
// Records come from a seeded PRNG (test/support/runFuzz.ts): the seed is printed, and
// `BATON_RUN_FUZZ_SEED=<seed> npx mocha test/bin/run_fuzz.test.ts` replays the run. A
// mutation that leaves the record valid (lib/run/record/runStore.ts parseWorkflow says so) is
// drawn again. Size: a run makes a pool of records (200 under `npm test`, 1000 under
// `npm run soak`; BATON_RUN_FUZZ_POOL) and sends all of them through the CLI entry
// (lib/cli/run/runCommand.ts runRunCommand) in one child process; the built bin, at ~0.3 s a
// call, gets the first 13 under `npm test` and all of them under `npm run soak`
// (BATON_RUN_FUZZ_RECORDS sets that number; above the pool it grows the pool too). Any 13
// consecutive records hold every kind of mutation once.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { join, resolve } from 'node:path';
import { CommandFailure } from '../../lib/fsx/commandFailure.js';
import { parseWorkflow } from '../../lib/run/record/runStore.js';
import { runBinAsync, tempDir } from '../support/project.js';
import {
  changedFiles,
  folderBytes,
  MUTATION_KINDS,
  mutatedRecords,
  problemsOf,
  type DriverJob,
  type Mutated,
  type RecordResult,
} from '../support/runFuzz.js';
import {
  batonRun,
  evidence,
  laneFile,
  leaseFor,
  makeRunRepo,
  ok,
  runDirOf,
  startRun,
} from '../support/runs.js';
import { byTier, sizeFrom } from '../support/tier.js';

const SEED = process.env.BATON_RUN_FUZZ_SEED
  ? Number(process.env.BATON_RUN_FUZZ_SEED) >>> 0
  : (Date.now() ^ (process.pid << 16)) >>> 0;
const BIN_RECORDS = sizeFrom('BATON_RUN_FUZZ_RECORDS', { short: 13, full: 1000 });
const POOL = Math.max(sizeFrom('BATON_RUN_FUZZ_POOL', { short: 200, full: 1000 }), BIN_RECORDS);
const LANES = 4;
/** The calls each record goes through (`RUN`: the run id). */
const ACTIONS = [
  ['status', 'RUN'],
  ['pause', 'RUN'],
];
const REPLAY = `replay with BATON_RUN_FUZZ_SEED=${SEED} BATON_RUN_FUZZ_RECORDS=${BIN_RECORDS} npx mocha test/bin/run_fuzz.test.ts`;

/** A run driven through the command line to its second review cycle (findings validated and resolved), plus one observed pane: a record with every kind of nested object. */
async function richRun(root: string): Promise<string> {
  const runId = await startRun(root);
  const token = await leaseFor(root, runId);
  ok(batonRun(root, ['stage-start', runId, 'implementation', '--lease', token]));
  ok(batonRun(root, ['acceptance', runId, '--lease', token]));
  ok(
    batonRun(root, [
      'checkpoint',
      runId,
      'implementation',
      '--artifact',
      `${evidence(root, 'work.md', 'the work\n')}:work`,
      '--lease',
      token,
    ]),
  );
  const lanes = [
    '--lane',
    `structured=${laneFile(root, 'structured', 1, ['sec-1 Important the token is logged', 'doc-2 Minor a typo'])}`,
    '--lane',
    `independent=${laneFile(root, 'independent', 1, ['arch-3 Critical a cycle'])}`,
  ];
  ok(batonRun(root, ['review', runId, '--cycle', '1', ...lanes, '--lease', token]));
  const validation = evidence(
    root,
    'validation.json',
    JSON.stringify({
      cycle: 1,
      findings: [
        { id: 'sec-1', valid: true, reason: 'logged at debug' },
        { id: 'arch-3', valid: false, reason: 'no cycle there' },
      ],
    }),
  );
  const resolution = evidence(
    root,
    'resolution.json',
    JSON.stringify({ cycle: 1, resolved: [{ id: 'sec-1', change: 'masked', tests: 'log test' }] }),
  );
  const status = ok(
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
    [status.status, status.phase, status.review_cycle],
    ['ACTIVE', 'REVIEW_PENDING', 2],
  );
  const path = join(runDirOf(root, runId), 'workflow.json');
  const record = JSON.parse(fs.readFileSync(path, 'utf8')) as Record<string, any>;
  record.observations = {
    panes: { worker: { pane: '%3', status: 'busy', seen_at: record.updated_at } },
    updated_at: record.updated_at,
  };
  fs.writeFileSync(path, `${JSON.stringify(record, null, 2)}\n`);
  return runId;
}

/** A record's bytes for a failure report: printable, at most 300 characters. */
const preview = (bytes: Buffer) => JSON.stringify(bytes.subarray(0, 300).toString('latin1'));

/** Fails with the first few records whose result breaks the rule. */
function assertAllRefused(
  results: RecordResult[],
  byIndex: Map<number, Mutated>,
  how: string,
): void {
  const failures = results.flatMap((r) => {
    const problems = problemsOf(r);
    if (problems.length === 0) return [];
    const m = byIndex.get(r.index)!;
    return [
      `record #${r.index} (${m.kind}: ${m.what}), ${preview(m.bytes)}\n    - ${problems.join('\n    - ')}`,
    ];
  });
  assert.equal(
    failures.length,
    0,
    `${failures.length} of ${results.length} records not refused as they must be (${how}, seed ${SEED}; ${REPLAY}):\n  ${failures.slice(0, 10).join('\n  ')}`,
  );
}

describe('baton run: mutated workflow.json files are refused (fuzz)', function () {
  // The full size sends 1000 records through the bin (~0.3 s each, four at a time).
  this.timeout(byTier({ short: 120_000, full: 900_000 }));
  let root: string;
  let runId: string;
  let records: Mutated[];
  let byIndex: Map<number, Mutated>;
  before(async () => {
    root = makeRunRepo();
    runId = await richRun(root);
    const path = join(runDirOf(root, runId), 'workflow.json');
    const base = fs.readFileSync(path);
    parseWorkflow(base, path, runId);
    const isValid = (bytes: Buffer) => {
      try {
        parseWorkflow(bytes, path, runId);
        return true;
      } catch (err) {
        if (err instanceof CommandFailure) return false;
        throw new Error(
          `parseWorkflow threw ${(err as Error).stack} instead of refusing ${preview(bytes)}`,
        );
      }
    };
    const made = mutatedRecords(base, SEED, POOL, isValid);
    records = made.records;
    const skipped = Object.entries(made.stillValid).reduce((n, [, count]) => n + count, 0);
    // A mutation drawn again because the record stayed valid: mostly a time of the right
    // shape but impossible (month 13), which the schema's pattern lets through.
    console.log(
      `      run fuzz seed ${SEED}: ${POOL} records in process, ${BIN_RECORDS} through the bin; ${skipped} mutations stayed valid and were drawn again (${REPLAY})`,
    );
    byIndex = new Map(records.map((m) => [m.index, m]));
  });
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  it('makes distinct invalid records of every kind, each kind among the first 13', () => {
    assert.equal(records.length, POOL);
    assert.equal(new Set(records.map((m) => m.bytes.toString('base64'))).size, POOL);
    assert.deepEqual(
      new Set(records.slice(0, MUTATION_KINDS.length).map((m) => m.kind)),
      new Set(MUTATION_KINDS),
    );
  });

  it(`${POOL} records through the CLI entry (runRunCommand) in one child process: each call refused, exit 2, one line, nothing changed`, () => {
    const work = tempDir('baton-run-fuzz-');
    try {
      const job: DriverJob = {
        root,
        runId,
        actions: ACTIONS,
        records: records.map((m) => ({ index: m.index, bytes: m.bytes.toString('base64') })),
        out: join(work, 'results.json'),
      };
      fs.writeFileSync(join(work, 'job.json'), JSON.stringify(job));
      const child = spawnSync(
        process.execPath,
        ['--import', 'tsx', resolve('test/support/runFuzz.ts'), join(work, 'job.json')],
        { encoding: 'utf8', env: { ...process.env, BATON_CRASH_AT: '' } },
      );
      assert.deepEqual(
        [child.status, child.signal, child.stderr],
        [0, null, ''],
        'the driver ran to its end',
      );
      const [unmutated, ...results] = JSON.parse(
        fs.readFileSync(job.out, 'utf8'),
      ) as RecordResult[];
      assert.equal(
        unmutated!.calls[0]!.result.code,
        0,
        `the unmutated record is accepted: ${unmutated!.calls[0]!.result.stderr}`,
      );
      assert.equal(JSON.parse(unmutated!.calls[0]!.result.stdout).run_id, runId);
      assert.deepEqual(
        results.map((r) => r.index),
        records.map((m) => m.index),
      );
      assertAllRefused(results, byIndex, 'in process');
    } finally {
      fs.rmSync(work, { recursive: true, force: true });
    }
  });

  it(`the first ${BIN_RECORDS} records through the built bin (${LANES} copies of the repository at a time): the same`, async () => {
    const lanes = Array.from({ length: LANES }, (_, k) => {
      const laneRoot = tempDir(`baton-run-fuzz-lane${k}-`);
      fs.cpSync(root, laneRoot, { recursive: true });
      return laneRoot;
    });
    try {
      const accepted = batonRun(lanes[0]!, ['status', runId]);
      assert.equal(ok(accepted).run_id, runId, 'the unmutated record is accepted');
      const sample = records.slice(0, BIN_RECORDS);
      const results: RecordResult[] = [];
      await Promise.all(
        lanes.map(async (laneRoot, k) => {
          const dir = runDirOf(laneRoot, runId);
          for (const m of sample.filter((_, i) => i % LANES === k)) {
            fs.writeFileSync(join(dir, 'workflow.json'), m.bytes);
            const before = folderBytes(dir);
            const calls: RecordResult['calls'] = [];
            for (const args of ACTIONS) {
              const r = await runBinAsync(
                'baton',
                ['run', ...args.map((a) => (a === 'RUN' ? runId : a))],
                { cwd: laneRoot, timeoutMs: 30_000 },
              );
              calls.push({ action: args[0]!, result: r });
            }
            results.push({
              index: m.index,
              calls,
              changed: changedFiles(before, folderBytes(dir)),
            });
          }
        }),
      );
      results.sort((a, b) => a.index - b.index);
      assert.equal(results.length, BIN_RECORDS);
      assertAllRefused(results, byIndex, 'built bin');
    } finally {
      for (const laneRoot of lanes) fs.rmSync(laneRoot, { recursive: true, force: true });
    }
  });
});
