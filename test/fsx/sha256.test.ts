// lib/fsx/sha256: the FIPS 180-4 examples, node:crypto's digest for every length across
// several blocks (each padding case: the length fits the last block or needs one more), and
// the same digest however the message is split into pieces.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { Sha256 } from '../../lib/fsx/sha256.js';

const reference = (data: Uint8Array) => createHash('sha256').update(data).digest('hex');
const digestOf = (...pieces: Uint8Array[]) => {
  const hash = new Sha256();
  for (const piece of pieces) hash.update(piece);
  return hash.digestHex();
};

describe('lib/fsx/sha256', () => {
  it('gives the FIPS 180-4 examples’ digests', () => {
    const text = (s: string) => Buffer.from(s, 'latin1');
    assert.equal(
      digestOf(text('abc')),
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
    assert.equal(
      digestOf(text('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq')),
      '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1',
    );
    assert.equal(
      digestOf(Buffer.alloc(1_000_000, 'a')),
      'cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0',
    );
    assert.equal(digestOf(), 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });

  it('equals node:crypto for every length from 0 to 600 bytes and for larger random sizes', () => {
    const data = randomBytes(600);
    for (let length = 0; length <= 600; length++) {
      const message = data.subarray(0, length);
      assert.equal(digestOf(message), reference(message), `${length} bytes`);
    }
    for (let i = 0; i < 20; i++) {
      const message = randomBytes(600 + Math.floor(Math.random() * 300_000));
      assert.equal(digestOf(message), reference(message), `${message.length} bytes`);
    }
  });

  it('gives the same digest however the message is split: at every point, and byte by byte', () => {
    const message = randomBytes(200);
    const whole = reference(message);
    for (let at = 0; at <= message.length; at++)
      for (const second of [
        at,
        Math.min(message.length, at + 1),
        Math.min(message.length, at + 63),
      ])
        assert.equal(
          digestOf(message.subarray(0, at), message.subarray(at, second), message.subarray(second)),
          whole,
          `split at ${at} and ${second}`,
        );
    const bytes = Array.from(message, (_, i) => message.subarray(i, i + 1));
    assert.equal(digestOf(...bytes), whole);
  });

  it('takes no data after its digest, and gives its digest once', () => {
    const hash = new Sha256().update(Buffer.from('x'));
    hash.digestHex();
    assert.throws(() => hash.update(Buffer.from('y')), /update after digest/);
    assert.throws(() => hash.digestHex(), /digest taken twice/);
  });
});
