// lib/review/bookbagText: the human summary of a bookbag (one fact per line, each finding
// with its lens and severity) and the one-line report after a verdict, with text that came
// from files escaped so that it cannot add lines or drive the terminal.
import assert from 'node:assert/strict';
import { bookbagText, verdictLine } from '../../../lib/review/bookbag/bookbagText.js';
import { BEAD, bookbagIn, finding, submission } from '../../support/bookbags.js';

describe('lib/review/bookbag/bookbagText', () => {
  it('summarises a bookbag waiting for both lenses', () => {
    assert.equal(
      bookbagText(bookbagIn('WRITTEN', {}, BEAD, submission({ difficulty: 'hard' }))),
      [
        `BEAD: ${BEAD}`,
        'STATE: WRITTEN',
        'TASK: Add the parser',
        'STUDENT: coder  DOMAIN: general  DIFFICULTY: hard',
        'CTO: (pending) from rev-cto',
        'COO: (pending) from rev-coo',
        'ACCEPTED: no',
        'FINDINGS: 0',
        '',
      ].join('\n'),
    );
  });

  it('gives each verdict with its score and reviewer, acceptance, and every finding', () => {
    const bag = bookbagIn('SCORED', {
      cto: [finding('HIGH', 'auth', 'token leaks')],
      coo: [finding('LOW', 'docs', 'typo')],
    });
    assert.equal(
      bookbagText(bag),
      [
        `BEAD: ${BEAD}`,
        'STATE: SCORED',
        'TASK: Add the parser',
        'STUDENT: coder  DOMAIN: general  DIFFICULTY: medium',
        'CTO: FAIL score 88 by rev-cto',
        'COO: PASS score 97 by rev-coo',
        'ACCEPTED: no',
        'FINDINGS: 2',
        '- [cto HIGH] auth: token leaks',
        '- [coo LOW] docs: typo',
        '',
      ].join('\n'),
    );
    assert.match(bookbagText(bookbagIn('REVIEWED')), /\nACCEPTED: yes\n/);
  });

  it('escapes control characters in the task, the reviewer and the findings', () => {
    const bag = bookbagIn(
      'CTO_REVIEWED',
      { cto: [finding('LOW', 'a\nb', 'c\u001b[2Jd')] },
      BEAD,
      submission({ task: 'one\ntwo\u202e' }),
    );
    const text = bookbagText({ ...bag, cto_reviewer: 'rev\rcto' });
    assert.equal(text.split('\n').length, 10, 'nine lines and the final newline');
    assert.match(text, /^TASK: one\\ntwo\\u202e$/m);
    assert.match(text, /^CTO: PASS score 97 by rev\\rcto$/m);
    assert.match(text, /^- \[cto LOW\] a\\nb: c\\u001b\[2Jd$/m);
  });

  it('verdictLine: the lens, its verdict and score, the state, and acceptance once REVIEWED', () => {
    assert.equal(
      verdictLine(bookbagIn('CTO_REVIEWED', { cto: [finding('MEDIUM')] }), 'cto'),
      `VERDICT: ${BEAD} cto PASS score 94; state CTO_REVIEWED\n`,
    );
    assert.equal(
      verdictLine(bookbagIn('REVIEWED'), 'coo'),
      `VERDICT: ${BEAD} coo PASS score 100; state REVIEWED, accepted yes\n`,
    );
    assert.equal(
      verdictLine(bookbagIn('REVIEWED', { coo: [finding('CRITICAL')] }), 'coo'),
      `VERDICT: ${BEAD} coo FAIL score 75; state REVIEWED, accepted no\n`,
    );
  });
});
