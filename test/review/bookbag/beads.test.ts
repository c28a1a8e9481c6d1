// lib/review/beads: bead names are `<student>-<domain>-<rand8>` and only safe file names
// (`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`) are ever accepted; anything else fails as invalid.
import assert from 'node:assert/strict';
import { CommandFailure } from '../../../lib/fsx/commandFailure.js';
import {
  isSafeBeadName,
  newBead,
  newRand8,
  requireBeadName,
} from '../../../lib/review/bookbag/beads.js';

function invalid(pattern: RegExp) {
  return (err: unknown) =>
    err instanceof CommandFailure && err.kind === 'invalid' && pattern.test(err.message);
}

describe('lib/review/bookbag/beads', () => {
  it('isSafeBeadName: letters, digits, . _ -, starting with a letter or digit, at most 128', () => {
    for (const name of ['a', '0', 'coder-general-0a1b2c3d', 'A.b_c-d', 'x'.repeat(128)])
      assert.equal(isSafeBeadName(name), true, name);
    for (const name of [
      '',
      '.hidden',
      '-x',
      '_x',
      '../x',
      'a/b',
      'a b',
      'a\nb',
      'abc\n',
      'é',
      'x'.repeat(129),
    ])
      assert.equal(isSafeBeadName(name), false, name);
  });

  it('requireBeadName returns a safe name and refuses any other as invalid, naming it escaped', () => {
    assert.equal(requireBeadName('coder-general-0a1b2c3d'), 'coder-general-0a1b2c3d');
    assert.throws(() => requireBeadName('../x'), invalid(/invalid bead name '\.\.\/x'/));
    assert.throws(() => requireBeadName('a\u001bb'), invalid(/invalid bead name 'a\\u001bb'/));
  });

  it('newBead: <student>-<domain>-<8 lowercase hex>, a new one each time', () => {
    const beads = new Set(Array.from({ length: 50 }, () => newBead('coder', 'parser.v2')));
    assert.equal(beads.size, 50);
    for (const bead of beads) assert.match(bead, /^coder-parser\.v2-[0-9a-f]{8}$/);
  });

  it('newBead takes the rand8 its caller drew (a leaf names its worktree with it first); newRand8 draws 8 lowercase hex', () => {
    const rand8 = newRand8();
    assert.match(rand8, /^[0-9a-f]{8}$/);
    assert.equal(newBead('coder', 'docs', rand8), `coder-docs-${rand8}`);
    assert.throws(() => newBead('coder', 'docs', '/../x'), invalid(/invalid bead name/));
  });

  it('newBead refuses a domain or student that would not make a safe name', () => {
    for (const domain of ['a/b', '', 'a b', '../x'])
      assert.throws(() => newBead('coder', domain), invalid(/invalid domain/), domain);
    assert.throws(() => newBead('', 'general'), invalid(/invalid bead name/));
    assert.throws(() => newBead('x'.repeat(120), 'general'), invalid(/invalid bead name/));
  });
});
