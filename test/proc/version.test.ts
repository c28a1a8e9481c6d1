import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { batonVersion } from '../../lib/proc/version.js';

describe('lib/proc/version', () => {
  it('run from source, is the version in package.json', () => {
    const pkg = JSON.parse(fs.readFileSync('package.json', 'utf8')) as { version: string };
    assert.match(pkg.version, /^\d+\.\d+\.\d+/);
    assert.equal(batonVersion(), pkg.version);
  });
});
