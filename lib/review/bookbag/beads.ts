// Bead names (docs/review.md §1): `<role>-<domain>-<rand8>`, the rand8 eight lowercase hex
// digits from a CSPRNG. A bead name is also a file name, so only
// `^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$` is ever used; anything else (`../x`) is refused.
import { randomHex } from '../../fsx/digests.js';
import { fail } from '../../fsx/commandFailure.js';
import { printable } from '../../fsx/printable.js';

const SAFE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** True for a name that may be used as a bead (and so as a file name). */
export function isSafeBeadName(name: string): boolean {
  return SAFE_NAME.test(name);
}

/** `name`, or fails (invalid, exit 2) when it is not a safe bead name. */
export function requireBeadName(name: string): string {
  if (!isSafeBeadName(name))
    fail(
      'invalid',
      `baton review: invalid bead name '${printable(name)}' ` +
        `(letters, digits, '.', '_' and '-', at most 128, starting ` +
        `with a letter or digit)`,
    );
  return name;
}

/**
 * Eight lowercase hex digits from a CSPRNG: the random part of a bead (and of its leaf's worktree
 * name).
 */
export function newRand8(): string {
  return randomHex(4);
}

/**
 * A new bead for `student` in `domain` (with `rand8` when the caller drew it first); fails when the
 * parts would not make a safe name.
 */
export function newBead(student: string, domain: string, rand8 = newRand8()): string {
  if (!/^[A-Za-z0-9._-]+$/.test(domain))
    fail(
      'invalid',
      `baton review: invalid domain '${printable(domain)}' (letters, digits, '.', '_' and '-')`,
    );
  return requireBeadName(`${student}-${domain}-${rand8}`);
}
