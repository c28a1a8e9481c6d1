// lib/run/ownerSteps: the owner's actions with their I/O, in process, on real git
// repositories: start resolves and checks what it is given; resume and retry gather the
// facts of runtime.md §7 and refuse without writing; approve's digest gate blocks;
// request-changes keeps the notes as an evidence file; cancel and fail end the lease.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { runPathsOf, runsDirOf, type RunPaths } from '../../../lib/project/layout.js';
import { batonVersion } from '../../../lib/proc/version.js';
import {
  leaseAcquireStep,
  checkpointStep,
  stageStartStep,
  blockStep,
} from '../../../lib/run/gates/controllerActions.js';
import { acceptanceStep, reviewStep } from '../../../lib/run/gates/gateSteps.js';
import { machineId } from '../../../lib/run/record/identity.js';
import { acquireLease } from '../../../lib/run/record/lease.js';
import {
  approveStep,
  badArtifactsOf,
  endStep,
  pauseStep,
  requestChangesStep,
  resumeStep,
  retryStep,
  startStep,
  type StartOptions,
} from '../../../lib/run/owner/ownerSteps.js';
import { type RunContext } from '../../../lib/run/record/runContext.js';
import { statusOf } from '../../../lib/run/record/runStatus.js';
import { readWorkflow, writeWorkflow } from '../../../lib/run/record/runStore.js';
import { type Workflow } from '../../../lib/run/record/workflow.js';
import { commitIn, git, tempDir } from '../../support/project.js';
import { makeRunRepo } from '../../support/runs.js';
import { failure } from '../../support/failures.js';

const START: StartOptions = {
  request: 'req-1',
  task: 'add the thing',
  spec: 'spec.md',
  acceptance: 'true',
  stages: ['implementation'],
  maxCycles: 3,
  acceptanceTimeoutS: 60,
  retryAttempts: 3,
  retryBaseMs: 1000,
  roles: {
    worker: 'worker',
    reviewers: ['reviewer-a', 'reviewer-b'],
    validator: 'validator',
    controller: 'controller',
  },
};

