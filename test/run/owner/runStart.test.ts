// lib/run/runStart: the first record of a run, and startRun: under the request's lock, one
// non-terminal run per request; the run folder (0700) with artifacts/, the record (0600),
// `.swarmforge/` excluded from git; a folder without a record is no run.
import { recordProblems } from '../../../lib/fsx/records.js';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { join, resolve } from 'node:path';
import { runLocksDirOf, runPathsOf, runsDirOf } from '../../../lib/project/layout.js';
import { batonVersion } from '../../../lib/proc/version.js';
import { acquireLock, lockHolder } from '../../../lib/fsx/lock.js';
import { newWorkflow, startRun, type StartRequest } from '../../../lib/run/owner/runStart.js';
import {
  WORKFLOW,
  readWorkflow,
  runIdsOf,
  workflowText,
  writeWorkflow,
} from '../../../lib/run/record/runStore.js';
import { type Workflow } from '../../../lib/run/record/workflow.js';
import { commitIn, git, tempDir } from '../../support/project.js';
import { failure } from '../../support/failures.js';

const NOW = new Date('2026-03-04T05:06:07.089Z');

describe('lib/run/owner/runStart', () => {
  let root: string;
  let request: StartRequest;
  beforeEach(() => {
    root = tempDir();
    git(root, 'init', '-q', '-b', 'main');
    const base = commitIn(root, 'base');
    request = {
      requestId: 'req-1',
      task: 'add the thing',
      specRef: join(root, 'spec.md'),
      acceptanceCommand: 'npm test',
      repoRoot: root,
      baseRef: 'main',
      baseCommit: base,
      stages: ['design', 'build'],
      maxCycles: 2,
      acceptanceTimeoutS: 600,
      retryAttempts: 4,
      retryBaseMs: 250,
      roles: { worker: 'coder', reviewers: ['r1', 'r2'], validator: 'qa', controller: 'ctl' },
      owner: 'alice',
      host: 'box',
      machineId: 'm-1',
    };
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  describe('newWorkflow', () => {
    it('is ACTIVE/IDLE in cycle 1 at the base commit, every field from the request, one start entry', () => {
      const wf = newWorkflow('run-20260304T050607Z-abcdef', request, NOW);
      const at = NOW.toISOString();
      const expected: Workflow = {
        run_id: 'run-20260304T050607Z-abcdef',
        request_id: 'req-1',
        task: 'add the thing',
        owner: 'alice',
        host: 'box',
        machine_id: 'm-1',
        runtime_release: batonVersion(),
        schema_version: 1,
        repo_root: root,
        base_ref: 'main',
        base_commit: request.baseCommit,
        current_commit: request.baseCommit,
        status: 'ACTIVE',
        phase: 'IDLE',
        active_stage: null,
        pause_requested: false,
        review_cycle: 1,
        max_review_cycles: 2,
        blocking_findings: 0,
        acceptance_command: 'npm test',
        acceptance_timeout_s: 600,
        spec_ref: join(root, 'spec.md'),
        stage_order: ['design', 'build'],
        last_completed_stage: null,
        last_checkpoint_at: null,
        last_checkpoint_commit: null,
        last_acceptance_at: null,
        last_acceptance_ok: null,
        last_resolution_at: null,
        retry_policy: { max_attempts: 4, base_delay_ms: 250 },
        provider_attempts: 0,
        block_reason: null,
        artifacts: [],
        findings: [],
        roles: { worker: 'coder', reviewers: ['r1', 'r2'], validator: 'qa', controller: 'ctl' },
        observations: { panes: {}, updated_at: null },
        history: [
          {
            at,
            actor: 'alice',
            action: 'start',
            from: '',
            to: 'ACTIVE/IDLE',
            detail: `request req-1, base ${request.baseCommit.slice(0, 12)}; channel=cli`,
          },
        ],
        created_at: at,
        updated_at: at,
      };
      assert.deepEqual(wf, expected);
      assert.deepEqual(recordProblems(WORKFLOW, wf), []);
    });
  });

  describe('startRun', () => {
    it('makes the run folder (0700) with artifacts/ (0700) and the record (0600); returns what it wrote', async () => {
      const wf = await startRun(root, request, NOW);
      assert.match(wf.run_id, /^run-20260304T050607Z-[0-9a-f]{6}$/);
      const paths = runPathsOf(root, wf.run_id);
      assert.equal(fs.readFileSync(paths.workflow, 'utf8'), workflowText(wf));
      assert.deepEqual(wf, newWorkflow(wf.run_id, request, NOW));
      const modes = [paths.dir, paths.artifacts, paths.workflow].map(
        (p) => fs.statSync(p).mode & 0o777,
      );
      assert.deepEqual(modes, [0o700, 0o700, 0o600]);
      assert.deepEqual(fs.readdirSync(paths.dir).sort(), ['artifacts', 'workflow.json']);
      assert.deepEqual(fs.readdirSync(paths.artifacts), []);
    });

    it('excludes .swarmforge/ from git, once', async () => {
      const first = await startRun(root, request, NOW);
      await startRun(root, { ...request, requestId: 'req-2' }, NOW);
      const exclude = fs.readFileSync(join(root, '.git', 'info', 'exclude'), 'utf8');
      assert.equal(exclude.split('\n').filter((l) => l === '.swarmforge/').length, 1);
      assert.equal(
        git(root, 'status', '--porcelain'),
        '',
        `the run ${first.run_id} is invisible to git`,
      );
    });

    it('each run gets its own random id, also at one instant', async () => {
      const ids = new Set<string>();
      for (const r of ['a', 'b', 'c', 'd'])
        ids.add((await startRun(root, { ...request, requestId: r }, NOW)).run_id);
      assert.equal(ids.size, 4);
    });

    it('refuses a second run of a request while its run is not terminal, naming it; nothing is created', async () => {
      const first = await startRun(root, request, NOW);
      for (const [status, more] of [
        ['ACTIVE', {}],
        ['PAUSED', {}],
        ['BLOCKED', { block_reason: 'x' }],
        ['WAITING_FOR_HUMAN_APPROVAL', {}],
      ] as const) {
        writeWorkflow(runPathsOf(root, first.run_id).workflow, { ...first, status, ...more });
        await assert.rejects(
          startRun(root, request, NOW),
          failure(
            'refused',
            `start: request req-1 already has run ${first.run_id} (${status}); finish, cancel or fail it first`,
          ),
        );
        assert.deepEqual(runIdsOf(root), [first.run_id]);
        assert.deepEqual(
          fs.readdirSync(runsDirOf(root)).filter((n) => n.startsWith('run-')),
          [first.run_id],
        );
      }
    });

    it('a terminal run of the request is no obstacle; runs of other requests never are', async () => {
      const first = await startRun(root, request, NOW);
      const other = await startRun(root, { ...request, requestId: 'req-2' }, NOW);
      writeWorkflow(runPathsOf(root, first.run_id).workflow, { ...first, status: 'CANCELLED' });
      const second = await startRun(root, request, NOW);
      assert.deepEqual(runIdsOf(root).sort(), [first.run_id, other.run_id, second.run_id].sort());
    });

    it('a folder without workflow.json (a start killed before its write) is no run: the request may start', async () => {
      const orphan = runPathsOf(root, 'run-20260304T050600Z-000000');
      fs.mkdirSync(orphan.artifacts, { recursive: true, mode: 0o700 });
      const wf = await startRun(root, request, NOW);
      assert.deepEqual(runIdsOf(root), [wf.run_id]);
      assert.throws(
        () => readWorkflow(root, 'run-20260304T050600Z-000000'),
        failure('usage', /^unknown run /),
      );
    });

    it('an unreadable record in the runs folder makes start refuse: it cannot tell whose run that is', async () => {
      const first = await startRun(root, { ...request, requestId: 'other' }, NOW);
      fs.writeFileSync(
        runPathsOf(root, first.run_id).workflow,
        '{"schema_version": 1, "runtime_release": "0.1.0"}',
      );
      await assert.rejects(
        startRun(root, request, NOW),
        failure('refused', /^invalid record '.*workflow\.json': \/ must have required property/),
      );
      assert.deepEqual(runIdsOf(root), [first.run_id]);
    });

    it('a malformed request id is a usage error, before any lock or folder', async () => {
      for (const requestId of ['', '-x', 'a/b', 'x'.repeat(65), '../up']) {
        await assert.rejects(
          startRun(root, { ...request, requestId }, NOW),
          failure(
            'usage',
            /^start: malformed request id '.*': letters, digits, '\.', '_' and '-', at most 64$/,
          ),
        );
      }
      assert.equal(fs.existsSync(runsDirOf(root)), false);
    });

    it("takes the request's own lock (runs/locks/request-<id>.lock) and releases it, after a refusal too", async () => {
      const dir = join(runLocksDirOf(root), 'request-req-1.lock');
      acquireLock(dir)();
      const generations = () => fs.readdirSync(dir).filter((n) => /^lock\.\d+$/.test(n));
      assert.deepEqual(generations(), ['lock.1']);
      await startRun(root, request, NOW);
      assert.deepEqual(generations(), ['lock.2'], 'start took the next generation of that lock');
      await assert.rejects(startRun(root, request, NOW), /already has run/);
      assert.deepEqual(generations(), ['lock.3']);
      assert.equal(lockHolder(dir), undefined, 'released');
    });

    it('ROOT need not be a git repository (SWARMFORGE_ROOT): nothing to exclude, the run is made', async () => {
      const plain = tempDir();
      try {
        const wf = await startRun(plain, request, NOW);
        assert.deepEqual(runIdsOf(plain), [wf.run_id]);
      } finally {
        fs.rmSync(plain, { recursive: true, force: true });
      }
    });

    it('with a ROOT in no git repository, nothing reaches stderr (git\'s "not a git repository" stays git\'s)', () => {
      const plain = tempDir();
      try {
        // A child process: git inherited the parent's stderr descriptor, which no stream in this process sees.
        const program =
          `const { startRun } = await import(${JSON.stringify(resolve('lib/run/owner/runStart.ts'))});\n` +
          `await startRun(${JSON.stringify(plain)}, ${JSON.stringify({ ...request, requestId: 'req-plain' })}, new Date(${NOW.getTime()}));\n`;
        const run = spawnSync(
          process.execPath,
          ['--import', 'tsx', '--input-type=module', '-e', program],
          { encoding: 'utf8' },
        );
        assert.equal(run.status, 0, run.stderr);
        assert.equal(run.stderr, '');
        assert.equal(runIdsOf(plain).length, 1);
      } finally {
        fs.rmSync(plain, { recursive: true, force: true });
      }
    });
  });
});
