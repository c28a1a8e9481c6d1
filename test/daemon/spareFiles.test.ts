import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { SpareFiles } from '../../lib/daemon/spareFiles.js';
import { tempDir } from '../support/project.js';

describe('lib/daemon/spareFiles', () => {
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
});
