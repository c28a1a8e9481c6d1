// lib/fsx/processIdentity: this process's own start time and the boot id are read once; another
// process's liveness is read from /proc each time it is asked (it may have ended meanwhile).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { hostname } from 'node:os';
import {
  bootId,
  hostName,
  identityAlive,
  processIdentityOf,
  systemHostName,
} from '../../lib/fsx/processIdentity.js';
import { spyOnFs } from '../support/fsSpy.js';

describe('lib/fsx/processIdentity', () => {
  it("reads this process's own start time and the boot id once, another process's each time", async () => {
    const own = processIdentityOf(process.pid)!;
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], {
      stdio: 'ignore',
    });
    const gone = new Promise((resolve) => child.on('exit', resolve));
    try {
      const its = processIdentityOf(child.pid!)!;
      const spy = spyOnFs('readFileSync', '/proc/');
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
      assert.deepEqual(
        spy.paths.filter((path) => path.endsWith('/stat')),
        [`/proc/${child.pid}/stat`, `/proc/${child.pid}/stat`],
      );
      child.kill('SIGKILL');
      await gone;
      assert.equal(identityAlive(its), false);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('names this host as os.hostname() does, read from /proc without loading node:os', () => {
    const spy = spyOnFs('readFileSync', '/proc/');
    let names: string[];
    try {
      names = [systemHostName(), hostName()];
    } finally {
      spy.restore();
    }
    assert.deepEqual(names, [hostname(), hostname().replace(/\s/g, '_') || '-']);
    assert.deepEqual(spy.paths, ['/proc/sys/kernel/hostname', '/proc/sys/kernel/hostname']);
  });
});
