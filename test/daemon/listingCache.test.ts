import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { ListingCache } from '../../lib/daemon/listingCache.js';
import { tempDir } from '../support/project.js';

describe('lib/daemon/listingCache', () => {
  let dir: string;
  beforeEach(() => {
    dir = tempDir();
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const old = new Date(Math.floor(Date.now() / 1000) * 1000 - 10_000);
  const age = () => fs.utimesSync(dir, old, old);

  it('re-reads a folder whose mtime is recent, so an addition in the same tick is never missed', () => {
    const cache = new ListingCache();
    assert.deepEqual(cache.itemNames(dir), []);
    fs.writeFileSync(join(dir, '50_a.handoff'), '');
    const stat = fs.statSync(dir);
    fs.writeFileSync(join(dir, '50_b.handoff'), '');
    fs.utimesSync(dir, stat.atime, stat.mtime);
    assert.deepEqual(cache.itemNames(dir), ['50_a.handoff', '50_b.handoff']);
  });

  it('reuses the listing of a folder unchanged for more than 2 s, and re-reads it once it changes', () => {
    const cache = new ListingCache();
    fs.writeFileSync(join(dir, '50_a.handoff'), '');
    age();
    assert.deepEqual(cache.itemNames(dir), ['50_a.handoff']);
    fs.renameSync(join(dir, '50_a.handoff'), join(dir, '50_b.handoff'));
    age();
    assert.deepEqual(
      cache.itemNames(dir),
      ['50_a.handoff'],
      'same old mtime: the cached listing stands',
    );
    fs.writeFileSync(join(dir, '50_c.handoff'), '');
    assert.deepEqual(cache.itemNames(dir), ['50_b.handoff', '50_c.handoff']);
    assert.deepEqual(cache.entryNames(dir).sort(), ['50_b.handoff', '50_c.handoff']);
    fs.rmSync(dir, { recursive: true });
    assert.deepEqual(cache.itemNames(dir), []);
    fs.mkdirSync(dir);
  });
});
