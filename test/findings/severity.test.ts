// lib/findings/severity: the one vocabulary of both stages, the mapping, what blocks.
import assert from 'node:assert/strict';
import {
  isBlockingSeverity,
  mappedWordOf,
  SEVERITY_WORDS,
  severityOf,
} from '../../lib/findings/severity.js';

describe('lib/findings/severity', () => {
  it('exactly: the four words and the four mapped ones; nothing else', () => {
    const words: [string, string][] = [
      ['Critical', 'Critical'],
      ['Important', 'Important'],
      ['Minor', 'Minor'],
      ['Nit', 'Nit'],
      ['CRITICAL', 'Critical'],
      ['HIGH', 'Important'],
      ['MEDIUM', 'Minor'],
      ['LOW', 'Nit'],
    ];
    for (const [word, severity] of words) assert.equal(severityOf(word), severity, word);
    for (const word of ['critical', 'High', ' Nit', 'Major', '', 'toString', '__proto__'])
      assert.equal(severityOf(word), undefined, word);
  });

  it('in any case, trimmed: the same words; nothing else', () => {
    for (const [word, severity] of [
      ['critical', 'Critical'],
      [' high ', 'Important'],
      ['Medium', 'Minor'],
      ['NIT', 'Nit'],
      ['important', 'Important'],
    ] as const) {
      assert.equal(severityOf(word, true), severity, word);
    }
    for (const word of ['major', 'blocker', '', 'constructor'])
      assert.equal(severityOf(word, true), undefined, word);
  });

  it('Critical and Important block; the mapped word of each', () => {
    assert.deepEqual(SEVERITY_WORDS.map(isBlockingSeverity), [true, true, false, false]);
    assert.deepEqual(SEVERITY_WORDS.map(mappedWordOf), ['CRITICAL', 'HIGH', 'MEDIUM', 'LOW']);
  });
});
