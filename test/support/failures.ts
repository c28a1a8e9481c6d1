// The assertion of a typed failure, for assert.throws / assert.rejects: a CommandFailure
// of `kind` whose message equals `message` (a string) or matches it (a RegExp).
import assert from 'node:assert/strict';
import { CommandFailure } from '../../lib/fsx/commandFailure.js';

/** A predicate for assert.throws/rejects: the error is a CommandFailure of `kind` with `message`. */
export function failure(kind: string, message: RegExp | string): (err: unknown) => boolean {
  return (err: unknown) => {
    assert.ok(err instanceof CommandFailure, `not a CommandFailure: ${String(err)}`);
    assert.equal(err.kind, kind, err.message);
    if (typeof message === 'string') assert.equal(err.message, message);
    else assert.match(err.message, message);
    return true;
  };
}
