// The digests agree with node:crypto's SHA-256 on both paths (pure JavaScript up to
// SMALL_BYTES, node:crypto above), fed whole or in pieces; secrets compare by every byte.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { SMALL_BYTES, sameSecret, sha256Hasher, sha256Hex } from '../../lib/fsx/digests.js';

const reference = (data: Uint8Array) => createHash('sha256').update(data).digest('hex');

describe('lib/fsx/digests', () => {
  it('sha256Hex equals node:crypto for the empty input, a string, and sizes around each block and the threshold', () => {
    assert.equal(sha256Hex(''), 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    assert.equal(sha256Hex('héllo\n'), reference(Buffer.from('héllo\n')));
    const sizes = [1, 55, 56, 63, 64, 65, 1000, SMALL_BYTES - 1, SMALL_BYTES, SMALL_BYTES + 1];
    for (const size of sizes) {
      const data = randomBytes(size);
      assert.equal(sha256Hex(data), reference(data), `${size} bytes`);
    }
  });

  it('sha256Hasher equals node:crypto fed in uneven pieces, on either side of the threshold', () => {
    for (const size of [0, 100, 70_000, SMALL_BYTES + 70_000]) {
      const data = randomBytes(size);
      const hash = sha256Hasher(size);
      for (let at = 0; at < size; at += 65_537) hash.update(data.subarray(at, at + 65_537));
      assert.equal(hash.digest(), reference(data), `${size} bytes`);
    }
  });

  it('sameSecret: equal only when every byte and the length are', () => {
    const token = Buffer.from('a82762221bb2d9b31a10253b58b8af90');
    assert.equal(sameSecret(token, Buffer.from(token)), true);
    for (const at of [0, 15, 31]) {
      const other = Buffer.from(token);
      other[at] = other[at]! ^ 1;
      assert.equal(sameSecret(token, other), false, `byte ${at}`);
    }
    assert.equal(sameSecret(token, token.subarray(1)), false);
    assert.equal(sameSecret(new Uint8Array(), new Uint8Array()), true);
  });
});
