// Black-box: every action of docs/runtime.md §4 from every status, on the built bin. Each
// status is reached through the real command line in a repository of its own; each action
// then runs once against it: a legal one succeeds with the documented result, an illegal
// one is refused (exit 2; exit 75 for a lease that is busy) and leaves every file of the
// run byte-identical (terminal runs included). The run folder is restored between actions.
import { casesOf } from '../support/tier.js';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { dirname, join } from 'node:path';
import {
  batonRun,
  evidence,
  laneFile,
  leaseFor,
  ok,
  runAtReview,
  runDirOf,
  snapshotOf,
  startRun,
  makeRunRepo,
} from '../support/runs.js';

type State =
  | 'IDLE'
  | 'STAGE'
  | 'REVIEW'
  | 'FINDINGS'
  | 'WAITING'
  | 'PAUSED'
  | 'BLOCKED'
  | 'COMPLETED'
  | 'CANCELLED'
  | 'FAILED';
const STATES: State[] = [
  'IDLE',
  'STAGE',
  'REVIEW',
  'FINDINGS',
  'WAITING',
  'PAUSED',
  'BLOCKED',
  'COMPLETED',
  'CANCELLED',
  'FAILED',
];
const ACTIVE: State[] = ['IDLE', 'STAGE', 'REVIEW', 'FINDINGS'];
const LEASED: State[] = [...ACTIVE, 'WAITING'];
const NON_TERMINAL: State[] = [...LEASED, 'PAUSED', 'BLOCKED'];

interface Prepared {
  root: string;
  runId: string;
  token: string;
}

/** Drives a run of a new repository into `state`. */
async function prepare(state: State): Promise<Prepared> {
  const root = makeRunRepo();
  if (state === 'IDLE' || state === 'STAGE') {
    const runId = await startRun(root);
    const token = await leaseFor(root, runId);
    if (state === 'STAGE') {
      ok(batonRun(root, ['stage-start', runId, 'implementation', '--lease', token]));
      ok(batonRun(root, ['acceptance', runId, '--lease', token]));
    }
    return { root, runId, token };
  }
  const { runId, token } = await runAtReview(root);
  const review = (findings: string[]) =>
    ok(
      batonRun(root, [
        'review',
        runId,
        '--cycle',
        '1',
        '--lane',
        `structured=${laneFile(root, 'structured', 1, findings)}`,
        '--lane',
        `independent=${laneFile(root, 'independent', 1)}`,
        '--lease',
        token,
      ]),
    );
  if (state === 'FINDINGS') review(['sec-1 Important the token is logged']);
  if (['WAITING', 'COMPLETED'].includes(state)) review([]);
  if (state === 'COMPLETED') ok(batonRun(root, ['approve', runId]));
  if (state === 'PAUSED') ok(batonRun(root, ['pause', runId]));
  if (state === 'BLOCKED')
    ok(batonRun(root, ['block', runId, '--reason', 'waiting for a key', '--lease', token]));
  if (state === 'CANCELLED') ok(batonRun(root, ['cancel', runId, '--reason', 'not needed']));
  if (state === 'FAILED') ok(batonRun(root, ['fail', runId, '--reason', 'cannot be done']));
  return { root, runId, token };
}

/** Puts the run folder back as it was. */
function restore(dir: string, snapshot: Map<string, string>): void {
  fs.rmSync(dir, { recursive: true, force: true });
  for (const [rel, b64] of snapshot) {
    fs.mkdirSync(dirname(join(dir, rel)), { recursive: true, mode: 0o700 });
    fs.writeFileSync(join(dir, rel), Buffer.from(b64, 'base64'), { mode: 0o600 });
  }
}

/** One action: its arguments against a prepared run, the states it is legal from, and what a legal call leaves. */
interface Row {
  action: string;
  args: (p: Prepared) => string[];
  legal: State[];
  /** Exit code of an illegal call from `state` (2 unless said). */
  refusedWith?: (state: State) => number;
  then?: (status: Record<string, any>, from: State) => void;
}

