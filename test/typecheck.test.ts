// The types: `tsc --noEmit` over the whole project (tsconfig.json). `npm test` runs it here,
// beside the other tests, rather than before them: on two cores its 9 s of one core would
// otherwise come before the first test. `npm run build` still checks the types first.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';

describe('the types', function () {
  this.timeout(180_000);

  it('tsc --noEmit finds no error in lib/, bin/, bench/ or test/', async () => {
    const tsc = resolve('node_modules/typescript/bin/tsc');
    const child = spawn(process.execPath, [tsc, '--noEmit', '-p', '.'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const code = await new Promise<number | null>((done) => child.on('close', done));
    assert.equal(code, 0, `tsc found errors:\n${output}`);
  });
});
