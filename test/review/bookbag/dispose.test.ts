// lib/review/dispose: score (REVIEWED → SCORED, acceptance recomputed) and dispose
// (SCORED, or REVIEWED when forced → DISPOSED, then moved into the archive). A refusal
// changes nothing; a DISPOSED bookbag that a crash left in the bookbag folder is moved by
// the next dispose, without being written again.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { join, resolve } from 'node:path';
import { leafFilesOf, reviewPathsOf, worktreePathOf } from '../../../lib/project/layout.js';
import { processIdentityOf } from '../../../lib/fsx/processIdentity.js';
import {
  parseLeafRecord,
  writeLeafJson,
  type LeafRecord,
} from '../../../lib/review/leaf/leafRecord.js';
import { addLeafWorktree, headCommitOf } from '../../../lib/review/leaf/leafWorktree.js';
import { disposeReview } from '../../../lib/review/bookbag/dispose.js';
import { scoreReview } from '../../../lib/review/bookbag/verdict.js';
import { BookbagProblem, ReviewRefusal } from '../../../lib/review/bookbag/reviewErrors.js';
import { readBookbag } from '../../../lib/review/bookbag/store.js';
import {
  at,
  bareRootForEachTest,
  BEAD,
  bookbagIn,
  finding,
  placeBookbag,
} from '../../support/bookbags.js';
import { deadIdentity } from '../../support/deadProcess.js';
import { commitIn, git, makeProject, type Project } from '../../support/project.js';

