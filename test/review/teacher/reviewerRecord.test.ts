import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { processRunning, startTimeOf } from '../../../lib/fsx/processIdentity.js';
import {
  endOrphanReviewer,
  readReviewerRecord,
  recordedReviewerRuns,
  removeReviewerRecord,
  writeReviewerRecord,
} from '../../../lib/review/teacher/reviewerRecord.js';
import { waitFor } from '../../support/daemon.js';
import { tempDir } from '../../support/project.js';

describe('lib/review/teacher/reviewerRecord', () => {
  let dir: string;
  let path: string;
  beforeEach(() => {
    dir = tempDir();
    path = join(dir, 'teacher', 'reviewer.json');
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** A detached process group (leader + one helper), as a teacher's reviewer is; resolves with the leader and helper pids. */
  const orphanGroup = async () => {
    const pids = join(dir, 'pids');
    const leader = spawn(
      process.execPath,
      [
        '-e',
        `const h = require('child_process').spawn(process.execPath, ['-e', 'setInterval(() => {}, 1 << 30)'], { stdio: 'ignore' }); require('fs').writeFileSync(${JSON.stringify(pids)}, String(h.pid)); setInterval(() => {}, 1 << 30)`,
      ],
      { detached: true, stdio: 'ignore' },
    );
    leader.unref();
    await waitFor(
      'the helper to start',
      () => fs.existsSync(pids) && fs.readFileSync(pids, 'utf8') !== '',
    );
    return { leader: leader.pid!, helper: Number(fs.readFileSync(pids, 'utf8')) };
  };

  it('writes (0600), reads and removes the record; an unreadable one is removed and reads as none', () => {
    writeReviewerRecord(path, process.pid, 'coder-general-0123abcd', 2);
    assert.deepEqual(readReviewerRecord(path), {
      pid: process.pid,
      start: startTimeOf(process.pid),
      bead: 'coder-general-0123abcd',
      attempt: 2,
    });
    assert.equal(fs.statSync(path).mode & 0o777, 0o600);
    removeReviewerRecord(path);
    assert.equal(readReviewerRecord(path), undefined);
    removeReviewerRecord(path);
    fs.writeFileSync(path, '{"pid": "x"');
    assert.equal(readReviewerRecord(path), undefined);
    assert.equal(fs.existsSync(path), false);
  });

  it('a recorded reviewer still running has its whole group ended at boot; the record goes', async () => {
    const { leader, helper } = await orphanGroup();
    writeReviewerRecord(path, leader, 'b', 1);
    assert.equal(recordedReviewerRuns(readReviewerRecord(path)!), true);
    assert.equal((await endOrphanReviewer(path))?.pid, leader);
    await waitFor('the group to be gone', () => !processRunning(leader) && !processRunning(helper));
    assert.equal(fs.existsSync(path), false);
  });

  it('what is left of a group whose leader died is ended too', async () => {
    const { leader, helper } = await orphanGroup();
    writeReviewerRecord(path, leader, 'b', 1);
    process.kill(leader, 'SIGKILL');
    await waitFor('the leader to die', () => !processRunning(leader));
    assert.equal(processRunning(helper), true);
    assert.equal((await endOrphanReviewer(path))?.pid, leader);
    await waitFor('the helper to be gone', () => !processRunning(helper));
  });

  it('pid reuse: a live process with the recorded pid but another start time is never touched', async () => {
    fs.mkdirSync(join(dir, 'teacher'));
    fs.writeFileSync(path, JSON.stringify({ pid: process.pid, start: '1', bead: 'b', attempt: 1 }));
    assert.equal(recordedReviewerRuns(readReviewerRecord(path)!), false);
    assert.equal(await endOrphanReviewer(path), undefined);
    assert.equal(processRunning(process.pid), true);
    assert.equal(fs.existsSync(path), false);
    assert.equal(await endOrphanReviewer(path), undefined, 'no record: nothing to do');
  });
});
