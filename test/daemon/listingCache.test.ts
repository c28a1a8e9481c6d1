import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { AUDIT_MS, ListingCache } from '../../lib/daemon/listingCache.js';
import { tempDir } from '../support/project.js';
import { spyOnStats } from '../support/fsSpy.js';

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

  describe('watched listings (the idle pass: no stat while its watch is quiet)', () => {
    let caches: ListingCache[];
    let spy: ReturnType<typeof spyOnStats>;
    let stats: string[];
    beforeEach(() => {
      caches = [];
      spy = spyOnStats(dir);
      stats = spy.paths;
    });
    afterEach(() => {
      spy.restore();
      for (const cache of caches) cache.close();
    });
    const newCache = () => {
      const cache = new ListingCache();
      caches.push(cache);
      return cache;
    };
    /** Calls `read` until it answers `expected` (the watch's event read by the loop), 5 s at most. */
    const eventually = async (read: () => string[], expected: string[]) => {
      const deadline = Date.now() + 5000;
      while (JSON.stringify(read()) !== JSON.stringify(expected)) {
        if (Date.now() > deadline) assert.deepEqual(read(), expected);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    };

    it('lists once, then answers without a stat until the folder changes or the audit is due', () => {
      const cache = newCache();
      fs.writeFileSync(join(dir, '50_a.handoff'), '');
      age();
      const now = Date.now();
      assert.deepEqual(cache.watchedItemNames(dir, now), ['50_a.handoff']);
      const first = stats.length;
      assert.ok(first > 0, 'the first listing stats the folder');
      for (let i = 1; i <= 5; i += 1) cache.watchedItemNames(dir, now + i * 1000);
      cache.watchedEntryNames(dir, now);
      assert.equal(stats.length - first + 1, 2, 'entry names are a listing of their own: one stat');
      const quiet = stats.length;
      cache.watchedEntryNames(dir, now + 1000);
      assert.equal(stats.length, quiet, 'a quiet watched folder is not stat-ed');
      cache.watchedItemNames(dir, now + AUDIT_MS);
      assert.equal(stats.length, quiet + 1, 'the audit stats it');
      cache.itemNames(dir, now + AUDIT_MS + 1);
      assert.equal(stats.length, quiet + 2, 'the plain listing keeps the stat rule');
    });

    it('sees an addition once its watch reports it, and a folder replaced under its watch', async () => {
      const cache = newCache();
      age();
      assert.deepEqual(cache.watchedItemNames(dir), []);
      fs.writeFileSync(join(dir, '50_b.handoff'), '');
      await eventually(() => cache.watchedItemNames(dir), ['50_b.handoff']);
      fs.rmSync(dir, { recursive: true });
      fs.mkdirSync(dir);
      fs.writeFileSync(join(dir, '50_c.handoff'), '');
      age();
      await eventually(() => cache.watchedItemNames(dir), ['50_c.handoff']);
      fs.writeFileSync(join(dir, '50_d.handoff'), '');
      await eventually(() => cache.watchedItemNames(dir), ['50_c.handoff', '50_d.handoff']);
    });

    it('forget drops a listing the daemon changed itself before its watch could say so', () => {
      const cache = newCache();
      fs.writeFileSync(join(dir, '50_a.handoff'), '');
      age();
      const now = Date.now();
      assert.deepEqual(cache.watchedItemNames(dir, now), ['50_a.handoff']);
      fs.rmSync(join(dir, '50_a.handoff'));
      cache.forget(dir);
      assert.deepEqual(cache.watchedItemNames(dir, now), [], 'no event read yet, yet not stale');
    });
  });
});
