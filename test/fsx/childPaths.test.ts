// lib/fsx/childPaths: the same path as path.join for every folder path, normalized or not.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { childPathOf } from '../../lib/fsx/childPaths.js';

const FOLDERS = [
  '/work/project/.swarmforge/handoffs/coder',
  '/',
  '//',
  '',
  '.',
  './',
  '..',
  '../..',
  'a',
  'a/',
  'a//b///',
  '/a/./b/../c',
  'a/..',
  'a/../..',
  '/..',
  '/tmp/x y/ünï',
];
const NAMES = ['outbox', 'outbox/tmp', 'locks/inbox', 'workflow.json', 'a.b', '...'];

/** A random folder path over segments that normalizing changes (`.`, `..`, empty). */
function randomFolder(): string {
  const parts = ['', '.', '..', 'a', 'bc', 'd.e'];
  const length = Math.floor(Math.random() * 6);
  const segments = Array.from({ length }, () => parts[Math.floor(Math.random() * parts.length)]);
  return (Math.random() < 0.5 ? '/' : '') + segments.join('/') + (Math.random() < 0.3 ? '/' : '');
}

describe('lib/fsx/childPaths', () => {
  it('gives what path.join gives, for absolute, relative, root, empty and unnormalized folders', () => {
    for (const dir of FOLDERS) {
      const at = childPathOf(dir);
      for (const name of NAMES) assert.equal(at(name), join(dir, name), `${dir} + ${name}`);
    }
  });

  it('agrees with path.join on 5,000 random folder paths', () => {
    for (let i = 0; i < 5_000; i++) {
      const dir = randomFolder();
      for (const name of NAMES) assert.equal(childPathOf(dir)(name), join(dir, name), dir);
    }
  });
});
