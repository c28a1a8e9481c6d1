// lib/cli/reviewOptions: the closed vocabularies of `baton review` options (lens, state,
// difficulty) and second counts, each unknown or impossible value an invalid failure (exit 2)
// that names it.
import assert from 'node:assert/strict';
import { CommandFailure } from '../../../lib/fsx/commandFailure.js';
import {
  difficultyArg,
  lensArg,
  secondsArg,
  stateArg,
} from '../../../lib/cli/review/reviewOptions.js';
import { DIFFICULTIES, STATES } from '../../../lib/review/bookbag/bookbag.js';

function invalid(pattern: RegExp) {
  return (err: unknown) =>
    err instanceof CommandFailure && err.kind === 'invalid' && pattern.test(err.message);
}

describe('lib/cli/review/reviewOptions', () => {
  it('lensArg: cto or coo, anything else refused by name', () => {
    assert.deepEqual([lensArg('cto'), lensArg('coo')], ['cto', 'coo']);
    for (const value of ['CTO', 'ceo', '', undefined])
      assert.throws(
        () => lensArg(value),
        invalid(new RegExp(`unknown lens '${value ?? ''}' \\(cto or coo\\)`)),
        String(value),
      );
    assert.throws(() => lensArg('c\u001bo'), invalid(/unknown lens 'c\\u001bo'/));
  });

  it('stateArg: each state, anything else refused with the list', () => {
    for (const state of STATES) assert.equal(stateArg(state), state);
    for (const value of ['reviewed', 'INVALID', ''])
      assert.throws(
        () => stateArg(value),
        invalid(
          new RegExp(
            `unknown state '${value}' \\(one of WRITTEN, CTO_REVIEWED, COO_REVIEWED, REVIEWED, SCORED, DISPOSED\\)`,
          ),
        ),
        value,
      );
  });

  it('difficultyArg: each difficulty, medium when absent, anything else refused with the list', () => {
    for (const difficulty of DIFFICULTIES) assert.equal(difficultyArg(difficulty), difficulty);
    assert.equal(difficultyArg(undefined), 'medium');
    for (const value of ['Hard', 'trivial', ''])
      assert.throws(
        () => difficultyArg(value),
        invalid(
          new RegExp(`unknown difficulty '${value}' \\(one of easy, medium, hard, blocker\\)`),
        ),
        value,
      );
  });

  it('secondsArg: positive seconds as milliseconds, undefined when absent', () => {
    assert.equal(secondsArg('timeout', undefined), undefined);
    assert.deepEqual(
      [secondsArg('timeout', '2'), secondsArg('timeout', 0.25), secondsArg('timeout', '1.5')],
      [2000, 250, 1500],
    );
  });

  it('secondsArg refuses zero, negative, non-numeric values and more than a timer holds (a longer setTimeout fires at once), naming the option', () => {
    for (const value of ['0', '-1', 'abc', '', 'NaN', 'Infinity', '1e300', '2147484']) {
      assert.throws(
        () => secondsArg('lock-timeout', value),
        invalid(/--lock-timeout must be a positive number of seconds, at most 2147483$/),
        value,
      );
    }
    assert.equal(secondsArg('poll-interval', '2147483'), 2_147_483_000);
  });
});
