import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import {
  fsyncDir,
  mkdirSynced,
  renameSynced,
  unlinkSynced,
  writeFileSynced,
  writeFilesSynced,
} from '../../lib/fsx/durable.js';
import { followDurability } from '../support/durability.js';
import { isCode } from '../../lib/fsx/absent.js';
import { tempDir } from '../support/project.js';

/**
 * The files under `dir` this process holds open. Counting every fd would also count what other
 * tests' pending work opens or closes while a test awaits (a flake seen once).
 */
function openFilesUnder(dir: string): string[] {
  const real = fs.realpathSync(dir);
  const open: string[] = [];
  for (const fd of fs.readdirSync('/proc/self/fd')) {
    try {
      const target = fs.readlinkSync(`/proc/self/fd/${fd}`);
      if (target.startsWith(`${real}/`)) open.push(target);
    } catch {
      // closed since it was listed
    }
  }
  return open;
}

describe('lib/fsx/durable', () => {
  let dir: string;
  beforeEach(() => {
    dir = tempDir();
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('writes files with mode 0600; exclusive refuses an existing file, otherwise truncates', () => {
    const path = join(dir, 'f');
    writeFileSynced(path, 'long content', true);
    assert.equal(fs.statSync(path).mode & 0o777, 0o600);
    assert.throws(
      () => writeFileSynced(path, 'x', true),
      (e: unknown) => isCode(e, 'EEXIST'),
    );
    writeFileSynced(path, 'short', false);
    assert.equal(fs.readFileSync(path, 'utf8'), 'short');
  });

  it('writeFilesSynced writes every file, fsyncs each before it resolves, and closes them all', async () => {
    const paths = ['a', 'b', 'c'].map((n) => join(dir, n));
    fs.writeFileSync(paths[2]!, 'an older, longer content');
    const followed = followDurability();
    try {
      await writeFilesSynced([
        { path: paths[0]!, data: 'one', exclusive: true },
        { path: paths[1]!, data: Buffer.from('two'), exclusive: true },
        { path: paths[2]!, data: 'three', exclusive: false },
      ]);
    } finally {
      followed.restore();
    }
    assert.deepEqual(
      paths.map((p) => fs.readFileSync(p, 'utf8')),
      ['one', 'two', 'three'],
    );
    assert.deepEqual(
      [...followed.order].sort(),
      paths.map((p) => `fsync ${p}`),
    );
    assert.deepEqual(openFilesUnder(dir), [], 'no file left open');
  });

  it('writeFilesSynced rejects when one file cannot be written, and leaves none open', async () => {
    fs.writeFileSync(join(dir, 'taken'), 'kept');
    await assert.rejects(
      writeFilesSynced([
        { path: join(dir, 'first'), data: 'x', exclusive: true },
        { path: join(dir, 'taken'), data: 'y', exclusive: true },
      ]),
      (e: unknown) => isCode(e, 'EEXIST'),
    );
    assert.equal(fs.readFileSync(join(dir, 'taken'), 'utf8'), 'kept');
    assert.deepEqual(openFilesUnder(dir), [], 'no file left open');
  });

  it('never writes through a symlink', () => {
    const target = join(dir, 'target');
    fs.writeFileSync(target, 'original');
    fs.symlinkSync(target, join(dir, 'link'));
    assert.throws(
      () => writeFileSynced(join(dir, 'link'), 'evil', false),
      (e: unknown) => isCode(e, 'ELOOP'),
    );
    assert.equal(fs.readFileSync(target, 'utf8'), 'original');
  });

  it('creates missing directories with mode 0700, idempotently', () => {
    const deep = join(dir, 'a', 'b', 'c');
    mkdirSynced(deep);
    mkdirSynced(deep);
    for (const d of [join(dir, 'a'), join(dir, 'a', 'b'), deep])
      assert.equal(fs.statSync(d).mode & 0o777, 0o700);
  });

  it('renames across directories and unlinks, reporting whether anything was removed', () => {
    fs.mkdirSync(join(dir, 'x'));
    fs.writeFileSync(join(dir, 'f'), 'data');
    renameSynced(join(dir, 'f'), join(dir, 'x', 'g'));
    assert.equal(fs.readFileSync(join(dir, 'x', 'g'), 'utf8'), 'data');
    assert.equal(unlinkSynced(join(dir, 'x', 'g')), true);
    assert.equal(unlinkSynced(join(dir, 'x', 'g')), false);
    fsyncDir(dir);
    assert.throws(
      () => fsyncDir(join(dir, 'missing')),
      (e: unknown) => isCode(e, 'ENOENT'),
    );
  });
});
