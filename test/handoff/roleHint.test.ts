import assert from 'node:assert/strict';
import { closestRole, knownRolesHint } from '../../lib/handoff/roleHint.js';

const KNOWN = ['coder', 'reviewer', 'QA', 'architect'];

describe('lib/handoff/roleHint', () => {
  it('closestRole: the same name in another case first', () => {
    assert.equal(closestRole('Coder', KNOWN), 'coder');
    assert.equal(closestRole('qa', KNOWN), 'QA');
    assert.equal(closestRole('REVIEWER', KNOWN), 'reviewer');
  });

  it('closestRole: else a small edit distance (1 up to 5 characters, 2 beyond, an adjacent swap is one edit)', () => {
    assert.equal(closestRole('reviwer', KNOWN), 'reviewer');
    assert.equal(closestRole('Reveiwer', KNOWN), 'reviewer');
    assert.equal(closestRole('codr', KNOWN), 'coder');
    assert.equal(closestRole('cdoer', KNOWN), 'coder');
    assert.equal(closestRole('archtect', KNOWN), 'architect');
    assert.equal(closestRole('arkitekt', KNOWN), undefined, '3 edits');
    assert.equal(closestRole('cod', KNOWN), undefined, '2 edits on a short name');
    assert.equal(closestRole('QB', KNOWN), undefined, 'no guesses for 2 characters');
    assert.equal(closestRole('ghost', KNOWN), undefined);
    assert.equal(closestRole('coder', []), undefined);
  });

  it('closestRole: the nearest wins, the first in roles.tsv order on a tie', () => {
    assert.equal(closestRole('coders', ['codes', 'coder']), 'codes');
    assert.equal(closestRole('cod3r', ['coder', 'cod3rs']), 'coder');
  });

  it('knownRolesHint: the known roles in order, and a guess per unknown name that has one', () => {
    assert.equal(
      knownRolesHint(['Coder'], KNOWN),
      "Known roles: coder, reviewer, QA, architect. Did you mean 'coder'?",
    );
    assert.equal(knownRolesHint(['ghost'], KNOWN), 'Known roles: coder, reviewer, QA, architect.');
    assert.equal(
      knownRolesHint(['Coder', 'ghost', 'reviwer'], KNOWN),
      "Known roles: coder, reviewer, QA, architect. Did you mean 'coder' for 'Coder'? Did you mean 'reviewer' for 'reviwer'?",
    );
    assert.equal(knownRolesHint(['coder'], []), 'Known roles: none.');
  });
});
