import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { join, resolve } from 'node:path';
import { replaceFile, replaceJson, SymlinkRefused } from '../../lib/fsx/records.js';
import { isTempName } from '../../lib/queue/tempFiles.js';
import { tempDir } from '../support/project.js';

describe('lib/fsx/records: replaceFile', () => {
  let dir: string;
  beforeEach(() => {
    dir = tempDir();
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const modeOf = (path: string) => fs.statSync(path).mode & 0o7777;

  it('replaces a file whole, makes its folder (0700), mode 0600 or exactly the mode asked whatever the umask, and leaves no temp file', () => {
    const path = join(dir, 'a', 'b', 'state.json');
    replaceJson(path, { n: 1 });
    assert.deepEqual(JSON.parse(fs.readFileSync(path, 'utf8')), { n: 1 });
    assert.equal(modeOf(path), 0o600);
    assert.equal(modeOf(join(dir, 'a')), 0o700);
    const umask = process.umask(0o077);
    try {
      replaceFile(path, 'two\n', { mode: 0o640 });
    } finally {
      process.umask(umask);
    }
    assert.equal(fs.readFileSync(path, 'utf8'), 'two\n');
    assert.equal(modeOf(path), 0o640);
    assert.deepEqual(fs.readdirSync(join(dir, 'a', 'b')), ['state.json']);
  });

  it("`keep`: an existing file keeps its mode; a new one gets 0666 less the umask, as an editor's would", () => {
    const existing = join(dir, 'settings.json');
    fs.writeFileSync(existing, '{}\n');
    fs.chmodSync(existing, 0o664);
    replaceFile(existing, '{"a":1}\n', { mode: 'keep' });
    assert.equal(modeOf(existing), 0o664);
    assert.equal(fs.readFileSync(existing, 'utf8'), '{"a":1}\n');
    const fresh = join(dir, 'new.json');
    const umask = process.umask(0o022);
    try {
      replaceFile(fresh, '{}\n', { mode: 'keep' });
    } finally {
      process.umask(umask);
    }
    assert.equal(modeOf(fresh), 0o644);
  });

  it('refuses a symlink in the target’s place before writing anything; a failed rename takes its temp file back', () => {
    const target = join(dir, 'elsewhere');
    fs.writeFileSync(target, 'untouched\n');
    const link = join(dir, 'state.json');
    fs.symlinkSync(target, link);
    assert.throws(() => replaceFile(link, 'x'), SymlinkRefused);
    assert.equal(fs.readFileSync(target, 'utf8'), 'untouched\n');
    const folder = join(dir, 'a-folder');
    fs.mkdirSync(join(folder, 'inside'), { recursive: true });
    assert.throws(() => replaceFile(folder, 'x'), /EISDIR|ENOTEMPTY|EEXIST/);
    assert.deepEqual(fs.readdirSync(dir).sort(), ['a-folder', 'elsewhere', 'state.json']);
  });

  it('killed between the temp file and the rename (SIGKILL): the old content whole, the leftover a temp name the sweep knows, the next write fine', () => {
    const path = join(dir, 'workflow.json');
    replaceJson(path, { n: 1 });
    const script = `import { replaceJson } from ${JSON.stringify(resolve('lib/fsx/records.ts'))};
replaceJson(${JSON.stringify(path)}, { n: 2 });`;
    const r = spawnSync(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', script],
      {
        env: { ...process.env, BATON_CRASH_AT: 'replace:temp-written' },
        encoding: 'utf8',
      },
    );
    assert.equal(r.signal, 'SIGKILL', r.stderr);
    assert.deepEqual(JSON.parse(fs.readFileSync(path, 'utf8')), { n: 1 });
    const left = fs.readdirSync(dir).filter((n) => n !== 'workflow.json');
    assert.equal(left.length, 1);
    assert.match(left[0]!, /^workflow\.json\.\d+\.1\.tmp$/);
    assert.ok(isTempName(left[0]!), 'doctor and the sweep count it as a temp file');
    assert.deepEqual(JSON.parse(fs.readFileSync(join(dir, left[0]!), 'utf8')), { n: 2 });
    replaceJson(path, { n: 3 });
    assert.deepEqual(JSON.parse(fs.readFileSync(path, 'utf8')), { n: 3 });
  });
});
