import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { FolderWatchers } from '../../lib/daemon/folderWatchers.js';
import { waitFor } from '../support/daemon.js';
import { tempDir } from '../support/project.js';

describe('lib/daemon/folderWatchers', () => {
  let dir: string;
  let watchers: FolderWatchers;
  let changes: number;
  beforeEach(() => {
    dir = tempDir();
    changes = 0;
    watchers = new FolderWatchers(() => (changes += 1));
  });
  afterEach(() => {
    watchers.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('calls back when an entry of a watched folder is added or renamed; a folder is watched once', async () => {
    watchers.watch(dir);
    watchers.watch(dir);
    assert.deepEqual(watchers.folders(), [dir]);
    fs.writeFileSync(join(dir, 'a.tmp'), 'x');
    await waitFor('the first change', () => changes > 0);
    const before = changes;
    fs.renameSync(join(dir, 'a.tmp'), join(dir, 'a.handoff'));
    await waitFor('the rename', () => changes > before);
  });

  it('with `only`, reports only changes to that entry name', async () => {
    const other = join(dir, 'other');
    fs.mkdirSync(other);
    const seen: string[] = [];
    const marked = new FolderWatchers(() => seen.push('stop'));
    try {
      marked.watch(dir, 'stop');
      watchers.watch(other);
      fs.writeFileSync(join(dir, 'noise'), '');
      fs.writeFileSync(join(other, 'signal'), '');
      await waitFor('the unfiltered watcher to see its change', () => changes > 0);
      assert.deepEqual(seen, [], 'a change to another name is not reported');
      fs.writeFileSync(join(dir, 'stop'), '');
      await waitFor('the stop entry', () => seen.length > 0);
    } finally {
      marked.close();
    }
  });

  it('skips a folder that cannot be watched (the periodic pass covers it) and closes every watcher', async () => {
    watchers.watch(join(dir, 'missing'));
    assert.deepEqual(watchers.folders(), []);
    watchers.watch(dir);
    watchers.close();
    assert.deepEqual(watchers.folders(), []);
    // A live watcher on the same folder is the barrier: once it has seen the change, a
    // closed watcher would have seen it too.
    let live = 0;
    const barrier = new FolderWatchers(() => (live += 1));
    try {
      barrier.watch(dir);
      fs.writeFileSync(join(dir, 'after-close'), '');
      await waitFor('the live watcher', () => live > 0);
      assert.equal(changes, 0);
    } finally {
      barrier.close();
    }
  });
});
