// Crash tests of `baton run` on the built bin (docs/runtime.md §1, §3, §5): the bin is
// SIGKILLed (BATON_CRASH_AT) at every write step of start, acceptance, checkpoint, review,
// resolve-review and a lease takeover. After each kill the record must still validate
// (`status`, or `list` for start), and a rerun of the same command (a fresh process, the
// same arguments) must leave the action done exactly once: one history entry for it, one
// manifest entry per file it registers, every digest intact. A rerun refused because the
// killed attempt already got through is "done once" too; the test then shows that state.
//
// The write steps, in the order an action passes them:
//   start            run:start-folder-made, run:workflow-written
//   acceptance       run:evidence-written, run:workflow-written
//   checkpoint,      per file copied into artifacts/: run:artifact-created (the file made,
//   review,            nothing in it yet: a torn copy), run:artifact-copied (its bytes
//   resolve-review     fsync'd, the folder not yet); then run:workflow-written
//   lease takeover   run:lease-written, run:workflow-written
// (run:workflow-written is after the atomic rename and before the folder fsync.)
//
// Each action's starting state is built once through the command line; every case puts
// the run folder back to it byte for byte first (the lease is held by this test process
// with a long ttl, so its token stays good).
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { casesOf } from '../support/tier.js';
import { dirname, join } from 'node:path';
import { waitFor } from '../support/daemon.js';
import { startSleeper } from '../support/deadProcess.js';
import { processIdentityOf } from '../../lib/fsx/processIdentity.js';
import {
  batonRun,
  evidence,
  laneFile,
  makeRunRepo,
  ok,
  runDirOf,
  snapshotOf,
  startArgsOf,
} from '../support/runs.js';
import { type RunResult } from '../support/project.js';

const ACCEPTANCE = 'artifacts/implementation-c1-acceptance.json';

/** The record of a run, parsed. */
const recordOf = (root: string, runId: string) =>
  JSON.parse(fs.readFileSync(join(runDirOf(root, runId), 'workflow.json'), 'utf8')) as Record<
    string,
    any
  >;
/** How many history entries of the run are `action`. */
const entries = (root: string, runId: string, action: string) =>
  recordOf(root, runId).history.filter((h: { action: string }) => h.action === action).length;
/** The manifest's paths, in order. */
const manifestOf = (root: string, runId: string) =>
  recordOf(root, runId).artifacts.map((a: { path: string }) => a.path) as string[];
/** The files in the run's artifacts/ folder, as `artifacts/<name>`, sorted. */
const filesOf = (root: string, runId: string) =>
  fs
    .readdirSync(join(runDirOf(root, runId), 'artifacts'))
    .map((n) => `artifacts/${n}`)
    .sort();
/** The size of a file in the run folder. */
const sizeOf = (root: string, runId: string, path: string) =>
  fs.statSync(join(runDirOf(root, runId), path)).size;
const sha256 = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');

/** Runs `args` with BATON_CRASH_AT=step: the bin must die by SIGKILL there, printing nothing. */
function killedAt(root: string, args: string[], step: string): void {
  const r = batonRun(root, args, { BATON_CRASH_AT: step });
  assert.equal(r.signal, 'SIGKILL', `${step} was not reached: exit ${r.code}, ${r.stderr}`);
  assert.deepEqual([r.stdout, r.stderr], ['', '']);
}

/** The run's status (exit 0: the record validates). */
const statusOf = (root: string, runId: string) => ok(batonRun(root, ['status', runId]));

/** A refused rerun: `code`, one stderr line matching `pattern`, no stdout, the run folder byte-identical. */
function refusedRerun(
  root: string,
  runId: string,
  args: string[],
  code: number,
  pattern: RegExp,
): RunResult {
  const before = snapshotOf(runDirOf(root, runId));
  const r = batonRun(root, args);
  assert.equal(r.code, code, `exit ${r.code}: ${r.stderr}`);
  assert.equal(r.stdout, '');
  assert.equal(r.stderr.split('\n').filter(Boolean).length, 1, r.stderr);
  assert.match(r.stderr, pattern);
  assert.deepEqual(snapshotOf(runDirOf(root, runId)), before, 'the refused rerun changed a file');
  return r;
}

