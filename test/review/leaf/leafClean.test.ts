import assert from 'node:assert/strict';
import { type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import { hostname } from 'node:os';
import { leafFilesOf, reviewPathsOf, worktreePathOf } from '../../../lib/project/layout.js';
import { processIdentityOf, processRunning } from '../../../lib/fsx/processIdentity.js';
import { cleanLeaves, leafRecordsOf, orphanLeaves } from '../../../lib/review/leaf/leafClean.js';
import {
  parseLeafRecord,
  writeLeafJson,
  type LeafRecord,
} from '../../../lib/review/leaf/leafRecord.js';
import { addLeafWorktree, headCommitOf } from '../../../lib/review/leaf/leafWorktree.js';
import { waitFor } from '../../support/daemon.js';
import { deadIdentity, startSleeper } from '../../support/deadProcess.js';
import { commitIn, git, makeProject, type Project } from '../../support/project.js';

describe('lib/review/leaf/leafClean', function () {
  this.timeout(20_000);
  let p: Project;
  const sleepers: ChildProcess[] = [];
  beforeEach(() => {
    p = makeProject();
  });
  afterEach(() => {
    for (const s of sleepers.splice(0)) if (processRunning(s.pid!)) s.kill('SIGKILL');
    p.cleanup();
  });

  /** Writes the pid record of a leaf `rand8` run by `leaf` (an identity line), optionally with its worktree made. */
  function leafOf(
    rand8: string,
    leaf: string,
    more: Partial<LeafRecord> = {},
    withWorktree = false,
  ): LeafRecord {
    const name = `study-coder-${rand8}`;
    const record: LeafRecord = {
      bead: `coder-docs-${rand8}`,
      role: 'coder',
      worktree: name,
      path: worktreePathOf(p.root, name),
      branch: name,
      base: headCommitOf(p.root),
      leaf,
      worker: '',
      removed_at: '',
      ...more,
    };
    if (withWorktree) addLeafWorktree(p.root, record);
    writeLeafJson(leafFilesOf(reviewPathsOf(p.root), record.bead).record, record);
    return record;
  }

  it('an orphan is a record not marked removed whose leaf is gone: dead, or a reused pid (other start time); never a live one or one on another host', async () => {
    const dead = await deadIdentity();
    const boot = fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    leafOf('00000001', dead);
    leafOf('00000002', `${process.pid} 1 ${boot} ${hostname().replace(/\s/g, '_')}`);
    leafOf('00000003', processIdentityOf(process.pid)!);
    leafOf('00000004', `999999999 1 other-boot other-host.example`);
    leafOf('00000005', dead, { removed_at: '2026-01-01T00:00:00.000Z' });
    assert.deepEqual(
      orphanLeaves(p.root).map((o) => o.record.bead),
      ['coder-docs-00000001', 'coder-docs-00000002'],
    );
  });

  it('lists every record, and one that cannot be read with why; a leaf folder without a record made nothing and is skipped', () => {
    leafOf('0000000a', processIdentityOf(process.pid)!);
    const broken = leafFilesOf(reviewPathsOf(p.root), 'coder-docs-0000000b');
    fs.mkdirSync(broken.dir, { recursive: true });
    fs.writeFileSync(broken.record, '{"bead": 1}');
    fs.mkdirSync(leafFilesOf(reviewPathsOf(p.root), 'coder-docs-0000000c').dir);
    const found = leafRecordsOf(p.root);
    assert.deepEqual(
      found.map((f) => ('record' in f ? f.record.bead : f.problem.slice(0, 29))),
      ['coder-docs-0000000a', 'missing or not a string: bead'],
    );
  });

  it('clean kills a worker still running in its group, removes the worktree, deletes an empty branch and marks the record; a second clean finds nothing', async () => {
    const worker = startSleeper();
    sleepers.push(worker);
    await waitFor('the worker to run', () => processIdentityOf(worker.pid!) !== undefined);
    const record = leafOf(
      '0000000d',
      await deadIdentity(),
      { worker: processIdentityOf(worker.pid!)! },
      true,
    );
    const now = new Date('2026-01-02T03:04:05.000Z');
    assert.deepEqual(cleanLeaves(p.root, process.env, now), [
      {
        bead: record.bead,
        worktree: record.worktree,
        path: record.path,
        branch: '',
        commit: '',
        worker_killed: true,
      },
    ]);
    assert.equal(processRunning(worker.pid!), false);
    assert.deepEqual(
      [fs.existsSync(record.path), git(p.root, 'branch', '--list', 'study-*')],
      [false, ''],
    );
    assert.equal(
      parseLeafRecord(
        fs.readFileSync(leafFilesOf(reviewPathsOf(p.root), record.bead).record, 'utf8'),
      ).removed_at,
      now.toISOString(),
    );
    assert.deepEqual(cleanLeaves(p.root), []);
  });

  it("clean keeps a branch with commits, and never kills a process that only reuses the worker's pid", async () => {
    const bystander = startSleeper();
    sleepers.push(bystander);
    await waitFor('the bystander to run', () => processIdentityOf(bystander.pid!) !== undefined);
    const reused = processIdentityOf(bystander.pid!)!.replace(/^(\d+) \d+/, '$1 1');
    const record = leafOf('0000000e', await deadIdentity(), { worker: reused }, true);
    const tip = commitIn(record.path, 'the worker committed');
    assert.deepEqual(
      cleanLeaves(p.root).map((c) => [c.branch, c.commit, c.worker_killed]),
      [[record.branch, tip, false]],
    );
    assert.equal(processRunning(bystander.pid!), true);
  });
});
