import assert from 'node:assert/strict';
import {
  EnvelopeError,
  orderedHeaderNames,
  parseEnvelope,
  serializeEnvelope,
} from '../../lib/queue/envelope.js';
import { fixtureBytes } from '../support/fixtures.js';

function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

describe('lib/queue/envelope', () => {
  it('keeps YAML-looking values as strings (FAILSAFE: no implicit types)', async () => {
    const headers = {
      id: 'x',
      priority: '00',
      a: '0e12',
      b: 'true',
      c: 'null',
      d: '~',
      e: '2026-06-15T14:05:31.123Z',
      f: '0x1F',
      g: '1_000',
      h: '- item',
      i: "it's: here",
      j: '#not a comment',
    };
    const bytes = await serializeEnvelope(headers, Buffer.from('body'));
    assert.match(bytes.toString(), /^---\nid: x\npriority: 00\n/);
    assert.deepEqual((await parseEnvelope(bytes)).headers, headers);
  });

  it('round-trips random unicode and control characters in values, and leaves the body bytes alone', async () => {
    const rand = seeded(7);
    const alphabet = [
      'a',
      'Z',
      '0',
      ' ',
      ':',
      '-',
      '#',
      '"',
      "'",
      '\\',
      '\t',
      '\r',
      '\0',
      '\u0007',
      'é',
      '漢',
      '😀',
      '\u200f',
      '\u0301',
      '[',
      '{',
      '&',
      '*',
      '!',
      '|',
      '>',
      '%',
      '@',
      '`',
      ',',
    ];
    for (let n = 0; n < 300; n++) {
      const value = Array.from(
        { length: 1 + Math.floor(rand() * 30) },
        () => alphabet[Math.floor(rand() * alphabet.length)],
      ).join('');
      const body = Buffer.from(
        Array.from({ length: Math.floor(rand() * 50) }, () => Math.floor(rand() * 256)),
      );
      const bytes = await serializeEnvelope({ id: 'i', message: value }, body);
      const parsed = await parseEnvelope(bytes);
      assert.equal(parsed.headers.message, value, JSON.stringify(value));
      assert.ok(parsed.body.equals(body));
    }
  });

  it('writes headers in protocol order, then the others by name, leaving out empty values', async () => {
    const headers = {
      zeta: '1',
      completed_at: 'c',
      id: 'i',
      alpha: '2',
      from: 'f',
      message: '',
      to: 't',
      recipient: 'r',
    };
    assert.deepEqual(orderedHeaderNames(headers), [
      'id',
      'from',
      'to',
      'recipient',
      'completed_at',
      'alpha',
      'zeta',
    ]);
    const text = (await serializeEnvelope(headers, Buffer.alloc(0))).toString();
    assert.equal(
      text,
      '---\nid: i\nfrom: f\nto: t\nrecipient: r\ncompleted_at: c\nalpha: 2\nzeta: 1\n---\n',
    );
  });

  it('splits the body at the closing fence, byte-exact (CRLF, trailing blank lines, invalid UTF-8)', async () => {
    const body = Buffer.concat([
      Buffer.from('a\r\n\r\n---\r\nb\n\n\n'),
      Buffer.from([0xff, 0xfe, 0x00]),
    ]);
    const bytes = Buffer.concat([Buffer.from('---\r\nid: x\r\nfrom: y\r\n---\r\n'), body]);
    const env = await parseEnvelope(bytes);
    assert.deepEqual(env.headers, { id: 'x', from: 'y' });
    assert.ok(env.body.equals(body));
    assert.equal(env.legacy, false);
  });

  it('reads the legacy format: key: value lines, a blank line, the body', async () => {
    const env = await parseEnvelope(Buffer.from('id: 1\nfrom: coder\nmessage: a: b\n\nbody\n\n'));
    assert.deepEqual(env.headers, { id: '1', from: 'coder', message: 'a: b' });
    assert.equal(env.body.toString(), 'body\n\n');
    assert.equal(env.legacy, true);
    const noBody = await parseEnvelope(Buffer.from('id: 1\n'));
    assert.equal(noBody.body.length, 0);
  });

  it('reads a git_handoff as the reference scripts wrote it, every value a string, the body without its final newline', async () => {
    const env = await parseEnvelope(fixtureBytes('handoffs', 'legacy', 'git_handoff.handoff'));
    assert.equal(env.legacy, true);
    assert.deepEqual(env.headers, {
      id: '20250614T093000Z_000012_from_coder',
      from: 'coder',
      to: 'reviewer,QA',
      priority: '40',
      type: 'git_handoff',
      role: 'coder',
      task: 'task-3-parser',
      commit: '3f2a9c1e0b',
      created_at: '2025-06-14T09:30:00.123Z',
    });
    assert.equal(
      env.body.toString('utf8'),
      'Re-read your role and constitution.\n\nmerge_and_process coder 3f2a9c1e0b',
    );
  });

  it('rejects unreadable headers with an EnvelopeError', async () => {
    for (const text of [
      '---\nid: x\nno closing fence\n',
      '---\n- a\n- b\n---\n',
      '---\nid: [a, b]\n---\n',
      '---\nid: "unterminated\n---\n',
      'no header line\n\nbody',
      'x',
    ]) {
      await assert.rejects(parseEnvelope(Buffer.from(text)), EnvelopeError, text);
    }
  });
});