/** Puts a run folder back as `snapshot` holds it. */
function restore(dir: string, snapshot: Map<string, string>): void {
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(join(dir, 'artifacts'), { recursive: true, mode: 0o700 });
  for (const [rel, b64] of snapshot) {
    fs.mkdirSync(dirname(join(dir, rel)), { recursive: true, mode: 0o700 });
    fs.writeFileSync(join(dir, rel), Buffer.from(b64, 'base64'), { mode: 0o600 });
  }
}

/** A run started in a new repository, with this process's lease (ttl 1 h); its id and token. */
function leasedRun(root: string): { runId: string; token: string } {
  const runId = ok(batonRun(root, startArgsOf('req-1'))).run_id as string;
  const token = ok(
    batonRun(root, ['lease', runId, 'acquire', '--pid', String(process.pid), '--ttl', '3600']),
  ).lease.token as string;
  return { runId, token };
}

/** One crash case of an action that registers files: where it dies, and what the rerun must leave. */
interface FileCase {
  step: string;
  /** Files in artifacts/ right after the kill (the killed attempt's leftovers included). */
  leftAfterKill: string[];
  /** The copy the kill tore (left empty), if any. */
  torn?: string;
  /** The run's manifest after the rerun. */
  manifest: string[];
  /** Files in artifacts/ after the rerun. */
  files: string[];
}

/**
 * The cases of an action that copies two files into artifacts/ then writes the record.
 * Before the record is written nothing is registered: the rerun does the action (once).
 * At run:workflow-written the action got through: the rerun is refused by the state.
 */
function fileActionCases(
  name: string,
  build: (root: string) => { runId: string; args: string[] },
  cases: FileCase[],
  done: { manifest: string[]; refusal: RegExp },
  check: (root: string, runId: string, status: Record<string, any>) => void,
): void {
  describe(name, () => {
    let root: string;
    let runId: string;
    let args: string[];
    let start: Map<string, string>;
    before(() => {
      root = makeRunRepo();
      ({ runId, args } = build(root));
      start = snapshotOf(runDirOf(root, runId));
    });
    beforeEach(() => restore(runDirOf(root, runId), start));
    after(() => fs.rmSync(root, { recursive: true, force: true }));

    for (const c of casesOf(cases, (_, i) => i === 0 || i === cases.length - 1)) {
      it(`killed at ${c.step}: nothing recorded, the copy left behind is harmless; the rerun does the ${name} once`, () => {
        const record = fs.readFileSync(join(runDirOf(root, runId), 'workflow.json'));
        killedAt(root, args, c.step);
        assert.deepEqual(
          fs.readFileSync(join(runDirOf(root, runId), 'workflow.json')),
          record,
          'the record is untouched',
        );
        assert.deepEqual(filesOf(root, runId), c.leftAfterKill);
        if (c.torn !== undefined)
          assert.equal(sizeOf(root, runId, c.torn), 0, `${c.torn} is a torn (empty) copy`);
        assert.equal(statusOf(root, runId).artifacts_ok, true);
        const status = ok(batonRun(root, args));
        assert.equal(entries(root, runId, name), 1, `one ${name} in the history`);
        assert.deepEqual(manifestOf(root, runId), c.manifest);
        assert.deepEqual(filesOf(root, runId), c.files);
        assert.deepEqual([status.artifacts_ok, statusOf(root, runId).artifacts_ok], [true, true]);
        check(root, runId, status);
      });
    }

    it(`killed at run:workflow-written: the ${name} is recorded; the rerun is refused by the new state`, () => {
      killedAt(root, args, 'run:workflow-written');
      const status = statusOf(root, runId);
      assert.equal(status.artifacts_ok, true);
      check(root, runId, status);
      refusedRerun(root, runId, args, 2, done.refusal);
      assert.equal(entries(root, runId, name), 1, `one ${name} in the history`);
      assert.deepEqual(manifestOf(root, runId), done.manifest);
      assert.deepEqual(filesOf(root, runId), [...done.manifest].sort());
    });
  });
}

