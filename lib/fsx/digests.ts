// SHA-256 digests and random hex for names and tokens. node:crypto is loaded on first use,
// not at start-up: a command that hashes nothing must not pay its load (about 10 ms of an
// agent command's start, issue 22).
import type { Hash } from 'node:crypto';

const nodeCrypto = () => process.getBuiltinModule('node:crypto');

/** Lowercase hex SHA-256 of `data`. */
export function sha256Hex(data: string | Uint8Array): string {
  return nodeCrypto().createHash('sha256').update(data).digest('hex');
}

/** A SHA-256 hash fed in pieces (files streamed in blocks). */
export function sha256Hasher(): Hash {
  return nodeCrypto().createHash('sha256');
}

/** `bytes` cryptographically strong random bytes as lowercase hex. */
export function randomHex(bytes: number): string {
  return nodeCrypto().randomBytes(bytes).toString('hex');
}

/** Whether two secrets are equal, compared in constant time (lengths are not secret). */
export function sameSecret(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && nodeCrypto().timingSafeEqual(a, b);
}
