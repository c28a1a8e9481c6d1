// lib/run/runMutation: history entries, blocking outcomes, the state guards with their
// messages, and mutateRun's locked read-modify-write: a refusal writes nothing, an
// unchanged outcome writes nothing, a status that voids the lease removes it.
import { recordProblems } from '../../../lib/fsx/records.js';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { CommandFailure } from '../../../lib/fsx/commandFailure.js';
import { runLocksDirOf, runPathsOf, type RunPaths } from '../../../lib/project/layout.js';
import { lockHolder } from '../../../lib/fsx/lock.js';
import { releaseLease } from '../../../lib/run/record/lease.js';
import {
  blockRun,
  leaseIsVoid,
  logged,
  mutateRun,
  requireNotTerminal,
  requireState,
  stateOf,
} from '../../../lib/run/record/runMutation.js';
import { WORKFLOW, workflowText, writeWorkflow } from '../../../lib/run/record/runStore.js';
import { type RunStatus, type Workflow } from '../../../lib/run/record/workflow.js';
import { tempDir } from '../../support/project.js';
import { checkpointed, sampleWorkflow } from '../sampleWorkflow.js';

const RUN_ID = 'run-20260102T030405Z-a1b2c3';
const NOW = new Date('2026-01-03T00:00:00.000Z');
const STATUSES: RunStatus[] = [
  'ACTIVE',
  'PAUSED',
  'BLOCKED',
  'WAITING_FOR_HUMAN_APPROVAL',
  'FAILED',
  'CANCELLED',
  'COMPLETED',
];

function failure(kind: string, message: string): (err: unknown) => boolean {
  return (err: unknown) => {
    assert.ok(err instanceof CommandFailure, `not a CommandFailure: ${String(err)}`);
    assert.deepEqual([err.kind, err.message], [kind, message]);
    return true;
  };
}

function problemsOf(wf: Workflow): string[] {
  return recordProblems(WORKFLOW, wf);
}