const lanes = (p: Prepared, cycle: number) => [
  '--lane',
  `structured=${laneFile(p.root, 'structured', cycle)}`,
  '--lane',
  `independent=${laneFile(p.root, 'independent', cycle)}`,
];
const validation = (p: Prepared) =>
  evidence(
    p.root,
    'validation.json',
    JSON.stringify({
      cycle: 1,
      findings: [{ id: 'sec-1', valid: true, reason: 'it is logged at debug level' }],
    }),
  );
const resolution = (p: Prepared) =>
  evidence(
    p.root,
    'resolution.json',
    JSON.stringify({
      cycle: 1,
      resolved: [{ id: 'sec-1', change: 'token masked', tests: 'log test' }],
    }),
  );

const ROWS: Row[] = [
  {
    action: 'pause',
    args: (p) => ['pause', p.runId],
    legal: ACTIVE,
    then: (s, from) => assert.equal(s.status, from === 'STAGE' ? 'ACTIVE' : 'PAUSED'),
  },
  {
    action: 'resume',
    args: (p) => ['resume', p.runId],
    legal: ['PAUSED'],
    then: (s) => assert.deepEqual([s.status, s.phase], ['ACTIVE', 'REVIEW_PENDING']),
  },
  {
    action: 'retry',
    args: (p) => ['retry', p.runId],
    legal: ['BLOCKED'],
    then: (s) => assert.deepEqual([s.status, s.block_reason], ['ACTIVE', null]),
  },
  {
    action: 'approve',
    args: (p) => ['approve', p.runId],
    legal: ['WAITING'],
    then: (s) => assert.deepEqual([s.status, s.phase], ['COMPLETED', 'DONE']),
  },
  {
    action: 'request-changes',
    args: (p) => ['request-changes', p.runId, '--note', 'rename the flag'],
    legal: ['WAITING'],
    then: (s) =>
      assert.deepEqual(
        [s.status, s.phase, s.review_cycle, s.last_completed_stage],
        ['ACTIVE', 'IDLE', 2, null],
      ),
  },
  {
    action: 'cancel',
    args: (p) => ['cancel', p.runId, '--reason', 'stop'],
    legal: NON_TERMINAL,
    then: (s) => assert.deepEqual([s.status, s.lease], ['CANCELLED', { held: false }]),
  },
  {
    action: 'fail',
    args: (p) => ['fail', p.runId, '--reason', 'stop'],
    legal: NON_TERMINAL,
    then: (s) => assert.deepEqual([s.status, s.lease], ['FAILED', { held: false }]),
  },
  {
    action: 'lease acquire',
    args: (p) => ['lease', p.runId, 'acquire', '--pid', String(process.pid)],
    legal: ['BLOCKED'],
    refusedWith: (state) => (LEASED.includes(state) ? 75 : 2),
    then: (s) => assert.equal(s.lease.held, true),
  },
  {
    action: 'lease heartbeat',
    args: (p) => ['lease', p.runId, 'heartbeat', '--lease', p.token],
    legal: LEASED,
    then: (s) => assert.equal(s.lease.held, true),
  },
  {
    action: 'lease release',
    args: (p) => ['lease', p.runId, 'release', '--lease', p.token],
    legal: LEASED,
    then: (s) => assert.deepEqual(s.lease, { held: false }),
  },
  {
    action: 'stage-start',
    args: (p) => ['stage-start', p.runId, 'implementation', '--lease', p.token],
    legal: ['IDLE'],
    then: (s) => assert.deepEqual([s.phase, s.active_stage], ['STAGE_ACTIVE', 'implementation']),
  },
  {
    action: 'acceptance',
    args: (p) => ['acceptance', p.runId, '--lease', p.token],
    legal: ACTIVE,
    then: (s) => assert.equal(s.last_acceptance_ok, true),
  },
  {
    action: 'checkpoint',
    args: (p) => [
      'checkpoint',
      p.runId,
      'implementation',
      '--artifact',
      `${evidence(p.root, 'more.md', 'more\n')}:work`,
      '--lease',
      p.token,
    ],
    legal: ['STAGE'],
    then: (s) =>
      assert.deepEqual(
        [s.phase, s.last_completed_stage, s.active_stage],
        ['REVIEW_PENDING', 'implementation', null],
      ),
  },
  {
    action: 'artifact',
    args: (p) => [
      'artifact',
      p.runId,
      evidence(p.root, 'note.md', 'a note\n'),
      '--type',
      'note',
      '--producer',
      'worker',
      '--lease',
      p.token,
    ],
    legal: LEASED,
    then: (s) => assert.equal(s.artifacts_ok, true),
  },
  {
    action: 'review',
    args: (p) => ['review', p.runId, '--cycle', '1', ...lanes(p, 1), '--lease', p.token],
    legal: ['REVIEW'],
    then: (s) =>
      assert.deepEqual([s.status, s.phase], ['WAITING_FOR_HUMAN_APPROVAL', 'APPROVAL_PENDING']),
  },
  {
    action: 'resolve-review',
    args: (p) => [
      'resolve-review',
      p.runId,
      '--cycle',
      '1',
      '--validation',
      validation(p),
      '--resolution',
      resolution(p),
      '--lease',
      p.token,
    ],
    legal: ['FINDINGS'],
    then: (s) =>
      assert.deepEqual([s.phase, s.review_cycle, s.blocking_findings], ['REVIEW_PENDING', 2, 0]),
  },
  {
    action: 'provider',
    args: (p) => [
      'provider',
      p.runId,
      '--name',
      'claude',
      '--failed',
      'rate limited',
      '--lease',
      p.token,
    ],
    legal: ACTIVE,
    then: (s) => assert.deepEqual([s.provider_attempts, s.retry_in_ms], [1, 1000]),
  },
  {
    action: 'block',
    args: (p) => ['block', p.runId, '--reason', 'needs a key', '--lease', p.token],
    legal: ACTIVE,
    then: (s) =>
      assert.deepEqual(
        [s.status, s.block_reason, s.lease],
        ['BLOCKED', 'needs a key', { held: false }],
      ),
  },
  { action: 'status', args: (p) => ['status', p.runId], legal: STATES },
];

