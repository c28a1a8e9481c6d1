// Writing a command's output without Node's stdio streams. The first use of process.stdout
// builds a stream (and loads the stream modules): about 5 % of `node -e 0` for a command
// that prints one line, which is all an agent command does (issue 22). A synchronous write
// to the descriptor is what process.stdout does for files and pipes on Linux anyway.
import * as fs from 'node:fs';
import { isCode } from './absent.js';

const pause = new Int32Array(new SharedArrayBuffer(4));

/**
 * Writes all of `data` to `fd` (1 for stdout) before returning. A descriptor another program
 * made non-blocking may refuse a full pipe (EAGAIN): the write waits 1 ms and goes on.
 */
export function writeAllSync(fd: number, data: string | Uint8Array): void {
  let rest = typeof data === 'string' ? Buffer.from(data) : data;
  while (rest.length > 0) {
    try {
      rest = rest.subarray(fs.writeSync(fd, rest));
    } catch (err) {
      if (!isCode(err, 'EAGAIN')) throw err;
      Atomics.wait(pause, 0, 0, 1);
    }
  }
}

/** Writes one diagnostic line to stderr (fd 2), without Node's stream, as `writeAllSync` does. */
export function writeStderrLine(line: string): void {
  writeAllSync(2, `${line}\n`);
}
