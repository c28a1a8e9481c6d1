import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import { once } from 'node:events';
import { readProcessFile, readTextIfPresent } from '../../lib/fsx/absent.js';
import { tempDir } from '../support/project.js';

describe('lib/fsx/absent', () => {
  it('a missing file is undefined; any other failure is thrown', () => {
    const dir = tempDir();
    try {
      assert.equal(readTextIfPresent(`${dir}/none`), undefined);
      assert.throws(() => readTextIfPresent(dir), { code: 'EISDIR' });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a process's /proc file: its text while it runs, undefined once it is gone, even when it ended between the open and the read (ESRCH)", async () => {
    const child = spawn('sleep', ['30']);
    const path = `/proc/${child.pid}/stat`;
    assert.match(readProcessFile(path)!, new RegExp(`^${child.pid} \\(sleep\\) `));
    const fd = fs.openSync(path, 'r');
    try {
      child.kill('SIGKILL');
      await once(child, 'exit');
      // Reaped: the file opened before is still open, and reading it is ESRCH.
      assert.throws(() => fs.readFileSync(fd, 'utf8'), { code: 'ESRCH' });
      assert.equal(readProcessFile(fd), undefined);
      assert.equal(readProcessFile(path), undefined);
    } finally {
      fs.closeSync(fd);
    }
  });
});
