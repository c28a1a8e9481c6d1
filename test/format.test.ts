// The code's form: every source file as the formatter writes it (prettier, width 100, the
// settings in .prettierrc.json), and no line of lib/ over 100 characters (comments and
// strings included, which the formatter leaves alone). `npm run format` rewrites the files.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { join, resolve } from 'node:path';

const FORMATTED = ['lib', 'bin', 'bench', 'test', 'scripts'];

/** Every .ts file under `dir` but the generated validators. */
function sourcesUnder(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.generated.ts'))
    .map((e) => join(e.parentPath, e.name));
}

describe("the code's form", function () {
  this.timeout(120_000);

  it('every file of lib/, bin/, bench/, test/ and scripts/ is as prettier writes it (npm run format)', () => {
    const prettier = resolve('node_modules/prettier/bin/prettier.cjs');
    const r = spawnSync(
      process.execPath,
      [prettier, '--check', '--log-level', 'warn', ...FORMATTED],
      { encoding: 'utf8' },
    );
    assert.equal(r.status, 0, `not formatted:\n${r.stdout}${r.stderr}`);
  });

  it('no line of lib/ is longer than 100 characters', () => {
    const long = sourcesUnder('lib').flatMap((file) =>
      fs
        .readFileSync(file, 'utf8')
        .split('\n')
        .flatMap((line, i) => (line.length > 100 ? [`${file}:${i + 1} (${line.length})`] : [])),
    );
    assert.deepEqual(long, []);
  });
});