describe('lib/run/owner/ownerSteps', () => {
  let root: string;
  let clock: number;
  let ctx: RunContext;
  beforeEach(() => {
    root = makeRunRepo();
    clock = Date.parse('2030-01-01T00:00:00.000Z');
    ctx = { root, cwd: root, env: {}, user: 'alice', now: () => new Date((clock += 1000)) };
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  const as = (user: string): RunContext => ({ ...ctx, user });
  const recordOf = (runId: string) => readWorkflow(root, runId).workflow;
  const bytesOf = (runId: string) => fs.readFileSync(runPathsOf(root, runId).workflow);

  async function started(options: Partial<StartOptions> = {}): Promise<string> {
    return (await startStep(ctx, { ...START, ...options })).status.run_id as string;
  }

  async function leaseOf(runId: string): Promise<string> {
    return (
      (await leaseAcquireStep(ctx, runId, { pid: process.pid, ttlS: 3600, reclaimStale: false }))
        .status.lease as { token: string }
    ).token;
  }

  /** A run checkpointed at a new commit, in REVIEW_PENDING, with its lease. */
  async function atReview(): Promise<{ runId: string; token: string; checkpoint: string }> {
    const runId = await started();
    const token = await leaseOf(runId);
    await stageStartStep(ctx, runId, token, 'implementation');
    fs.writeFileSync(join(root, 'feature.txt'), 'the thing\n');
    git(root, 'add', 'feature.txt');
    const checkpoint = commitIn(root, 'the thing');
    await acceptanceStep(ctx, runId, token);
    fs.writeFileSync(join(root, 'work.md'), 'what was done\n');
    await checkpointStep(ctx, runId, token, 'implementation', ['work.md:work']);
    return { runId, token, checkpoint };
  }

  /** A run waiting for approval (an empty review of both lanes). */
  async function waiting(): Promise<{ runId: string; token: string }> {
    const { runId, token } = await atReview();
    fs.writeFileSync(join(root, 's.txt'), 'LANE: structured\nCYCLE: 1\n');
    fs.writeFileSync(join(root, 'i.txt'), 'LANE: independent\nCYCLE: 1\n');
    await reviewStep(ctx, runId, token, 1, ['structured=s.txt', 'independent=i.txt']);
    assert.equal(recordOf(runId).status, 'WAITING_FOR_HUMAN_APPROVAL');
    return { runId, token };
  }

  describe('start', () => {
    it('records the run as started: owner, host, machine, release, the repository and base resolved, the spec made absolute', async () => {
      const head = git(root, 'rev-parse', 'HEAD');
      const report = await startStep(ctx, START);
      const runId = report.status.run_id;
      const wf = recordOf(runId);
      assert.match(runId, /^run-20300101T000001Z-[0-9a-f]{6}$/);
      assert.deepEqual(
        [
          wf.owner,
          wf.host,
          wf.machine_id,
          wf.runtime_release,
          wf.repo_root,
          wf.base_ref,
          wf.base_commit,
          wf.current_commit,
          wf.spec_ref,
          wf.task,
          wf.acceptance_command,
        ],
        [
          'alice',
          hostname(),
          machineId(),
          batonVersion(),
          root,
          'HEAD',
          head,
          head,
          join(root, 'spec.md'),
          'add the thing',
          'true',
        ],
      );
      assert.deepEqual(
        [wf.stage_order, wf.max_review_cycles, wf.acceptance_timeout_s, wf.retry_policy, wf.roles],
        [['implementation'], 3, 60, { max_attempts: 3, base_delay_ms: 1000 }, START.roles],
      );
      assert.deepEqual(
        [wf.status, wf.phase, wf.created_at],
        ['ACTIVE', 'IDLE', '2030-01-01T00:00:01.000Z'],
      );
      assert.deepEqual(report, {
        status: statusOf(wf, runPathsOf(root, runId), new Date('2030-01-01T00:00:01.000Z')),
      });
    });

    it("from a folder inside the work tree: the spec is relative to it, the repository is the work tree's top", async () => {
      fs.mkdirSync(join(root, 'docs'));
      fs.writeFileSync(join(root, 'docs', 'spec.md'), 'spec\n');
      const runId = (await startStep({ ...ctx, cwd: join(root, 'docs') }, START)).status.run_id;
      assert.deepEqual(
        [recordOf(runId).spec_ref, recordOf(runId).repo_root],
        [join(root, 'docs', 'spec.md'), root],
      );
    });

    it('--repo a worktree of the repository and --base a ref: its top and that commit', async () => {
      const base = git(root, 'rev-parse', 'HEAD');
      commitIn(root, 'later');
      const wt = join(tempDir(), 'wt');
      try {
        git(root, 'worktree', 'add', '-q', '-b', 'side', wt, 'HEAD');
        const runId = await started({ repo: wt, base: base.slice(0, 10) });
        const wf = recordOf(runId);
        assert.deepEqual(
          [wf.repo_root, wf.base_ref, wf.base_commit, wf.current_commit],
          [fs.realpathSync(wt), base.slice(0, 10), base, base],
        );
      } finally {
        fs.rmSync(join(wt, '..'), { recursive: true, force: true });
      }
    });

    it('refuses, creating nothing: a missing spec (usage), a shell operator, a folder outside the repository, a base that does not resolve', async () => {
      const other = makeRunRepo();
      try {
        await assert.rejects(
          startStep(ctx, { ...START, spec: 'nope.md' }),
          failure('usage', "start: no such spec file 'nope.md'"),
        );
        await assert.rejects(
          startStep(ctx, { ...START, acceptance: 'node accept.mjs | tee log' }),
          failure('refused', /\|/),
        );
        await assert.rejects(
          startStep(ctx, { ...START, repo: other }),
          failure('refused', new RegExp(`^'${other}' is a work tree of another repository`)),
        );
        await assert.rejects(
          startStep(ctx, { ...START, repo: 'missing' }),
          failure('refused', `repository folder '${join(root, 'missing')}' does not exist`),
        );
        await assert.rejects(
          startStep(ctx, { ...START, base: 'no-such-branch' }),
          failure('refused', "base ref 'no-such-branch' does not resolve"),
        );
        assert.equal(fs.existsSync(runsDirOf(root)), false);
      } finally {
        fs.rmSync(other, { recursive: true, force: true });
      }
    });
  });

  it('badArtifactsOf: each bad artifact as `path (problem)`', async () => {
    const { runId } = await atReview();
    const { workflow, paths } = readWorkflow(root, runId);
    assert.deepEqual(badArtifactsOf(workflow, paths), []);
    fs.rmSync(join(paths.dir, 'artifacts', 'implementation-c1-work.md'));
    fs.appendFileSync(join(paths.dir, workflow.artifacts[0]!.path), ' ');
    const bad = badArtifactsOf(workflow, paths);
    assert.equal(bad.length, 2);
    assert.match(
      bad[0]!,
      /^artifacts\/implementation-c1-acceptance\.json \(changed \(sha256 [0-9a-f]{64}, recorded [0-9a-f]{64}\)\)$/,
    );
    assert.equal(bad[1], 'artifacts/implementation-c1-work.md (missing)');
  });

  describe('pause and resume', () => {
    it('pause after a checkpoint: PAUSED, the lease file gone; resume at the checkpoint: ACTIVE in the same phase', async () => {
      const { runId } = await atReview();
      const paths = runPathsOf(root, runId);
      assert.ok(fs.existsSync(paths.lease));
      const paused = await pauseStep(ctx, runId);
      assert.deepEqual(
        [paused.status.status, paused.status.phase, paused.status.lease],
        ['PAUSED', 'REVIEW_PENDING', { held: false }],
      );
      assert.equal(fs.existsSync(paths.lease), false);
      const resumed = await resumeStep(ctx, runId, false);
      assert.deepEqual([resumed.status.status, resumed.status.phase], ['ACTIVE', 'REVIEW_PENDING']);
      assert.deepEqual(
        recordOf(runId)
          .history.slice(-2)
          .map((h) => [h.action, h.from, h.to]),
        [
          ['pause', 'ACTIVE/REVIEW_PENDING', 'PAUSED/REVIEW_PENDING'],
          ['resume', 'PAUSED/REVIEW_PENDING', 'ACTIVE/REVIEW_PENDING'],
        ],
      );
    });

    it('resume refuses, writing nothing, when HEAD moved, a tracked file changed or an artifact changed', async () => {
      const { runId, checkpoint } = await atReview();
      await pauseStep(ctx, runId);
      const before = bytesOf(runId);
      const moved = commitIn(root, 'moved on');
      await assert.rejects(
        resumeStep(ctx, runId, false),
        failure(
          'refused',
          `resume: HEAD moved since the last checkpoint: ${moved}, checkpoint ${checkpoint} (resume needs them equal)`,
        ),
      );
      git(root, 'reset', '-q', '--hard', checkpoint);
      fs.writeFileSync(join(root, 'feature.txt'), 'edited\n');
      await assert.rejects(
        resumeStep(ctx, runId, false),
        failure('refused', 'resume: tracked files modified since the last checkpoint: feature.txt'),
      );
      git(root, 'checkout', '-q', '--', 'feature.txt');
      fs.appendFileSync(
        join(runPathsOf(root, runId).dir, 'artifacts', 'implementation-c1-work.md'),
        'tampered',
      );
      await assert.rejects(
        resumeStep(ctx, runId, false),
        failure(
          'refused',
          /^resume: artifact changed or missing: artifacts\/implementation-c1-work\.md \(changed /,
        ),
      );
      assert.deepEqual(bytesOf(runId), before);
    });

    it('resume and retry check the owner first, and the state', async () => {
      const { runId } = await atReview();
      await pauseStep(ctx, runId);
      await assert.rejects(
        resumeStep(as('bob'), runId, false),
        failure('refused', `resume: run ${runId} belongs to alice; you are bob`),
      );
      await assert.rejects(
        retryStep(ctx, runId, 0, false),
        failure('refused', `retry: run ${runId} is PAUSED; retry needs BLOCKED`),
      );
      await assert.rejects(
        pauseStep(ctx, runId),
        failure('refused', `pause: run ${runId} is PAUSED; pause needs ACTIVE`),
      );
    });

    it('a live lease on a blocked run stops retry; an expired one only without --reclaim-stale', async () => {
      const { runId, token } = await atReview();
      await blockStep(ctx, runId, token, 'waiting for a key');
      const paths = runPathsOf(root, runId);
      // A lease left on a BLOCKED run (the runtime voids it; a person or a crash may leave one), recorded as acquired.
      const { lease } = acquireLease(paths, { pid: process.pid, ttlS: 5 }, new Date(clock), []);
      const blocked = recordOf(runId);
      writeWorkflow(paths.workflow, {
        ...blocked,
        history: [
          ...blocked.history,
          {
            at: lease.acquired_at,
            actor: `pid ${process.pid}`,
            action: 'lease acquire',
            from: 'BLOCKED/STAGE_ACTIVE',
            to: 'BLOCKED/STAGE_ACTIVE',
            detail: '',
          },
        ],
      });
      await assert.rejects(
        retryStep(ctx, runId, 0, false),
        failure('refused', `retry: a live lease is held by pid ${process.pid} on ${hostname()}`),
      );
      clock += 10_000;
      const before = bytesOf(runId);
      await assert.rejects(
        retryStep(ctx, runId, 0, false),
        failure(
          'refused',
          `retry: a stale lease of pid ${process.pid} is in the way: add --reclaim-stale`,
        ),
      );
      assert.deepEqual(bytesOf(runId), before);
      const retried = await retryStep(ctx, runId, 0, true);
      assert.deepEqual([retried.status.status, retried.status.block_reason], ['ACTIVE', null]);
    });
  });

  describe('retry', () => {
    it('BLOCKED → ACTIVE after more commits on top of the checkpoint, even with edits; refused when the checkpoint is no ancestor of HEAD', async () => {
      const { runId, token, checkpoint } = await atReview();
      await blockStep(ctx, runId, token, 'waiting for a key');
      const base = recordOf(runId).base_commit;
      git(root, 'checkout', '-q', '-b', 'elsewhere', base);
      await assert.rejects(
        retryStep(ctx, runId, 0, false),
        failure(
          'refused',
          `retry: checkpoint commit ${checkpoint} is not an ancestor of HEAD ${base}`,
        ),
      );
      git(root, 'checkout', '-q', 'main');
      commitIn(root, 'a fix');
      fs.writeFileSync(join(root, 'feature.txt'), 'work in progress\n');
      const report = await retryStep(ctx, runId, 2, false);
      assert.deepEqual(
        [report.status.status, report.status.phase, report.status.max_review_cycles],
        ['ACTIVE', 'REVIEW_PENDING', 5],
      );
      assert.deepEqual(
        recordOf(runId).history.at(-1)!.detail,
        '2 review cycle(s) added: limit 5; channel=cli',
      );
    });
  });

  describe('approve', () => {
    it('WAITING_FOR_HUMAN_APPROVAL → COMPLETED; the lease is gone', async () => {
      const { runId } = await waiting();
      const report = await approveStep(ctx, runId);
      assert.equal(report.blocked, undefined);
      assert.deepEqual(
        [report.status.status, report.status.phase, report.status.lease],
        ['COMPLETED', 'DONE', { held: false }],
      );
      assert.equal(fs.existsSync(runPathsOf(root, runId).lease), false);
    });

    it('a missing artifact is a blocking outcome: BLOCKED recorded, the reason reported', async () => {
      const { runId } = await waiting();
      fs.rmSync(join(runPathsOf(root, runId).dir, 'artifacts', 'implementation-c1-work.md'));
      const report = await approveStep(ctx, runId);
      assert.equal(
        report.blocked,
        'artifact changed or missing: artifacts/implementation-c1-work.md (missing)',
      );
      assert.deepEqual(
        [report.status.status, report.status.block_reason, report.status.artifacts_ok],
        ['BLOCKED', report.blocked, false],
      );
      assert.equal(recordOf(runId).status, 'BLOCKED');
    });

    it('refuses an ACTIVE run and another user, writing nothing', async () => {
      const { runId } = await atReview();
      const before = bytesOf(runId);
      await assert.rejects(
        approveStep(ctx, runId),
        failure(
          'refused',
          `approve: run ${runId} is ACTIVE; approve needs WAITING_FOR_HUMAN_APPROVAL`,
        ),
      );
      await assert.rejects(
        approveStep(as('mallory'), runId),
        failure('refused', `approve: run ${runId} belongs to alice; you are mallory`),
      );
      assert.deepEqual(bytesOf(runId), before);
    });
  });

  describe('request-changes', () => {
    it('keeps the notes as a runtime evidence file, registered with its digest, and reopens the first stage in cycle 2', async () => {
      const { runId } = await waiting();
      const report = await requestChangesStep(ctx, runId, ['rename the flag', 'add a test']);
      const wf = recordOf(runId);
      const entry = wf.artifacts.at(-1)!;
      assert.deepEqual(
        { ...entry, sha256: '' },
        {
          path: 'artifacts/run-c1-change-request.json',
          sha256: '',
          type: 'change-request',
          producer: 'alice',
        },
      );
      const bytes = fs.readFileSync(join(runPathsOf(root, runId).dir, entry.path));
      assert.equal(entry.sha256, createHash('sha256').update(bytes).digest('hex'));
      const envelope = JSON.parse(bytes.toString('utf8')) as {
        kind: string;
        recorded_at: string;
        payload: unknown;
      };
      assert.deepEqual(envelope.payload, { notes: ['rename the flag', 'add a test'] });
      assert.equal(envelope.kind, 'change-request');
      assert.equal(envelope.recorded_at, wf.updated_at);
      assert.deepEqual(
        [
          report.status.status,
          report.status.phase,
          report.status.review_cycle,
          report.status.artifacts_ok,
        ],
        ['ACTIVE', 'IDLE', 2, true],
      );
    });

    it('never overwrites a file already there (one a crash left): the notes take the next name', async () => {
      const { runId } = await waiting();
      const orphan = join(runPathsOf(root, runId).dir, 'artifacts', 'run-c1-change-request.json');
      fs.writeFileSync(orphan, 'left by a crash\n');
      await requestChangesStep(ctx, runId, ['n']);
      assert.equal(
        recordOf(runId).artifacts.at(-1)!.path,
        'artifacts/run-c1-change-request-2.json',
      );
      assert.equal(fs.readFileSync(orphan, 'utf8'), 'left by a crash\n');
    });

    it('refuses another state without writing the notes', async () => {
      const { runId } = await atReview();
      await assert.rejects(
        requestChangesStep(ctx, runId, ['n']),
        failure(
          'refused',
          `request-changes: run ${runId} is ACTIVE; request-changes needs WAITING_FOR_HUMAN_APPROVAL`,
        ),
      );
      assert.deepEqual(
        fs
          .readdirSync(join(runPathsOf(root, runId).dir, 'artifacts'))
          .filter((n) => n.includes('change-request')),
        [],
      );
    });
  });

  describe('cancel and fail', () => {
    it('end the run with the reason and remove the lease; a second end is refused', async () => {
      const { runId } = await atReview();
      const paths: RunPaths = runPathsOf(root, runId);
      const report = await endStep(ctx, runId, 'cancel', 'not needed');
      assert.deepEqual([report.status.status, report.status.lease], ['CANCELLED', { held: false }]);
      assert.equal(fs.existsSync(paths.lease), false);
      const last: Workflow['history'][number] = recordOf(runId).history.at(-1)!;
      assert.deepEqual(
        [last.actor, last.action, last.detail],
        ['alice', 'cancel', 'not needed; channel=cli'],
      );
      const before = bytesOf(runId);
      await assert.rejects(
        endStep(ctx, runId, 'fail', 'x'),
        failure(
          'refused',
          `fail: run ${runId} is CANCELLED, a terminal status: nothing changes any more`,
        ),
      );
      assert.deepEqual(bytesOf(runId), before);
    });

    it('only the owner ends a run', async () => {
      const runId = await started();
      await assert.rejects(
        endStep(as('bob'), runId, 'fail', 'x'),
        failure('refused', `fail: run ${runId} belongs to alice; you are bob`),
      );
    });
  });
});
