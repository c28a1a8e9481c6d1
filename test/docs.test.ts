// The reference docs are where the code says they are: every `docs/<name>.md` that lib/,
// bin/, the hooks, the scripts, the bench, the tests, the README or a doc names exists, every
// relative Markdown link of the README and docs/ leads to a file, and the README stays a
// tour (at most 300 lines; the reference is in docs/).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { dirname, join, resolve } from 'node:path';

const CITING = ['lib', 'bin', 'hooks', 'scripts', 'bench', 'test', 'docs'];

/** Every file under `dir` that may cite a doc (source, scripts, Markdown). */
function filesUnder(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && /\.(ts|mjs|md)$|^(session-start|stop)$/.test(e.name))
    .map((e) => join(e.parentPath, e.name));
}

describe('the reference docs', () => {
  const files = ['README.md', 'package.json', ...CITING.flatMap(filesUnder)];

  it('every docs/<name>.md named anywhere in the repository exists', () => {
    const missing = files.flatMap((file) =>
      [...fs.readFileSync(file, 'utf8').matchAll(/\bdocs\/[A-Za-z0-9_.-]+\.md\b/g)]
        .map((m) => m[0])
        .filter((doc) => !fs.existsSync(doc))
        .map((doc) => `${file}: ${doc}`),
    );
    assert.deepEqual([...new Set(missing)], []);
  });

  it('every relative link of the README and docs/ leads to a file', () => {
    const markdown = ['README.md', ...filesUnder('docs')];
    const broken = markdown.flatMap((file) =>
      [...fs.readFileSync(file, 'utf8').matchAll(/\]\(([^)#\s]+)(#[^)\s]*)?\)/g)]
        .map((m) => m[1]!)
        .filter((target) => !/^[a-z]+:/.test(target))
        .filter((target) => !fs.existsSync(resolve(dirname(file), target)))
        .map((target) => `${file}: ${target}`),
    );
    assert.deepEqual(broken, []);
  });

  it('the README is a tour of at most 300 lines', () => {
    const lines = fs.readFileSync('README.md', 'utf8').split('\n').length;
    assert.ok(lines <= 300, `README.md has ${lines} lines`);
  });
});
