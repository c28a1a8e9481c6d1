import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { writeFileSynced } from '../../lib/fsx/durable.js';
import { SpareFiles, useSpareFiles } from '../../lib/fsx/spareFiles.js';
import { tempDir } from '../support/project.js';

describe('lib/fsx/spareFiles', () => {
  let dir: string;
  beforeEach(() => {
    dir = tempDir();
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('makes empty 0600 files up to its size, and only the missing ones on the next refill', () => {
    const spares = new SpareFiles(dir, 3);
    spares.refill();
    assert.equal(spares.count, 3);
    const made = fs.readdirSync(dir).sort();
    assert.deepEqual(made, ['spare.1', 'spare.2', 'spare.3']);
    for (const name of made) {
      const stat = fs.statSync(join(dir, name));
      assert.equal(stat.size, 0);
      assert.equal(stat.mode & 0o777, 0o600);
    }
    assert.equal(spares.placeAt(join(dir, 'copy.tmp')), true);
    spares.refill();
    assert.equal(spares.count, 3);
    assert.equal(fs.readdirSync(dir).length, 4, 'one new spare beside the placed one');
  });

  it('places a spare at a path by renaming it, the same file; false once none is ready', () => {
    const spares = new SpareFiles(dir, 1);
    spares.refill();
    const ino = fs.statSync(join(dir, 'spare.1')).ino;
    const target = join(dir, 'reviewer.x.handoff');
    assert.equal(spares.placeAt(target), true);
    assert.equal(fs.statSync(target).ino, ino);
    assert.equal(spares.placeAt(join(dir, 'other')), false);
    assert.equal(fs.existsSync(join(dir, 'other')), false);
  });

  it('a spare removed meanwhile (the folder emptied) is not placed; a missing folder makes none', () => {
    const spares = new SpareFiles(dir, 1);
    spares.refill();
    fs.rmSync(join(dir, 'spare.1'));
    assert.equal(spares.placeAt(join(dir, 'copy')), false);
    const gone = new SpareFiles(join(dir, 'missing'), 2);
    gone.refill();
    assert.equal(gone.count, 0);
  });

  describe('writeFileSynced with spares in use', () => {
    afterEach(() => useSpareFiles(undefined));

    it('a temp of mode 0600 is written into a spare (the same inode), anywhere on the file system', () => {
      const spares = new SpareFiles(join(dir, 'spares'), 2);
      fs.mkdirSync(join(dir, 'spares'));
      fs.mkdirSync(join(dir, 'elsewhere'));
      spares.refill();
      const inodes = ['spare.1', 'spare.2'].map((n) => fs.statSync(join(dir, 'spares', n)).ino);
      useSpareFiles(spares);
      const temp = join(dir, 'elsewhere', 'state.json.tmp');
      fs.writeFileSync(temp, 'a longer leftover of an interrupted write');
      writeFileSynced(temp, 'new', false);
      assert.ok(inodes.includes(fs.statSync(temp).ino), 'not written into a spare');
      assert.equal(fs.readFileSync(temp, 'utf8'), 'new');
      assert.equal(fs.statSync(temp).mode & 0o777, 0o600);
      assert.equal(spares.count, 1);
    });

    it('an exclusive write takes a spare only for a free name; an existing one is refused as before', () => {
      const spares = new SpareFiles(dir, 1);
      spares.refill();
      const ino = fs.statSync(join(dir, 'spare.1')).ino;
      useSpareFiles(spares);
      fs.writeFileSync(join(dir, 'taken'), 'keep');
      assert.throws(() => writeFileSynced(join(dir, 'taken'), 'x', true), /EEXIST/);
      assert.equal(fs.readFileSync(join(dir, 'taken'), 'utf8'), 'keep');
      assert.equal(spares.count, 1, 'the spare is kept for the next write');
      writeFileSynced(join(dir, 'item'), 'x', true);
      assert.equal(fs.statSync(join(dir, 'item')).ino, ino);
      assert.equal(fs.statSync(join(dir, 'item')).nlink, 1, 'the spare name is gone');
      assert.equal(fs.readFileSync(join(dir, 'item'), 'utf8'), 'x');
    });

    it('another mode, or no spare left: the file is created as before', () => {
      const spares = new SpareFiles(dir, 1);
      spares.refill();
      useSpareFiles(spares);
      writeFileSynced(join(dir, 'shared.tmp'), 'x', false, 0o640);
      assert.equal(spares.count, 1, 'a spare was used for another mode');
      writeFileSynced(join(dir, 'a.tmp'), 'a', false);
      writeFileSynced(join(dir, 'b.tmp'), 'b', false);
      assert.equal(fs.readFileSync(join(dir, 'b.tmp'), 'utf8'), 'b');
      assert.equal(spares.count, 0);
    });
  });
});
