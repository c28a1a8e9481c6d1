// The assertion of a typed failure, for assert.throws / assert.rejects: a HandoffFailure
// of `kind` whose message equals `message` (a string) or matches it (a RegExp).
import assert from 'node:assert/strict';
import { HandoffFailure } from '../../lib/handoff/errors.js';

/** A predicate for assert.throws/rejects: the error is a HandoffFailure of `kind` with `message`. */
export function failure(kind: string, message: RegExp | string): (err: unknown) => boolean {
  return (err: unknown) => {
    assert.ok(err instanceof HandoffFailure, `not a HandoffFailure: ${String(err)}`);
    assert.equal(err.kind, kind, err.message);
    if (typeof message === 'string') assert.equal(err.message, message);
    else assert.match(err.message, message);
    return true;
  };
}
