import assert from 'node:assert/strict';
import { isValidRoleName } from '../../lib/handoff/roleName.js';

describe('lib/handoff/roleName', () => {
  it('accepts ^[A-Za-z][A-Za-z0-9-]*$ names up to 32 characters', () => {
    for (const name of ['coder', 'QA', 'a', 'Reviewer-2', 'x-', 'a'.repeat(32), 'A1-b2-C3']) {
      assert.equal(isValidRoleName(name), true, name);
    }
  });

  it('refuses empty, too long, leading digit or dash, underscores, slashes, dots, spaces and non-ASCII letters', () => {
    for (const name of [
      '',
      'a'.repeat(33),
      '1coder',
      '-coder',
      'a_b',
      'a/b',
      '..',
      'a.b',
      'a b',
      ' coder',
      'coder\n',
      'rôle',
      'ｃoder',
    ]) {
      assert.equal(isValidRoleName(name), false, JSON.stringify(name));
    }
  });
});
