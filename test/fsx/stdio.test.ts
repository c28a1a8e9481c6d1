import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { writeAllSync } from '../../lib/fsx/stdio.js';
import { tempDir } from '../support/project.js';

describe('lib/fsx/stdio: writeAllSync', () => {
  let dir: string;
  beforeEach(() => {
    dir = tempDir();
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('writes every byte of a string or bytes to a descriptor', () => {
    const path = join(dir, 'out');
    const fd = fs.openSync(path, 'w');
    try {
      writeAllSync(fd, 'NO_TASK\n');
      writeAllSync(fd, Buffer.from([0, 1, 2, 255]));
    } finally {
      fs.closeSync(fd);
    }
    assert.deepEqual(
      fs.readFileSync(path),
      Buffer.concat([Buffer.from('NO_TASK\n'), Buffer.from([0, 1, 2, 255])]),
    );
  });

  it('a non-blocking pipe that fills (EAGAIN) is waited on, not given up: a slow reader gets all of 1 MiB', async () => {
    const fifo = join(dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    const out = join(dir, 'read');
    // A reader in another process that starts late and drains the pipe slowly.
    const reader = spawn(process.execPath, [
      '-e',
      `const fs = require('fs');
       const fd = fs.openSync(${JSON.stringify(fifo)}, 'r');
       const chunks = []; const buf = Buffer.alloc(4096); let n;
       while ((n = fs.readSync(fd, buf)) > 0) {
         chunks.push(Buffer.from(buf.subarray(0, n)));
         Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, chunks.length % 64 ? 0 : 1);
       }
       fs.writeFileSync(${JSON.stringify(out)}, Buffer.concat(chunks));`,
    ]);
    const exited = new Promise<number | null>((done) => reader.on('close', done));
    // O_RDWR opens a FIFO without waiting for a reader; O_NONBLOCK makes a full pipe EAGAIN.
    const fd = fs.openSync(fifo, fs.constants.O_RDWR | fs.constants.O_NONBLOCK);
    const data = Buffer.alloc(1024 * 1024, 'x');
    data.write('start', 0);
    data.write('end', data.length - 3);
    try {
      writeAllSync(fd, data);
    } finally {
      fs.closeSync(fd);
    }
    assert.equal(await exited, 0);
    assert.ok(fs.readFileSync(out).equals(data), 'every byte, in order');
  });
});
