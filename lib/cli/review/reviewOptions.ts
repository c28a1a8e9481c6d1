// The values of `baton review` options that name closed vocabularies (a lens, a state, a
// difficulty): checked here rather than by yargs `choices`, because the review contract
// makes an unknown one exit 2 (invalid input) where yargs would exit 1 (usage).
import { fail } from '../../fsx/commandFailure.js';
import {
  DIFFICULTIES,
  STATES,
  isLens,
  type Difficulty,
  type Lens,
  type ReviewState,
} from '../../review/bookbag/bookbag.js';
import { printable } from '../../fsx/printable.js';

/** The lens named by `--lens`, or exit 2. */
export function lensArg(value: unknown): Lens {
  const text = String(value ?? '');
  if (!isLens(text))
    fail('invalid', `baton review: unknown lens '${printable(text)}' (cto or coo)`);
  return text;
}

/** The state named by `--state`, or exit 2. */
export function stateArg(value: unknown): ReviewState {
  const text = String(value ?? '');
  if (!(STATES as readonly string[]).includes(text))
    fail(
      'invalid',
      `baton review: unknown state '${printable(text)}' (one of ${STATES.join(', ')})`,
    );
  return text as ReviewState;
}

/** The difficulty named by `--difficulty`, or exit 2. */
export function difficultyArg(value: unknown): Difficulty {
  const text = String(value ?? 'medium');
  if (!(DIFFICULTIES as readonly string[]).includes(text))
    fail(
      'invalid',
      `baton review: unknown difficulty '${printable(text)}' (one of ${DIFFICULTIES.join(', ')})`,
    );
  return text as Difficulty;
}

/** The longest timer Node keeps: a longer setTimeout fires after 1 ms. */
const MAX_SECONDS = Math.floor((2 ** 31 - 1) / 1000);

/** Milliseconds from a seconds option (positive, at most MAX_SECONDS, about 24 days), or exit 2. */
export function secondsArg(name: string, value: unknown): number | undefined {
  if (value === undefined) return undefined;
  const seconds = Number(value);
  if (!(seconds > 0 && seconds <= MAX_SECONDS))
    fail(
      'invalid',
      `baton review: --${name} must be a positive number of seconds, at most ${MAX_SECONDS}`,
    );
  return seconds * 1000;
}
