// SHA-256 digests, random hex for names and tokens, and secrets compared in constant time.
// Loading node:crypto costs a command about 3 ms (it loads every crypto module and the
// stream modules with them), more than hashing what an agent or owner command hashes: a
// draft, a reply, a record's few artifacts. So a digest of up to SMALL_BYTES is computed in
// JavaScript (sha256.ts), a larger one by node:crypto. The threshold is where the two cost the
// same in a fresh process, whose JavaScript runs in V8's interpreter at about 2.4 MB/s: 8 KiB
// took 3 ms either way (docs/decisions.md, "SHA-256 for a cold process"). Both compute the
// same function; test/fsx/digests.test.ts checks them against each other around the
// threshold. Random bytes still come from node:crypto (a run's start, a lease's token).
import { Sha256 } from './sha256.js';

/** The largest input hashed without node:crypto. */
export const SMALL_BYTES = 8 * 1024;

const nodeCrypto = () => process.getBuiltinModule('node:crypto');

/** A SHA-256 fed in pieces. */
export interface Sha256Hasher {
  update(data: Uint8Array): Sha256Hasher;
  /** Lowercase hex. */
  digest(): string;
}

/** Lowercase hex SHA-256 of `data`. */
export function sha256Hex(data: string | Uint8Array): string {
  const bytes = typeof data === 'string' ? Buffer.from(data) : data;
  if (bytes.length <= SMALL_BYTES) return new Sha256().update(bytes).digestHex();
  return nodeCrypto().createHash('sha256').update(bytes).digest('hex');
}

/** A SHA-256 fed in pieces (files streamed in blocks) of about `expectedBytes` in all. */
export function sha256Hasher(expectedBytes: number): Sha256Hasher {
  if (expectedBytes > SMALL_BYTES) {
    const hash = nodeCrypto().createHash('sha256');
    const native: Sha256Hasher = {
      update: (data) => (hash.update(data), native),
      digest: () => hash.digest('hex'),
    };
    return native;
  }
  const hash = new Sha256();
  const small: Sha256Hasher = {
    update: (data) => (hash.update(data), small),
    digest: () => hash.digestHex(),
  };
  return small;
}

/** `bytes` cryptographically strong random bytes as lowercase hex. */
export function randomHex(bytes: number): string {
  return nodeCrypto().randomBytes(bytes).toString('hex');
}

/**
 * Whether two secrets are equal, compared in constant time (lengths are not secret): every byte
 * is looked at, whatever differs, without node:crypto's timingSafeEqual (a lease heartbeat
 * would load the whole module for it).
 */
export function sameSecret(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a[i]! ^ b[i]!;
  return difference === 0;
}
