import assert from 'node:assert/strict';
import { fail, CommandFailure, type FailureKind } from '../../lib/fsx/commandFailure.js';

describe('lib/fsx/commandFailure', () => {
  it('CommandFailure keeps its kind and stderr lines; the message is the first line', () => {
    const err = new CommandFailure('invalid', ['HANDOFF INVALID: d.txt', '', 'Errors:']);
    assert.ok(err instanceof Error);
    assert.equal(err.kind, 'invalid');
    assert.deepEqual(err.lines, ['HANDOFF INVALID: d.txt', '', 'Errors:']);
    assert.equal(err.message, 'HANDOFF INVALID: d.txt');
  });

  it('a failure without lines is named after its kind', () => {
    assert.equal(new CommandFailure('temporary', []).message, 'temporary');
  });

  it('fail throws a CommandFailure of each kind with the given lines, in order', () => {
    const kinds: FailureKind[] = [
      'usage',
      'environment',
      'state',
      'invalid',
      'refused',
      'temporary',
    ];
    for (const kind of kinds) {
      assert.throws(
        () => fail(kind, 'first', '- second'),
        (err: unknown) =>
          err instanceof CommandFailure &&
          err.kind === kind &&
          err.lines.join('|') === 'first|- second',
      );
    }
  });
});