describe('baton run: every action from every status (built bin)', function () {
  this.timeout(300_000);
  const prepared = new Map<State, Prepared>();
  before(async () => {
    for (const state of STATES) prepared.set(state, await prepare(state));
  });
  after(() => {
    for (const p of prepared.values()) fs.rmSync(p.root, { recursive: true, force: true });
  });

  /**
   * The statuses an action is tried from: every one in npm run soak; in npm test the first and
   * the last legal one, a terminal one (COMPLETED) and the first other illegal one.
   */
  const triedFrom = (row: Row): State[] => {
    const illegal = STATES.filter((s) => !row.legal.includes(s));
    const sample = new Set([
      row.legal[0],
      row.legal[row.legal.length - 1],
      illegal.find((s) => s === 'COMPLETED'),
      illegal.find((s) => s !== 'COMPLETED'),
    ]);
    return casesOf(STATES, (s) => sample.has(s));
  };

  for (const row of ROWS) {
    it(`${row.action}: legal from ${row.legal.join(', ')}; refused from every other status with nothing changed`, () => {
      for (const state of triedFrom(row)) {
        const p = prepared.get(state)!;
        const dir = runDirOf(p.root, p.runId);
        const before = snapshotOf(dir);
        const r = batonRun(p.root, row.args(p));
        if (row.legal.includes(state)) {
          const status = ok(r);
          assert.equal(status.run_id, p.runId);
          row.then?.(status, state);
        } else {
          const code = row.refusedWith?.(state) ?? 2;
          assert.equal(r.code, code, `${row.action} from ${state}: exit ${r.code}, ${r.stderr}`);
          assert.equal(r.stdout, '', `${row.action} from ${state} printed a status`);
          assert.equal(r.stderr.split('\n').filter(Boolean).length, 1, r.stderr);
          assert.match(r.stderr, new RegExp(`^baton run ${row.action.split(' ')[0]}: `));
          assert.deepEqual(snapshotOf(dir), before, `${row.action} from ${state} changed a file`);
        }
        restore(dir, before);
      }
    });
  }
});
