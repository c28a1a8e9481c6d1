import assert from 'node:assert/strict';
import yaml from 'js-yaml';
import { isPlainPair, parsePlainHeader, plainLine } from '../../lib/queue/plainHeader.js';

function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const dumpOf = (key: string, value: string) =>
  yaml.dump({ [key]: value }, { schema: yaml.FAILSAFE_SCHEMA, lineWidth: -1, noRefs: true });
const loadOf = (text: string) => yaml.load(text, { schema: yaml.FAILSAFE_SCHEMA }) as unknown;

/** A header exactly as swarm_handoff and handoffd write it. */
const TYPICAL = [
  'id: 20261130T155751Z_000003_coder',
  'from: coder',
  'to: reviewer,QA',
  'recipient: QA',
  'priority: 50',
  'type: git_handoff',
  'commit: 3f2a9c1e0b7d',
  'message: review the parser change (see notes/parser.md)',
  'created_at: 2026-11-30T15:57:51.123Z',
  'enqueued_at: 2026-11-30T15:57:51.130Z',
].join('\n');

describe('lib/queue/plainHeader', () => {
  it('parses the headers Baton writes without js-yaml, to what js-yaml reads', () => {
    const plain = parsePlainHeader(`${TYPICAL}\n`);
    assert.ok(plain, 'a typical header takes the fast path');
    assert.deepEqual({ ...plain }, loadOf(TYPICAL));
    assert.equal(plain.message, 'review the parser change (see notes/parser.md)');
  });

  it('writes each typical pair as js-yaml would', () => {
    for (const line of TYPICAL.split('\n')) {
      const [key, value] = [line.slice(0, line.indexOf(': ')), line.slice(line.indexOf(': ') + 2)];
      assert.equal(plainLine(key, value), dumpOf(key, value), line);
    }
  });

  it('declines what YAML would read or write differently', () => {
    for (const value of [
      'y',
      'No',
      'ON',
      'off',
      'a: b',
      'a #b',
      'a:',
      '-x',
      '@x',
      '=',
      'a b ',
      ' a',
      "it's",
      '"q"',
      'a\tb',
      'é',
      '',
      '[x]',
      '{x}',
      '&a',
      '*a',
      '!t',
      '|',
      '>',
      '%x',
      '`x',
      '~',
    ]) {
      assert.equal(isPlainPair('k', value), false, JSON.stringify(value));
      assert.equal(plainLine('k', value), undefined, JSON.stringify(value));
    }
    for (const key of ['', 'a b', '1x', 'k:', '<<', '__proto__', 'ключ'])
      assert.equal(isPlainPair(key, 'v'), false, JSON.stringify(key));
  });

  it('declines a whole header with any line it cannot take, or a repeated key', () => {
    assert.equal(parsePlainHeader('id: x\nmessage: "quoted"\n'), undefined);
    assert.equal(parsePlainHeader('id: x\nid: y\n'), undefined);
    assert.equal(parsePlainHeader('id: x\n\n'), undefined);
    assert.equal(parsePlainHeader('id: x\r\nfrom: y\n'), undefined);
    assert.equal(parsePlainHeader('id:x\n'), undefined);
    assert.equal(parsePlainHeader('  id: x\n'), undefined);
    assert.deepEqual(parsePlainHeader(''), {});
  });

  it('agrees with js-yaml in both directions on 20,000 random values', () => {
    const rand = seeded(20261130);
    const alphabet = [
      'a',
      'Z',
      'y',
      'n',
      'o',
      'f',
      'e',
      '0',
      '9',
      ' ',
      ' ',
      ':',
      '-',
      '_',
      '.',
      ',',
      ';',
      '/',
      '(',
      ')',
      '+',
      '=',
      '@',
      '#',
      '"',
      "'",
      '\\',
      '\t',
      '[',
      ']',
      '{',
      '}',
      '&',
      '*',
      '!',
      '|',
      '>',
      '%',
      '`',
      '~',
      '?',
      'é',
    ];
    let taken = 0;
    for (let n = 0; n < 20_000; n++) {
      const value = Array.from(
        { length: 1 + Math.floor(rand() * 6) },
        () => alphabet[Math.floor(rand() * alphabet.length)],
      ).join('');
      const line = plainLine('message', value);
      if (line === undefined) continue;
      taken += 1;
      assert.equal(line, dumpOf('message', value), `dump of ${JSON.stringify(value)}`);
      assert.deepEqual(
        { ...parsePlainHeader(line) },
        loadOf(line),
        `load of ${JSON.stringify(line)}`,
      );
    }
    assert.ok(taken > 1000, `only ${taken} values took the fast path: the check says nothing`);
  });
});