describe('lib/run/record/runMutation', () => {
  const active = checkpointed(
    sampleWorkflow('/repo', 'b'.repeat(40), { status: 'ACTIVE' }),
    'c'.repeat(40),
  );

  it('the lease is void in PAUSED, BLOCKED and the terminal statuses only', () => {
    assert.deepEqual(STATUSES.filter(leaseIsVoid), [
      'PAUSED',
      'BLOCKED',
      'FAILED',
      'CANCELLED',
      'COMPLETED',
    ]);
  });

  it('stateOf is status/phase', () => {
    assert.equal(stateOf(active), 'ACTIVE/REVIEW_PENDING');
  });

  describe('logged', () => {
    it("appends one entry (to: the record's state; from: as given) and sets updated_at, leaving the input alone", () => {
      const before = structuredClone(active);
      const next = logged({ ...active, status: 'PAUSED' }, NOW, {
        actor: 'alice',
        action: 'pause',
        from: 'ACTIVE/REVIEW_PENDING',
        detail: 'paused at once',
      });
      assert.deepEqual(active, before);
      assert.equal(next.updated_at, '2026-01-03T00:00:00.000Z');
      assert.equal(next.history.length, active.history.length + 1);
      assert.deepEqual(next.history.slice(0, -1), active.history);
      assert.deepEqual(next.history.at(-1), {
        at: '2026-01-03T00:00:00.000Z',
        actor: 'alice',
        action: 'pause',
        from: 'ACTIVE/REVIEW_PENDING',
        to: 'PAUSED/REVIEW_PENDING',
        detail: 'paused at once',
      });
      assert.deepEqual(problemsOf(next), []);
    });

    it('without from, the state did not change (from = to); without detail, an empty one', () => {
      const next = logged(active, NOW, { actor: 'controller', action: 'lease release' });
      assert.deepEqual(next.history.at(-1), {
        at: NOW.toISOString(),
        actor: 'controller',
        action: 'lease release',
        from: 'ACTIVE/REVIEW_PENDING',
        to: 'ACTIVE/REVIEW_PENDING',
        detail: '',
      });
    });
  });

  describe('blockRun', () => {
    it('records BLOCKED with the reason, keeps the phase, registers the evidence and logs one entry', () => {
      const evidence = [
        {
          path: 'artifacts/run-c1-validation-failure.json',
          sha256: 'd'.repeat(64),
          type: 'validation-failure',
          producer: 'baton',
        },
      ];
      const outcome = blockRun(
        active,
        'controller',
        'acceptance',
        'acceptance failed: exit 3',
        NOW,
        evidence,
      );
      const wf = outcome.workflow!;
      assert.equal(outcome.blocked, 'acceptance failed: exit 3');
      assert.deepEqual(
        [wf.status, wf.phase, wf.block_reason],
        ['BLOCKED', 'REVIEW_PENDING', 'acceptance failed: exit 3'],
      );
      assert.deepEqual(wf.artifacts, [...active.artifacts, ...evidence]);
      assert.deepEqual(wf.history.at(-1), {
        at: NOW.toISOString(),
        actor: 'controller',
        action: 'acceptance',
        from: 'ACTIVE/REVIEW_PENDING',
        to: 'BLOCKED/REVIEW_PENDING',
        detail: 'blocked: acceptance failed: exit 3',
      });
      assert.equal(wf.updated_at, NOW.toISOString());
      assert.deepEqual(problemsOf(wf), []);
    });

    it('without evidence, the manifest is unchanged', () => {
      assert.deepEqual(
        blockRun(active, 'alice', 'approve', 'x', NOW).workflow!.artifacts,
        active.artifacts,
      );
    });
  });

  describe('requireNotTerminal and requireState', () => {
    it('a terminal run refuses every action, naming its status', () => {
      for (const status of ['FAILED', 'CANCELLED', 'COMPLETED'] as const) {
        const wf = { ...active, status, phase: 'DONE' as const };
        const message = `pause: run ${RUN_ID} is ${status}, a terminal status: nothing changes any more`;
        assert.throws(() => requireNotTerminal(wf, 'pause'), failure('refused', message));
        assert.throws(
          () => requireState(wf, 'pause', [status]),
          failure('refused', message),
          'even when the status is listed',
        );
      }
      for (const status of ['ACTIVE', 'PAUSED', 'BLOCKED', 'WAITING_FOR_HUMAN_APPROVAL'] as const)
        requireNotTerminal({ ...active, status }, 'x');
    });

    it('names the statuses, then the phases, an action needs', () => {
      assert.throws(
        () =>
          requireState({ ...active, status: 'PAUSED' }, 'review', ['ACTIVE'], ['REVIEW_PENDING']),
        failure('refused', `review: run ${RUN_ID} is PAUSED; review needs ACTIVE`),
      );
      assert.throws(
        () => requireState(active, 'resume', ['PAUSED', 'BLOCKED']),
        failure('refused', `resume: run ${RUN_ID} is ACTIVE; resume needs PAUSED or BLOCKED`),
      );
      assert.throws(
        () => requireState(active, 'stage-start', ['ACTIVE'], ['IDLE', 'STAGE_ACTIVE']),
        failure(
          'refused',
          `stage-start: run ${RUN_ID} is in phase REVIEW_PENDING; stage-start needs IDLE or STAGE_ACTIVE`,
        ),
      );
      requireState(active, 'review', ['ACTIVE'], ['REVIEW_PENDING']);
      requireState(active, 'provider', ['ACTIVE']);
    });
  });

  describe('mutateRun', () => {
    let root: string;
    let paths: RunPaths;
    beforeEach(() => {
      root = tempDir();
      paths = runPathsOf(root, RUN_ID);
      writeWorkflow(paths.workflow, active);
      fs.writeFileSync(paths.lease, '{"a lease":"as far as mutateRun knows"}\n');
    });
    afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

    /** The record's bytes and inode: a write (atomic rename) changes the inode. */
    const fileState = () => ({
      bytes: fs.readFileSync(paths.workflow).toString('utf8'),
      ino: fs.statSync(paths.workflow).ino,
    });
    const removals: RunPaths[] = [];
    const countingRemove = (p: RunPaths) => {
      removals.push(p);
      releaseLease(p);
    };
    beforeEach(() => removals.splice(0));

    it('hands the change the record and paths as read, writes what it returns and returns it with the paths', async () => {
      let given: [Workflow, RunPaths] | undefined;
      const result = await mutateRun(
        root,
        RUN_ID,
        (wf, p) => {
          given = [wf, p];
          return {
            workflow: logged({ ...wf, task: 'changed' }, NOW, { actor: 'a', action: 'edit' }),
            extra: { note: 1 },
          };
        },
        countingRemove,
      );
      assert.deepEqual(given, [active, paths]);
      assert.equal(result.workflow.task, 'changed');
      assert.deepEqual(result.extra, { note: 1 });
      assert.deepEqual(result.paths, paths);
      assert.equal(fs.readFileSync(paths.workflow, 'utf8'), workflowText(result.workflow));
      assert.deepEqual(removals, [], 'an ACTIVE run keeps its lease');
      assert.ok(fs.existsSync(paths.lease));
    });

    it("holds the run's lock during the change, also across an await, and releases it after", async () => {
      const lockDir = join(runLocksDirOf(root), 'run-20260102T030405Z-a1b2c3.lock');
      const held: (number | undefined)[] = [];
      await mutateRun(
        root,
        RUN_ID,
        async () => {
          held.push(lockHolder(lockDir));
          await new Promise((r) => setImmediate(r));
          held.push(lockHolder(lockDir));
          return {};
        },
        countingRemove,
      );
      assert.deepEqual(held, [process.pid, process.pid]);
      assert.equal(lockHolder(lockDir), undefined);
    });

    it('a refusal writes nothing: the record is byte-identical (same file), the lease stays, the lock is released', async () => {
      const before = fileState();
      await assert.rejects(
        mutateRun(
          root,
          RUN_ID,
          (wf) => {
            requireState(wf, 'approve', ['WAITING_FOR_HUMAN_APPROVAL']);
            return { workflow: { ...wf, status: 'COMPLETED', phase: 'DONE' } };
          },
          countingRemove,
        ),
        failure(
          'refused',
          `approve: run ${RUN_ID} is ACTIVE; approve needs WAITING_FOR_HUMAN_APPROVAL`,
        ),
      );
      assert.deepEqual(fileState(), before);
      assert.deepEqual(removals, []);
      assert.ok(fs.existsSync(paths.lease));
      assert.equal(
        lockHolder(join(runLocksDirOf(root), 'run-20260102T030405Z-a1b2c3.lock')),
        undefined,
      );
    });

    it('a refusal on a terminal run writes nothing either', async () => {
      writeWorkflow(paths.workflow, { ...active, status: 'CANCELLED' });
      const before = fileState();
      await assert.rejects(
        mutateRun(
          root,
          RUN_ID,
          (wf) => {
            requireNotTerminal(wf, 'cancel');
            return { workflow: wf };
          },
          countingRemove,
        ),
        /a terminal status/,
      );
      assert.deepEqual(fileState(), before);
    });

    it('an outcome without a record writes nothing and returns the record as read', async () => {
      const before = fileState();
      const result = await mutateRun(
        root,
        RUN_ID,
        () => ({ extra: { retry_in_ms: 5 } }),
        countingRemove,
      );
      assert.deepEqual(fileState(), before);
      assert.deepEqual(result.workflow, active);
      assert.deepEqual(result.extra, { retry_in_ms: 5 });
    });

    it('a change to an invalid record is refused before the write: nothing changes', async () => {
      const before = fileState();
      await assert.rejects(
        mutateRun(
          root,
          RUN_ID,
          (wf) => ({ workflow: { ...wf, status: 'BLOCKED' } }),
          countingRemove,
        ),
        /refusing to write an invalid record/,
      );
      assert.deepEqual(fileState(), before);
      assert.ok(fs.existsSync(paths.lease));
    });

    for (const status of ['PAUSED', 'BLOCKED', 'FAILED', 'CANCELLED', 'COMPLETED'] as const) {
      it(`entering ${status} removes the lease file, after the record is written`, async () => {
        let recordWhenRemoved: string | undefined;
        const result = await mutateRun(
          root,
          RUN_ID,
          (wf) => {
            const next: Workflow = {
              ...wf,
              status,
              phase: status === 'COMPLETED' ? 'DONE' : wf.phase,
              block_reason: status === 'BLOCKED' ? 'x' : null,
            };
            return { workflow: logged(next, NOW, { actor: 'a', action: 'x', from: stateOf(wf) }) };
          },
          (p) => {
            recordWhenRemoved = fs.readFileSync(p.workflow, 'utf8');
            countingRemove(p);
          },
        );
        assert.equal(
          recordWhenRemoved,
          workflowText(result.workflow),
          'the record was on disk first',
        );
        assert.deepEqual(removals, [paths]);
        assert.equal(fs.existsSync(paths.lease), false);
      });
    }

    it('a lease file left in a run whose status voids it (a crash between the two writes) goes at the next action, even one that changes nothing', async () => {
      writeWorkflow(paths.workflow, { ...active, status: 'BLOCKED', block_reason: 'x' });
      const before = fileState();
      await mutateRun(root, RUN_ID, () => ({}), countingRemove);
      assert.deepEqual(fileState(), before);
      assert.equal(fs.existsSync(paths.lease), false);
    });

    it('an unknown or malformed run is refused before any change runs', async () => {
      let ran = false;
      const change = () => {
        ran = true;
        return {};
      };
      await assert.rejects(
        mutateRun(root, 'run-20260102T030405Z-000000', change, countingRemove),
        (err: unknown) =>
          err instanceof CommandFailure &&
          err.kind === 'usage' &&
          /^unknown run /.test(err.message),
      );
      await assert.rejects(
        async () => mutateRun(root, 'nope', change, countingRemove),
        (err: unknown) =>
          err instanceof CommandFailure &&
          err.kind === 'usage' &&
          /^malformed run id/.test(err.message),
      );
      assert.equal(ran, false);
    });

    it("consecutive mutations each see the previous one's result", async () => {
      for (const action of ['one', 'two', 'three'])
        await mutateRun(
          root,
          RUN_ID,
          (wf) => ({ workflow: logged(wf, NOW, { actor: 'a', action }) }),
          countingRemove,
        );
      const { history } = JSON.parse(fs.readFileSync(paths.workflow, 'utf8')) as Workflow;
      assert.deepEqual(
        history.map((h) => h.action),
        [...active.history.map((h) => h.action), 'one', 'two', 'three'],
      );
    });
  });
});
