// The wake-up hold of a starting agent (runtime.md §12.1): it holds until its `until` or its
// release, and a missing or damaged file holds nothing (a hold only ever delays a wake-up).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import {
  holdWakeups,
  launchHoldPathOf,
  releaseAllWakeups,
  releaseWakeups,
  wakeupsHeld,
} from '../../lib/project/launchHold.js';
import { tempDir } from '../support/project.js';

describe('lib/project/launchHold', () => {
  let root: string;
  beforeEach(() => {
    root = tempDir();
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  it('holds a role until its time or its release; other roles are not held', () => {
    holdWakeups(root, 'coder', 10_000);
    assert.equal(wakeupsHeld(root, 'coder', 9_999), true);
    assert.equal(wakeupsHeld(root, 'coder', 10_000), false, 'an expired hold holds nothing');
    assert.equal(wakeupsHeld(root, 'QA', 0), false);
    releaseWakeups(root, 'coder');
    assert.equal(wakeupsHeld(root, 'coder', 0), false);
    releaseWakeups(root, 'coder');
  });

  it('a malformed or unreadable hold file holds nothing', () => {
    holdWakeups(root, 'coder', 10_000);
    for (const text of ['', '{', 'null', '{"until": 5}', '{"until": "tomorrow"}']) {
      fs.writeFileSync(launchHoldPathOf(root, 'coder'), text);
      assert.equal(wakeupsHeld(root, 'coder', 0), false, text);
    }
  });

  it('releaseAllWakeups lets every held role go', () => {
    holdWakeups(root, 'a', 10_000);
    holdWakeups(root, 'b', 10_000);
    releaseAllWakeups(root);
    assert.equal(wakeupsHeld(root, 'a', 0) || wakeupsHeld(root, 'b', 0), false);
  });
});