describe('lib/review/bookbag/dispose', () => {
  const root = bareRootForEachTest();

  const archived = () => join(reviewPathsOf(root(), {}).archive, `${BEAD}.json`);
  const refusedUnchanged = async (path: string, action: Promise<unknown>, pattern: RegExp) => {
    const before = fs.readFileSync(path);
    await assert.rejects(
      action,
      (err: unknown) => err instanceof ReviewRefusal && pattern.test(err.message),
    );
    assert.deepEqual([fs.readFileSync(path), fs.existsSync(archived())], [before, false]);
  };

  describe('scoreReview', () => {
    it('scores a REVIEWED bead in place, recomputing acceptance', async () => {
      const path = placeBookbag(root(), bookbagIn('REVIEWED', { coo: [finding('HIGH')] }));
      const bag = await scoreReview(root(), BEAD, 'principal', { env: {} }, at(9));
      assert.deepEqual(
        [bag.state, bag.accepted, bag.history.at(-1)?.event],
        ['SCORED', false, 'scored'],
      );
      assert.deepEqual(readBookbag(path), bag);
    });

    it('refuses a bead that is not REVIEWED, SCORED included, writing nothing', async () => {
      for (const state of ['CTO_REVIEWED', 'SCORED'] as const) {
        const path = placeBookbag(root(), bookbagIn(state));
        await refusedUnchanged(
          path,
          scoreReview(root(), BEAD, 'principal', { env: {} }),
          new RegExp(`is ${state}, not REVIEWED`),
        );
      }
    });
  });

  describe('disposeReview', () => {
    it('disposes of a SCORED bead and moves its bookbag into the archive', async () => {
      const path = placeBookbag(root(), bookbagIn('SCORED'));
      const { bag, path: where } = await disposeReview(
        root(),
        BEAD,
        false,
        'principal',
        { env: {} },
        at(9),
      );
      assert.deepEqual(
        [where, bag.state, bag.history.at(-1)?.detail],
        [archived(), 'DISPOSED', ''],
      );
      assert.equal(fs.existsSync(path), false);
      assert.deepEqual(readBookbag(archived()), bag);
      assert.equal(fs.statSync(archived()).mode & 0o777, 0o600);
    });

    it('disposes of a REVIEWED bead only when forced', async () => {
      const path = placeBookbag(root(), bookbagIn('REVIEWED'));
      await refusedUnchanged(
        path,
        disposeReview(root(), BEAD, false, 'principal', { env: {} }),
        /dispose needs SCORED \(or --force\)/,
      );
      const { bag } = await disposeReview(root(), BEAD, true, 'principal', { env: {} }, at(9));
      assert.deepEqual(
        [bag.state, bag.history.at(-1)?.detail, fs.existsSync(path)],
        ['DISPOSED', 'forced', false],
      );
    });

    it('refuses a bead still in review, even when forced', async () => {
      const path = placeBookbag(root(), bookbagIn('COO_REVIEWED'));
      await refusedUnchanged(
        path,
        disposeReview(root(), BEAD, true, 'principal', { env: {} }),
        /is COO_REVIEWED: dispose needs SCORED$/,
      );
    });

    it('moves a DISPOSED bookbag a crash left in place, without writing it again', async () => {
      const path = placeBookbag(root(), bookbagIn('DISPOSED'));
      const bytes = fs.readFileSync(path);
      const { bag } = await disposeReview(root(), BEAD, false, 'principal', { env: {} }, at(9));
      assert.deepEqual([fs.existsSync(path), fs.readFileSync(archived())], [false, bytes]);
      assert.equal(bag.history.filter((h) => h.event === 'disposed').length, 1);
    });

    it('finishes the move of a dispose killed after writing DISPOSED', async () => {
      const path = placeBookbag(root(), bookbagIn('SCORED'));
      const program =
        `const { disposeReview } = await import(${JSON.stringify(resolve('lib/review/bookbag/dispose.ts'))});\n` +
        `await disposeReview(${JSON.stringify(root())}, ${JSON.stringify(BEAD)}, false, 'principal', { env: {} });`;
      const killed = spawnSync(
        process.execPath,
        ['--import', 'tsx', '--input-type=module', '-e', program],
        {
          env: { ...process.env, BATON_CRASH_AT: 'review:disposed-written' },
          encoding: 'utf8',
        },
      );
      assert.equal(killed.signal, 'SIGKILL', killed.stderr);
      assert.deepEqual([readBookbag(path).state, fs.existsSync(archived())], ['DISPOSED', false]);
      await disposeReview(root(), BEAD, false, 'principal', { env: {} }, at(9));
      assert.deepEqual([fs.existsSync(path), readBookbag(archived()).state], [false, 'DISPOSED']);
    });

    it('reports a bead that is no longer in the bookbag folder as missing', async () => {
      placeBookbag(root(), bookbagIn('SCORED'));
      await disposeReview(root(), BEAD, false, 'principal', { env: {} });
      await assert.rejects(
        disposeReview(root(), BEAD, false, 'principal', { env: {} }),
        (err: unknown) => err instanceof BookbagProblem && err.kind === 'missing',
      );
      assert.equal(readBookbag(archived()).state, 'DISPOSED');
    });
  });

  describe("disposeReview and the bead's leaf", function () {
    this.timeout(20_000);
    let p: Project;
    beforeEach(() => {
      p = makeProject();
    });
    afterEach(() => p.cleanup());

    /** The pid record and worktree of the bead's leaf, run by `leaf` (an identity line). */
    function leafOfBead(leaf: string): LeafRecord {
      const name = `study-coder-${BEAD.slice(-8)}`;
      const record: LeafRecord = {
        bead: BEAD,
        role: 'coder',
        worktree: name,
        path: worktreePathOf(p.root, name),
        branch: name,
        base: headCommitOf(p.root),
        leaf,
        worker: '',
        removed_at: '',
      };
      addLeafWorktree(p.root, record);
      writeLeafJson(leafFilesOf(reviewPathsOf(p.root), BEAD).record, record);
      return record;
    }

    it("removes the worktree a killed leaf left, keeping its branch with the worker's commit", async () => {
      const record = leafOfBead(await deadIdentity());
      const tip = commitIn(record.path, 'the work');
      placeBookbag(p.root, bookbagIn('SCORED'));
      const { leaf } = await disposeReview(p.root, BEAD, false, 'principal', { env: {} }, at(9));
      assert.deepEqual(leaf, {
        bead: BEAD,
        worktree: record.worktree,
        path: record.path,
        branch: record.branch,
        commit: tip,
        worker_killed: false,
      });
      assert.deepEqual(
        [fs.existsSync(record.path), git(p.root, 'rev-parse', record.branch)],
        [false, tip],
      );
      assert.equal(
        parseLeafRecord(fs.readFileSync(leafFilesOf(reviewPathsOf(p.root), BEAD).record, 'utf8'))
          .removed_at,
        at(9).toISOString(),
      );
    });

    it('leaves the worktree of a leaf still running: its own finally removes it', async () => {
      const record = leafOfBead(processIdentityOf(process.pid)!);
      placeBookbag(p.root, bookbagIn('SCORED'));
      const { leaf } = await disposeReview(p.root, BEAD, false, 'principal', { env: {} }, at(9));
      assert.deepEqual([leaf, fs.existsSync(record.path)], [undefined, true]);
    });
  });
});
