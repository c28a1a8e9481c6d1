// The values of `baton review` options, whichever parser read them: names of closed
// vocabularies (a lens, a state, a difficulty), checked here rather than by yargs `choices`,
// because the review contract makes an unknown one exit 2 (invalid input) where yargs would
// exit 1 (usage); seconds; files named by an option; repeatable options.
import * as fs from 'node:fs';
import type { Argv } from 'yargs';
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

/** `value` (else `fallback`) when it is one of `words`, or exit 2 naming the `option`. */
function oneOf<T extends string>(
  value: unknown,
  words: readonly T[],
  option: string,
  fallback = '',
): T {
  const text = String(value ?? fallback);
  if (!(words as readonly string[]).includes(text))
    fail(
      'invalid',
      `baton review: unknown ${option} '${printable(text)}' (one of ${words.join(', ')})`,
    );
  return text as T;
}

/** The state named by `--state`, or exit 2. */
export function stateArg(value: unknown): ReviewState {
  return oneOf(value, STATES, 'state');
}

/** The difficulty named by `--difficulty`, or exit 2. */
export function difficultyArg(value: unknown): Difficulty {
  return oneOf(value, DIFFICULTIES, 'difficulty', 'medium');
}

/** A file's text, or stdin's for `-`; a missing file is invalid input (exit 2). */
export function textOf(option: string, path: string): string {
  try {
    return fs.readFileSync(path === '-' ? 0 : path, 'utf8');
  } catch (err) {
    fail(
      'invalid',
      `baton review: cannot read --${option} '${printable(path)}': ` +
        `${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
    );
  }
}

/** An option given once, several times or not at all, as a list of strings. */
export const list = (value: unknown): string[] => ([] as unknown[]).concat(value ?? []).map(String);

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

/** Adds --lock-timeout, the bound on waiting for a bead's lock. */
export const locked = <T>(y: Argv<T>) =>
  y.option('lock-timeout', {
    type: 'number',
    describe: 'Seconds to wait for the bead lock (default 10)',
  });

/** The bound on waiting for a bead's lock, as --lock-timeout gives it. */
export const lockOf = (args: Record<string, unknown>) => ({
  lockTimeoutMs: secondsArg('lock-timeout', args['lock-timeout']),
});

/** Adds --lock-timeout and --json (print the bookbag): the options of a command writing one. */
export const bagWriting = <T>(y: Argv<T>) =>
  locked(y).option('json', { type: 'boolean', default: false, describe: 'Print the bookbag' });