describe('baton run crashes (built bin)', function () {
  this.timeout(60_000);

  describe('start', () => {
    let root: string;
    before(() => {
      root = makeRunRepo();
    });
    after(() => fs.rmSync(root, { recursive: true, force: true }));
    const runsOf = (request: string) =>
      (ok(batonRun(root, ['list'])) as unknown as Record<string, any>[]).filter(
        (r) => r.request_id === request,
      );
    const folders = () =>
      fs
        .readdirSync(join(root, '.swarmforge', 'runs'))
        .filter((n) => n.startsWith('run-'))
        .sort();

    it('killed at run:start-folder-made: a folder without a record is no run; the rerun makes the one run of the request', () => {
      const before = fs.existsSync(join(root, '.swarmforge', 'runs')) ? folders() : [];
      killedAt(root, startArgsOf('req-folder'), 'run:start-folder-made');
      const orphans = folders().filter((n) => !before.includes(n));
      assert.equal(orphans.length, 1);
      assert.deepEqual(
        snapshotOf(join(root, '.swarmforge', 'runs', orphans[0]!)),
        new Map(),
        'an empty folder (artifacts/ only)',
      );
      assert.deepEqual(fs.readdirSync(join(root, '.swarmforge', 'runs', orphans[0]!)), [
        'artifacts',
      ]);
      assert.deepEqual(runsOf('req-folder'), [], 'list (exit 0) shows no run of the request');
      const status = ok(batonRun(root, startArgsOf('req-folder')));
      assert.notEqual(status.run_id, orphans[0]);
      assert.deepEqual(
        runsOf('req-folder').map((r) => [r.run_id, r.status, r.phase]),
        [[status.run_id, 'ACTIVE', 'IDLE']],
      );
      assert.equal(entries(root, status.run_id, 'start'), 1);
    });

    it('killed at run:workflow-written: the run exists; the rerun is refused (the request has its run), still one run', () => {
      killedAt(root, startArgsOf('req-written'), 'run:workflow-written');
      const runs = runsOf('req-written');
      assert.deepEqual(
        runs.map((r) => [r.status, r.phase]),
        [['ACTIVE', 'IDLE']],
      );
      const runId = runs[0]!.run_id as string;
      assert.deepEqual(statusOf(root, runId).lease, { held: false });
      const folderSet = folders();
      refusedRerun(
        root,
        runId,
        startArgsOf('req-written'),
        2,
        new RegExp(
          `^baton run start: start: request req-written already has run ${runId} \\(ACTIVE\\)`,
        ),
      );
      assert.deepEqual(folders(), folderSet, 'no new run folder');
      assert.deepEqual(
        runsOf('req-written').map((r) => r.run_id),
        [runId],
      );
      assert.equal(entries(root, runId, 'start'), 1);
    });
  });

  describe('acceptance', () => {
    let root: string;
    let runId: string;
    let args: string[];
    let start: Map<string, string>;
    before(() => {
      root = makeRunRepo();
      const run = leasedRun(root);
      runId = run.runId;
      ok(batonRun(root, ['stage-start', runId, 'implementation', '--lease', run.token]));
      args = ['acceptance', runId, '--lease', run.token];
      start = snapshotOf(runDirOf(root, runId));
    });
    beforeEach(() => restore(runDirOf(root, runId), start));
    after(() => fs.rmSync(root, { recursive: true, force: true }));

    it('killed at run:evidence-written: nothing recorded, the evidence file is an orphan; the rerun records one acceptance under -2', () => {
      const record = fs.readFileSync(join(runDirOf(root, runId), 'workflow.json'));
      killedAt(root, args, 'run:evidence-written');
      assert.deepEqual(fs.readFileSync(join(runDirOf(root, runId), 'workflow.json')), record);
      assert.deepEqual(filesOf(root, runId), [ACCEPTANCE]);
      assert.equal(statusOf(root, runId).last_acceptance_ok, null);
      const status = ok(batonRun(root, args));
      assert.deepEqual([status.last_acceptance_ok, status.artifacts_ok], [true, true]);
      assert.equal(entries(root, runId, 'acceptance'), 1);
      assert.deepEqual(manifestOf(root, runId), ['artifacts/implementation-c1-acceptance-2.json']);
      assert.deepEqual(filesOf(root, runId), [
        'artifacts/implementation-c1-acceptance-2.json',
        ACCEPTANCE,
      ]);
    });

    it('killed at run:workflow-written: the acceptance is recorded once with its evidence (status shows it passed)', () => {
      killedAt(root, args, 'run:workflow-written');
      const status = statusOf(root, runId);
      assert.deepEqual(
        [status.last_acceptance_ok, status.artifacts_ok, status.artifacts],
        [true, true, 1],
      );
      assert.equal(entries(root, runId, 'acceptance'), 1);
      assert.deepEqual(manifestOf(root, runId), [ACCEPTANCE]);
      assert.deepEqual(filesOf(root, runId), [ACCEPTANCE]);
    });
  });

  // checkpoint copies each file under the names rule (artifacts.ts, crash contract): the
  // rerun reuses a complete copy that no manifest names and copies past a torn one (the
  // name's next `-n`).
  const W = 'artifacts/implementation-c1-work.md';
  const N = 'artifacts/implementation-c1-notes.md';
  fileActionCases(
    'checkpoint',
    (root) => {
      const { runId, token } = leasedRun(root);
      ok(batonRun(root, ['stage-start', runId, 'implementation', '--lease', token]));
      ok(batonRun(root, ['acceptance', runId, '--lease', token]));
      const work = evidence(root, 'work.md', 'the work\n');
      const notes = evidence(root, 'notes.md', 'the notes\n');
      return {
        runId,
        args: [
          'checkpoint',
          runId,
          'implementation',
          '--artifact',
          `${work}:work`,
          '--artifact',
          `${notes}:notes`,
          '--lease',
          token,
        ],
      };
    },
    [
      {
        step: 'run:artifact-created',
        leftAfterKill: [ACCEPTANCE, W],
        torn: W,
        manifest: [ACCEPTANCE, 'artifacts/implementation-c1-work-2.md', N],
        files: [ACCEPTANCE, N, 'artifacts/implementation-c1-work-2.md', W],
      },
      {
        step: 'run:artifact-copied',
        leftAfterKill: [ACCEPTANCE, W],
        manifest: [ACCEPTANCE, W, N],
        files: [ACCEPTANCE, N, W],
      },
      {
        step: 'run:artifact-created#2',
        leftAfterKill: [ACCEPTANCE, N, W],
        torn: N,
        manifest: [ACCEPTANCE, W, 'artifacts/implementation-c1-notes-2.md'],
        files: [ACCEPTANCE, 'artifacts/implementation-c1-notes-2.md', N, W],
      },
      {
        step: 'run:artifact-copied#2',
        leftAfterKill: [ACCEPTANCE, N, W],
        manifest: [ACCEPTANCE, W, N],
        files: [ACCEPTANCE, N, W],
      },
    ],
    {
      manifest: [ACCEPTANCE, W, N],
      refusal:
        /^baton run checkpoint: checkpoint: run \S+ is in phase REVIEW_PENDING; checkpoint needs STAGE_ACTIVE or PAUSE_REQUESTED$/m,
    },
    (root, runId, status) => {
      assert.deepEqual(
        [status.status, status.phase, status.last_completed_stage, status.active_stage],
        ['ACTIVE', 'REVIEW_PENDING', 'implementation', null],
      );
      const record = recordOf(root, runId);
      const bytesOf = (type: string) =>
        fs.readFileSync(
          join(
            runDirOf(root, runId),
            record.artifacts.find((a: { type: string }) => a.type === type).path,
          ),
          'utf8',
        );
      assert.deepEqual(
        [bytesOf('work'), bytesOf('notes')],
        ['the work\n', 'the notes\n'],
        "the registered copies hold the sources' bytes",
      );
      for (const a of record.artifacts)
        assert.equal(a.sha256, sha256(fs.readFileSync(join(runDirOf(root, runId), a.path))));
    },
  );

  // review and resolve-review name their copies by cycle and kind; a name a killed attempt
  // left on disk counts as taken, so the rerun registers the next `-n` (artifacts.ts).
  const reviewed = (root: string) => {
    const { runId, token } = leasedRun(root);
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
      `structured=${laneFile(root, 'structured', 1, ['sec-1 Important the token is logged'])}`,
      '--lane',
      `independent=${laneFile(root, 'independent', 1)}`,
    ];
    return {
      runId,
      token,
      reviewArgs: ['review', runId, '--cycle', '1', ...lanes, '--lease', token],
    };
  };
  const AT_REVIEW = [ACCEPTANCE, W];
  const S = 'artifacts/review-c1-structured.txt';
  const I = 'artifacts/review-c1-independent.txt';
  const S2 = 'artifacts/review-c1-structured-2.txt';
  const I2 = 'artifacts/review-c1-independent-2.txt';
  fileActionCases(
    'review',
    (root) => {
      const { runId, reviewArgs } = reviewed(root);
      return { runId, args: reviewArgs };
    },
    [
      {
        step: 'run:artifact-created',
        leftAfterKill: [...AT_REVIEW, S].sort(),
        torn: S,
        manifest: [...AT_REVIEW, S2, I],
        files: [...AT_REVIEW, S, S2, I].sort(),
      },
      {
        step: 'run:artifact-copied',
        leftAfterKill: [...AT_REVIEW, S].sort(),
        manifest: [...AT_REVIEW, S2, I],
        files: [...AT_REVIEW, S, S2, I].sort(),
      },
      {
        step: 'run:artifact-created#2',
        leftAfterKill: [...AT_REVIEW, S, I].sort(),
        torn: I,
        manifest: [...AT_REVIEW, S2, I2],
        files: [...AT_REVIEW, S, S2, I, I2].sort(),
      },
      {
        step: 'run:artifact-copied#2',
        leftAfterKill: [...AT_REVIEW, S, I].sort(),
        manifest: [...AT_REVIEW, S2, I2],
        files: [...AT_REVIEW, S, S2, I, I2].sort(),
      },
    ],
    {
      manifest: [...AT_REVIEW, S, I],
      refusal:
        /^baton run review: review: run \S+ is in phase FINDINGS_PENDING; review needs REVIEW_PENDING$/m,
    },
    (root, runId, status) => {
      assert.deepEqual(
        [status.status, status.phase, status.blocking_findings, status.review_cycle],
        ['ACTIVE', 'FINDINGS_PENDING', 1, 1],
      );
      assert.deepEqual(
        recordOf(root, runId).findings.map((f: Record<string, unknown>) => [
          f.id,
          f.lane,
          f.cycle,
          f.blocking,
        ]),
        [['sec-1', 'structured', 1, true]],
        'the finding recorded once',
      );
      const review = recordOf(root, runId).artifacts.filter(
        (a: { type: string }) => a.type === 'review',
      );
      assert.deepEqual(
        review.map((a: { producer: string }) => a.producer),
        ['reviewer-a', 'reviewer-b'],
      );
      assert.match(
        fs.readFileSync(join(runDirOf(root, runId), review[0].path), 'utf8'),
        /^LANE: structured\nCYCLE: 1\nFINDING sec-1 Important/,
      );
    },
  );

  const V = 'artifacts/review-c1-validation.json';
  const R = 'artifacts/review-c1-resolution.json';
  const V2 = 'artifacts/review-c1-validation-2.json';
  const R2 = 'artifacts/review-c1-resolution-2.json';
  // A resolve-review that passes also keeps the cycle's findings for the next review (§11.8).
  const F = 'artifacts/review-c1-findings.json';
  const AT_FINDINGS = [ACCEPTANCE, W, S, I];
  fileActionCases(
    'resolve-review',
    (root) => {
      const { runId, token, reviewArgs } = reviewed(root);
      ok(batonRun(root, reviewArgs));
      const validation = evidence(
        root,
        'validation.json',
        JSON.stringify({
          cycle: 1,
          findings: [{ id: 'sec-1', valid: true, reason: 'it is logged at debug level' }],
        }),
      );
      const resolution = evidence(
        root,
        'resolution.json',
        JSON.stringify({
          cycle: 1,
          resolved: [{ id: 'sec-1', change: 'token masked', tests: 'log test' }],
        }),
      );
      return {
        runId,
        args: [
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
        ],
      };
    },
    [
      {
        step: 'run:artifact-created',
        leftAfterKill: [...AT_FINDINGS, V].sort(),
        torn: V,
        manifest: [...AT_FINDINGS, V2, R, F],
        files: [...AT_FINDINGS, V, V2, R, F].sort(),
      },
      {
        step: 'run:artifact-copied',
        leftAfterKill: [...AT_FINDINGS, V].sort(),
        manifest: [...AT_FINDINGS, V2, R, F],
        files: [...AT_FINDINGS, V, V2, R, F].sort(),
      },
      {
        step: 'run:artifact-created#2',
        leftAfterKill: [...AT_FINDINGS, V, R].sort(),
        torn: R,
        manifest: [...AT_FINDINGS, V2, R2, F],
        files: [...AT_FINDINGS, V, V2, R, R2, F].sort(),
      },
      {
        step: 'run:artifact-copied#2',
        leftAfterKill: [...AT_FINDINGS, V, R].sort(),
        manifest: [...AT_FINDINGS, V2, R2, F],
        files: [...AT_FINDINGS, V, V2, R, R2, F].sort(),
      },
    ],
    {
      manifest: [...AT_FINDINGS, V, R, F],
      refusal:
        /^baton run resolve-review: resolve-review: run \S+ is in phase REVIEW_PENDING; resolve-review needs FINDINGS_PENDING$/m,
    },
    (root, runId, status) => {
      assert.deepEqual(
        [status.status, status.phase, status.blocking_findings, status.review_cycle],
        ['ACTIVE', 'REVIEW_PENDING', 0, 2],
      );
      assert.deepEqual(
        recordOf(root, runId).findings.map((f: Record<string, unknown>) => [
          f.id,
          f.validation,
          f.resolved,
        ]),
        [['sec-1', { valid: true, reason: 'it is logged at debug level' }, true]],
      );
      assert.deepEqual(
        recordOf(root, runId)
          .artifacts.slice(-3)
          .map((a: { type: string }) => a.type),
        ['validation', 'resolution', 'findings'],
      );
    },
  );

  describe("lease takeover (acquire --reclaim-stale of a dead controller's lease)", () => {
    let root: string;
    let runId: string;
    let start: Map<string, string>;
    const takeover = () => [
      'lease',
      runId,
      'acquire',
      '--pid',
      String(process.pid),
      '--ttl',
      '3600',
      '--reclaim-stale',
    ];
    const leaseOf = () =>
      JSON.parse(fs.readFileSync(join(runDirOf(root, runId), 'lease.json'), 'utf8')) as Record<
        string,
        any
      >;
    before(async () => {
      root = makeRunRepo();
      runId = ok(batonRun(root, startArgsOf('req-1'))).run_id as string;
      const controller = startSleeper();
      await waitFor(
        'the controller to run',
        () => processIdentityOf(controller.pid!) !== undefined,
      );
      ok(batonRun(root, ['lease', runId, 'acquire', '--pid', String(controller.pid)]));
      const exited = new Promise((done) => controller.on('exit', done));
      controller.kill('SIGKILL');
      await exited;
      assert.equal(statusOf(root, runId).lease.stale, true);
      start = snapshotOf(runDirOf(root, runId));
    });
    beforeEach(() => restore(runDirOf(root, runId), start));
    after(() => fs.rmSync(root, { recursive: true, force: true }));

    /** The rerun of the takeover: it must succeed at once (under 5 s), with a token that works. */
    const rerunSucceeds = (lost: string): Record<string, any> => {
      const started = Date.now();
      const status = ok(batonRun(root, takeover()));
      assert.ok(Date.now() - started < 5_000, `the rerun took ${Date.now() - started} ms`);
      assert.notEqual(status.lease.token, lost);
      assert.equal(leaseOf().token, status.lease.token);
      ok(batonRun(root, ['stage-start', runId, 'implementation', '--lease', status.lease.token]));
      return status;
    };

    it('killed at run:lease-written: the new lease is on disk, unrecorded, its token lost: stale at once, and the rerun reclaims at once', () => {
      const record = fs.readFileSync(join(runDirOf(root, runId), 'workflow.json'));
      killedAt(root, takeover(), 'run:lease-written');
      assert.deepEqual(
        fs.readFileSync(join(runDirOf(root, runId), 'workflow.json')),
        record,
        'the record is untouched',
      );
      const lease = statusOf(root, runId).lease;
      assert.deepEqual([lease.held, lease.pid, lease.stale], [true, process.pid, true]);
      rerunSucceeds(leaseOf().token);
      assert.deepEqual(
        [entries(root, runId, 'lease acquire'), entries(root, runId, 'lease reclaim')],
        [1, 1],
      );
    });

    it("killed at run:workflow-written: the takeover is recorded and the lease live, its token never printed: the same holder's rerun gets a new one at once", () => {
      killedAt(root, takeover(), 'run:workflow-written');
      const lease = statusOf(root, runId).lease;
      assert.deepEqual([lease.held, lease.pid, lease.stale], [true, process.pid, false]);
      assert.deepEqual(
        [entries(root, runId, 'lease acquire'), entries(root, runId, 'lease reclaim')],
        [1, 1],
      );
      rerunSucceeds(leaseOf().token);
      assert.deepEqual(
        [entries(root, runId, 'lease acquire'), entries(root, runId, 'lease reclaim')],
        [1, 2],
      );
    });

    it('a fresh acquire killed at either step: the rerun with --reclaim-stale succeeds at once', () => {
      ok(batonRun(root, ['cancel', runId, '--reason', 'another run']));
      const fresh = ok(batonRun(root, startArgsOf('req-2'))).run_id as string;
      const acquire = [
        'lease',
        fresh,
        'acquire',
        '--pid',
        String(process.pid),
        '--ttl',
        '3600',
        '--reclaim-stale',
      ];
      for (const step of ['run:lease-written', 'run:workflow-written']) {
        killedAt(root, acquire, step);
        const started = Date.now();
        const status = ok(batonRun(root, acquire));
        assert.ok(Date.now() - started < 5_000);
        ok(batonRun(root, ['lease', fresh, 'heartbeat', '--lease', status.lease.token]));
        ok(batonRun(root, ['lease', fresh, 'release', '--lease', status.lease.token]));
      }
    });
  });
});
