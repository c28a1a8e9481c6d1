// SHA-256 (FIPS 180-4) in plain JavaScript, for the short processes Baton's commands are.
// A command hashes a few small files (a draft, a reply, a run's artifacts) once, before V8
// has compiled the hashing code to machine code: it runs in V8's interpreter, where every
// function call costs. @noble/hashes calls a function for each rotation and each choice of a
// round (some 500 calls per 64-byte block) and took 100-190 µs per block there, 1-1.7 ms
// for a 527-byte acceptance record; this writes the rounds out with no call and takes about
// 27 µs per block (docs/decisions.md, "SHA-256 for a cold process"). node:crypto is faster
// per byte but costs a command about 3 ms to load, so it hashes only large inputs
// (digests.ts). test/fsx/sha256.test.ts checks this against node:crypto for every length up
// to several blocks, pieces of every split, and the FIPS 180-4 examples.

// The first 32 bits of the fractional parts of the cube roots of the first 64 primes.
const K = Int32Array.of(
  0x428a2f98,
  0x71374491,
  0xb5c0fbcf,
  0xe9b5dba5,
  0x3956c25b,
  0x59f111f1,
  0x923f82a4,
  0xab1c5ed5,
  0xd807aa98,
  0x12835b01,
  0x243185be,
  0x550c7dc3,
  0x72be5d74,
  0x80deb1fe,
  0x9bdc06a7,
  0xc19bf174,
  0xe49b69c1,
  0xefbe4786,
  0x0fc19dc6,
  0x240ca1cc,
  0x2de92c6f,
  0x4a7484aa,
  0x5cb0a9dc,
  0x76f988da,
  0x983e5152,
  0xa831c66d,
  0xb00327c8,
  0xbf597fc7,
  0xc6e00bf3,
  0xd5a79147,
  0x06ca6351,
  0x14292967,
  0x27b70a85,
  0x2e1b2138,
  0x4d2c6dfc,
  0x53380d13,
  0x650a7354,
  0x766a0abb,
  0x81c2c92e,
  0x92722c85,
  0xa2bfe8a1,
  0xa81a664b,
  0xc24b8b70,
  0xc76c51a3,
  0xd192e819,
  0xd6990624,
  0xf40e3585,
  0x106aa070,
  0x19a4c116,
  0x1e376c08,
  0x2748774c,
  0x34b0bcb5,
  0x391c0cb3,
  0x4ed8aa4a,
  0x5b9cca4f,
  0x682e6ff3,
  0x748f82ee,
  0x78a5636f,
  0x84c87814,
  0x8cc70208,
  0x90befffa,
  0xa4506ceb,
  0xbef9a3f7,
  0xc67178f2,
);

// The first 32 bits of the fractional parts of the square roots of the first 8 primes.
const INITIAL = [
  0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
];

/** A SHA-256 fed in pieces; `digestHex` ends it. */
export class Sha256 {
  private readonly state = Int32Array.from(INITIAL);
  private readonly words = new Int32Array(64);
  private readonly block = new Uint8Array(64);
  /** Bytes waiting in `block` for a whole block. */
  private waiting = 0;
  /** Bytes hashed in all. */
  private length = 0;
  private finished = false;

  /** Adds `data` to the message. */
  update(data: Uint8Array): this {
    if (this.finished) throw new Error('SHA-256: update after digest');
    this.length += data.length;
    let at = 0;
    if (this.waiting > 0) {
      at = Math.min(64 - this.waiting, data.length);
      this.block.set(data.subarray(0, at), this.waiting);
      this.waiting += at;
      if (this.waiting < 64) return this;
      this.compress(this.block, 0);
      this.waiting = 0;
    }
    for (; at + 64 <= data.length; at += 64) this.compress(data, at);
    if (at < data.length) {
      this.block.set(data.subarray(at), 0);
      this.waiting = data.length - at;
    }
    return this;
  }

  /** The digest of the message as lowercase hex (the hash takes no more data). */
  digestHex(): string {
    if (this.finished) throw new Error('SHA-256: digest taken twice');
    this.finished = true;
    const block = this.block;
    block[this.waiting] = 0x80;
    block.fill(0, this.waiting + 1);
    if (this.waiting >= 56) {
      this.compress(block, 0);
      block.fill(0);
    }
    // The message's length in bits, big-endian, in the last 8 bytes.
    const high = Math.floor(this.length / 0x20000000);
    const low = (this.length * 8) >>> 0;
    block[56] = high >>> 24;
    block[57] = high >>> 16;
    block[58] = high >>> 8;
    block[59] = high;
    block[60] = low >>> 24;
    block[61] = low >>> 16;
    block[62] = low >>> 8;
    block[63] = low;
    this.compress(block, 0);
    let hex = '';
    for (const word of this.state) hex += (word >>> 0).toString(16).padStart(8, '0');
    return hex;
  }

  /** Hashes the 64 bytes of `bytes` from `at` into the state. */
  private compress(bytes: Uint8Array, at: number): void {
    const w = this.words;
    for (let i = 0; i < 16; i++, at += 4)
      w[i] = (bytes[at]! << 24) | (bytes[at + 1]! << 16) | (bytes[at + 2]! << 8) | bytes[at + 3]!;
    for (let i = 16; i < 64; i++) {
      const x = w[i - 15]!;
      const y = w[i - 2]!;
      const s0 = ((x >>> 7) | (x << 25)) ^ ((x >>> 18) | (x << 14)) ^ (x >>> 3);
      const s1 = ((y >>> 17) | (y << 15)) ^ ((y >>> 19) | (y << 13)) ^ (y >>> 10);
      w[i] = (w[i - 16]! + s0 + w[i - 7]! + s1) | 0;
    }
    const s = this.state;
    let a = s[0]!;
    let b = s[1]!;
    let c = s[2]!;
    let d = s[3]!;
    let e = s[4]!;
    let f = s[5]!;
    let g = s[6]!;
    let h = s[7]!;
    for (let i = 0; i < 64; i++) {
      const sigma1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
      const t1 = (h + sigma1 + ((e & f) ^ (~e & g)) + K[i]! + w[i]!) | 0;
      const sigma0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
      const t2 = (sigma0 + ((a & b) ^ (a & c) ^ (b & c))) | 0;
      h = g;
      g = f;
      f = e;
      e = (d + t1) | 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) | 0;
    }
    s[0] = (s[0]! + a) | 0;
    s[1] = (s[1]! + b) | 0;
    s[2] = (s[2]! + c) | 0;
    s[3] = (s[3]! + d) | 0;
    s[4] = (s[4]! + e) | 0;
    s[5] = (s[5]! + f) | 0;
    s[6] = (s[6]! + g) | 0;
    s[7] = (s[7]! + h) | 0;
  }
}
