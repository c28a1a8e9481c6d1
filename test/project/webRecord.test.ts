// The record of a running `baton web` (web.md §1): its address while its process lives, none
// after it was killed (a record left behind), and never a token.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import * as fs from 'node:fs';
import { webRecordPathOf } from '../../lib/project/layout.js';
import {
  readWebRecord,
  removeWebRecord,
  runningWebUrl,
  writeWebRecord,
} from '../../lib/project/webRecord.js';
import { startSleeper } from '../support/deadProcess.js';
import { tempDir } from '../support/project.js';

describe('lib/project/webRecord', () => {
  let root: string;
  beforeEach(() => {
    root = tempDir();
    fs.mkdirSync(`${root}/.swarmforge`);
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));
  const started_at = '2026-12-03T00:00:00.000Z';

  it('the address while its process runs, without a token; 0600; removed only by its owner', () => {
    writeWebRecord(root, { pid: process.pid, host: '::1', port: 4680, started_at });
    assert.equal(runningWebUrl(root), 'http://[::1]:4680/');
    assert.equal(fs.statSync(webRecordPathOf(root)).mode & 0o777, 0o600);
    removeWebRecord(root, process.pid + 1);
    assert.ok(readWebRecord(root), 'another process does not remove it');
    removeWebRecord(root, process.pid);
    assert.equal(runningWebUrl(root), undefined);
  });

  it('a record a killed server left behind, or a malformed one, shows nothing', async () => {
    const sleeper = startSleeper();
    const exited = once(sleeper, 'exit');
    sleeper.kill('SIGKILL');
    await exited;
    const dead = sleeper.pid!;
    writeWebRecord(root, { pid: dead, host: '127.0.0.1', port: 4680, started_at });
    assert.equal(runningWebUrl(root), undefined);
    fs.writeFileSync(webRecordPathOf(root), '{"pid": "x"}');
    assert.equal(runningWebUrl(root), undefined);
  });
});
