// lib/run/runContext: the caller of an action (ROOT, directory, environment, user, clock),
// the report of a finished mutation (status plus extra fields, the reason of a blocking
// outcome), and changeRun: one clock reading per action, the lease settled by the status.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { CommandFailure } from '../../../lib/fsx/commandFailure.js';
import { runPathsOf, type RunPaths } from '../../../lib/project/layout.js';
import { currentOwner } from '../../../lib/run/record/identity.js';
import {
  changeRun,
  reportOf,
  runContextOf,
  type RunContext,
} from '../../../lib/run/record/runContext.js';
import { blockRun, logged } from '../../../lib/run/record/runMutation.js';
import { statusOf } from '../../../lib/run/record/runStatus.js';
import { readWorkflow, writeWorkflow } from '../../../lib/run/record/runStore.js';
import { type Workflow } from '../../../lib/run/record/workflow.js';
import { commitIn, git, tempDir } from '../../support/project.js';
import { checkpointed, sampleWorkflow } from '../sampleWorkflow.js';

const RUN_ID = 'run-20260102T030405Z-a1b2c3';

describe('lib/run/record/runContext', () => {
  let dir: string;
  beforeEach(() => {
    dir = tempDir();
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  describe('runContextOf', () => {
    it('ROOT is $SWARMFORGE_ROOT (relative to the directory) when set; the user is the current one; the clock is real', () => {
      fs.mkdirSync(join(dir, 'proj', 'sub'), { recursive: true });
      const env = { SWARMFORGE_ROOT: '..' };
      const before = Date.now();
      const ctx = runContextOf(join(dir, 'proj', 'sub'), env);
      assert.deepEqual(
        [ctx.root, ctx.cwd, ctx.env, ctx.user],
        [join(dir, 'proj'), join(dir, 'proj', 'sub'), env, currentOwner()],
      );
      const now = ctx.now().getTime();
      assert.ok(now >= before && now <= Date.now());
    });

    it('without it, the main checkout of the repository, also from a worktree', () => {
      const main = join(dir, 'main');
      fs.mkdirSync(main);
      git(main, 'init', '-q', '-b', 'main');
      commitIn(main, 'base');
      git(main, 'worktree', 'add', '-q', '-b', 'side', join(dir, 'wt'));
      fs.mkdirSync(join(dir, 'wt', 'deep'));
      assert.equal(runContextOf(join(dir, 'wt', 'deep'), {}).root, main);
      assert.equal(runContextOf(main, {}).root, main);
    });

    it('no ROOT is a usage error', () => {
      const usage = (err: unknown) => err instanceof CommandFailure && err.kind === 'usage';
      assert.throws(() => runContextOf(dir, { SWARMFORGE_ROOT: join(dir, 'missing') }), usage);
      assert.throws(() => runContextOf(dir, {}), usage);
    });
  });

  describe('reportOf and changeRun', () => {
    let ctx: RunContext;
    let paths: RunPaths;
    let wf: Workflow;
    let readings: number;
    beforeEach(() => {
      readings = 0;
      ctx = {
        root: dir,
        cwd: dir,
        env: {},
        user: 'alice',
        now: () => new Date(Date.parse('2026-02-01T00:00:00.000Z') + 1000 * readings++),
      };
      paths = runPathsOf(dir, RUN_ID);
      wf = checkpointed(
        sampleWorkflow('/repo', 'b'.repeat(40), { status: 'ACTIVE' }),
        'c'.repeat(40),
      );
      writeWorkflow(paths.workflow, wf);
    });

    it('reportOf: the status at `now` with the extra fields on top; `blocked` only for a blocking outcome', () => {
      const now = new Date('2026-02-02T00:00:00.000Z');
      const plain = reportOf({ workflow: wf, paths }, now);
      assert.deepEqual(
        [plain.status, plain.workflow, plain.blocked, plain.extra],
        [statusOf(wf, paths, now), wf, undefined, undefined],
      );
      const extra = { retry_in_ms: 250, lease: { held: true, token: 't' } };
      const withExtra = reportOf({ workflow: wf, paths, extra }, now);
      assert.deepEqual(
        [withExtra.status, withExtra.extra],
        [{ ...statusOf(wf, paths, now), ...extra }, extra],
      );
      const blocked = reportOf({ workflow: wf, paths, blocked: 'why' }, now);
      assert.deepEqual([blocked.status, blocked.blocked], [statusOf(wf, paths, now), 'why']);
    });

    it('reportOf computes the status (every digest) only when it is read, once', () => {
      let reads = 0;
      const counting = new Proxy(wf, {
        get: (target, key) => ((reads += key === 'artifacts' ? 1 : 0), Reflect.get(target, key)),
      });
      const report = reportOf({ workflow: counting, paths }, new Date());
      assert.equal(reads, 0, 'nothing computed before the status is read');
      void report.status;
      const after = reads;
      assert.ok(after > 0, 'the status reads the manifest');
      void report.status;
      assert.equal(reads, after, 'computed once');
    });

    it('changeRun reads the clock once: the change and the status see the same instant', async () => {
      let seen: Date | undefined;
      const report = await changeRun(ctx, RUN_ID, (current, p, now) => {
        seen = now;
        assert.deepEqual([current, p], [wf, paths]);
        return {
          workflow: logged({ ...current, task: 'renamed' }, now, {
            actor: 'alice',
            action: 'rename',
          }),
        };
      });
      assert.equal(readings, 1);
      assert.equal(seen!.toISOString(), '2026-02-01T00:00:00.000Z');
      assert.deepEqual(
        [report.status.task, report.status.updated_at],
        ['renamed', '2026-02-01T00:00:00.000Z'],
      );
      assert.equal(readWorkflow(dir, RUN_ID).workflow.task, 'renamed');
    });

    it('changeRun reports a blocking outcome and releases the lease of the run it blocked', async () => {
      fs.writeFileSync(paths.lease, '{}');
      const report = await changeRun(ctx, RUN_ID, (current, _p, now) =>
        blockRun(current, 'ctl', 'gate', 'it failed', now),
      );
      assert.deepEqual(
        [report.blocked, report.status.status, report.status.lease],
        ['it failed', 'BLOCKED', { held: false }],
      );
      assert.equal(fs.existsSync(paths.lease), false);
    });

    it('changeRun passes a refusal on, the record untouched', async () => {
      const before = fs.readFileSync(paths.workflow);
      await assert.rejects(
        changeRun(ctx, RUN_ID, () => {
          throw new CommandFailure('refused', ['no']);
        }),
        /no/,
      );
      assert.deepEqual(fs.readFileSync(paths.workflow), before);
    });
  });
});
