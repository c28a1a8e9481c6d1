// A child process for lock tests: `hold <dir>` takes the lock, prints HELD and waits to be
// killed; `count <dir> <file> <n>` increments a counter file n times under the lock.
import * as fs from 'node:fs';
import { acquireLock } from '../../lib/fsx/lock.js';

const [mode, dir, file, n] = process.argv.slice(2);
if (mode === 'hold') {
  acquireLock(dir!);
  process.stdout.write('HELD\n');
  setInterval(() => undefined, 1000);
} else if (mode === 'count') {
  for (let i = 0; i < Number(n); i++) {
    const release = acquireLock(dir!);
    const value = Number(fs.readFileSync(file!, 'utf8'));
    fs.writeFileSync(file!, String(value + 1));
    release();
  }
}
