import assert from 'node:assert/strict';
import { printable } from '../../lib/fsx/printable.js';

describe('lib/fsx/printable', () => {
  it('escapes control characters (C0, DEL, C1) JSON-style, with short forms for \\n, \\r and \\t', () => {
    assert.equal(printable('a\x1b]0;title\x07\x1b[2Jb'), 'a\\u001b]0;title\\u0007\\u001b[2Jb');
    assert.equal(printable('one\ntwo\r\tthree\x00'), 'one\\ntwo\\r\\tthree\\u0000');
    assert.equal(printable('\x7f\x85\x9b'), '\\u007f\\u0085\\u009b');
  });

  it('escapes invisible characters: bidi overrides, zero-width marks, line separators, private use, lone surrogates', () => {
    assert.equal(printable('exe\u202etxt.handoff'), 'exe\\u202etxt.handoff');
    assert.equal(printable('a\u200bb\ufeffc\u2028d\u2029e'), 'a\\u200bb\\ufeffc\\u2028d\\u2029e');
    assert.equal(printable('\ue000\ud800x'), '\\ue000\\ud800x');
    assert.equal(
      printable('tag\u{E0041}'),
      'tag\\udb40\\udc41',
      'an astral format character as its surrogate pair',
    );
  });

  it('keeps printable text as it is: ASCII, accents, CJK, emoji, spaces and backslashes', () => {
    for (const text of [
      '/r/.swarmforge/handoffs/QA/inbox/new/50_x.handoff',
      'é ü ñ 日本語 😀',
      'no\u00a0break',
      'C:\\path\\u001b',
      '',
    ]) {
      assert.equal(printable(text), text);
    }
  });

  it('every ASCII character: space to tilde kept as it is (the fast path), every other one escaped', () => {
    for (let code = 0; code < 0x80; code++) {
      const char = String.fromCharCode(code);
      const kept = code >= 0x20 && code <= 0x7e;
      assert.equal(printable(`a${char}b`) === `a${char}b`, kept, `0x${code.toString(16)}`);
    }
    assert.equal(
      printable('plain ascii, then\u00a0no-break and \u202e'),
      'plain ascii, then\u00a0no-break and \\u202e',
    );
  });

  it('is idempotent, and inside a JSON string literal decodes back to the original text', () => {
    const hostile = 'x\x1b[31m\n\u202e"\\\x7f\u2028\ud800\u{E0041}é';
    assert.equal(printable(printable(hostile)), printable(hostile));
    const json = printable(JSON.stringify(hostile));
    assert.equal(json, printable(json), 'nothing non-printable is left');
    assert.equal(JSON.parse(json), hostile);
  });
});
