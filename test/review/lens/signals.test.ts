// lib/review/signals: `<signals>/<bead>.ready` written durably (folder created 0700, file
// 0600 through a temp name) and removed, a missing one being no error.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { reviewPathsOf } from '../../../lib/project/layout.js';
import { removeSignal, signalPathOf, writeSignal } from '../../../lib/review/lens/signals.js';
import { at, bareRootForEachTest, BEAD } from '../../support/bookbags.js';

describe('lib/review/lens/signals', () => {
  const root = bareRootForEachTest();

  const paths = () => reviewPathsOf(root(), {});

  it('signalPathOf is <signals>/<bead>.ready, SIGNAL_DIR overriding the folder', () => {
    assert.equal(
      signalPathOf(paths(), BEAD),
      join(root(), '.swarmforge', 'reviews', 'signals', `${BEAD}.ready`),
    );
    assert.equal(
      signalPathOf(reviewPathsOf(root(), { SIGNAL_DIR: 'sig' }), BEAD),
      join(root(), 'sig', `${BEAD}.ready`),
    );
  });

  it('writes the bead and the time, mode 0600 in a new 0700 folder, leaving no temp file', () => {
    writeSignal(paths(), BEAD, at(3));
    const path = signalPathOf(paths(), BEAD);
    assert.equal(fs.readFileSync(path, 'utf8'), `${BEAD} ${at(3).toISOString()}\n`);
    assert.equal(fs.statSync(path).mode & 0o777, 0o600);
    assert.equal(fs.statSync(paths().signals).mode & 0o777, 0o700);
    assert.deepEqual(fs.readdirSync(paths().signals), [`${BEAD}.ready`]);
  });

  it('writes a signal again over an older one', () => {
    writeSignal(paths(), BEAD, at(3));
    writeSignal(paths(), BEAD, at(4));
    assert.equal(
      fs.readFileSync(signalPathOf(paths(), BEAD), 'utf8'),
      `${BEAD} ${at(4).toISOString()}\n`,
    );
  });

  it('removes the signal, and removing a missing one is no error', () => {
    writeSignal(paths(), BEAD, at(3));
    writeSignal(paths(), 'other-bead', at(3));
    removeSignal(paths(), BEAD);
    assert.deepEqual(fs.readdirSync(paths().signals), ['other-bead.ready']);
    removeSignal(paths(), BEAD);
    removeSignal(reviewPathsOf(join(root(), 'nowhere'), {}), BEAD);
  });
});
