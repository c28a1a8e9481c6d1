// lib/fsx/processIdentity: this process's own start time and the boot id are read once; another
// process's liveness is read from /proc each time it is asked (it may have ended meanwhile).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { bootId, identityAlive, processIdentityOf } from '../../lib/fsx/processIdentity.js';

const fsObject = createRequire(import.meta.url)('node:fs') as { readFileSync: unknown };

/** Records each readFileSync of a path under /proc until restore(). */
function spyOnProcReads(): { paths: string[]; restore: () => void } {
  const real = fs.readFileSync;
  const paths: string[] = [];
  fsObject.readFileSync = (path: fs.PathOrFileDescriptor, ...rest: unknown[]) => {
    if (String(path).startsWith('/proc/')) paths.push(String(path));
    return (real as (...args: unknown[]) => unknown)(path, ...rest);
  };
  syncBuiltinESMExports();
  return {
    paths,
    restore: () => {
      fsObject.readFileSync = real;
      syncBuiltinESMExports();
    },
  };
}

describe('lib/fsx/processIdentity', () => {
  it("reads this process's own start time and the boot id once, another process's each time", async () => {
    const own = processIdentityOf(process.pid)!;
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], {
      stdio: 'ignore',
    });
    const gone = new Promise((resolve) => child.on('exit', resolve));
    try {
      const its = processIdentityOf(child.pid!)!;
      const spy = spyOnProcReads();
      let answers: unknown[];
      try {
        answers = [
          processIdentityOf(process.pid),
          identityAlive(own),
          identityAlive(own),
          bootId(),
          identityAlive(its),
          identityAlive(its),
        ];
      } finally {
        spy.restore();
      }
      assert.deepEqual(answers, [own, true, true, own.split(' ')[2], true, true]);
      assert.deepEqual(spy.paths, [`/proc/${child.pid}/stat`, `/proc/${child.pid}/stat`]);
      child.kill('SIGKILL');
      await gone;
      assert.equal(identityAlive(its), false);
    } finally {
      child.kill('SIGKILL');
    }
  });
});
