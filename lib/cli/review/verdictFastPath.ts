// `baton review verdict` without yargs: a reviewer records a verdict per bead, and loading
// yargs and the whole `baton` command line costs about half of Node's own start-up (issue
// 22: the command's goal is 1.2× `node -e 0`). A well-formed call is read here with Node's
// strict parseArgs and runs the same action as the yargs command (reviewVerdict.ts); any
// other call (--help, an unknown or repeated option, a missing bead or --lens, yargs' other
// spellings such as --lockTimeout or --no-json) is left to yargs, so its messages and exit
// codes stay the only ones.
import { parseArgs } from 'node:util';
import { writeAllSync } from '../../fsx/stdio.js';
import { reportFailure } from '../failure.js';
import { recordVerdictOf } from './reviewVerdict.js';

/** What this bundle compiles before its code cache is saved (lib/cli/codeCache.ts). */
export { warmBookbagValidator as warmCodeCache } from '../../review/bookbag/store.js';

const OPTIONS = {
  lens: { type: 'string' },
  verdict: { type: 'string' },
  finding: { type: 'string', multiple: true },
  'findings-file': { type: 'string' },
  summary: { type: 'string' },
  reviewer: { type: 'string' },
  'lock-timeout': { type: 'string' },
  json: { type: 'boolean' },
} as const;

/** The options and bead of a well-formed `verdict` call (the words after it), else undefined. */
function wellFormed(argv: string[]): Record<string, unknown> | undefined {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, tokens: true });
  } catch {
    return undefined;
  }
  const given = parsed.tokens.filter((t) => t.kind === 'option').map((t) => t.name);
  const repeated = given.some((name, i) => name !== 'finding' && given.indexOf(name) !== i);
  const terminated = parsed.tokens.some((t) => t.kind === 'option-terminator');
  if (repeated || terminated || parsed.positionals.length !== 1 || !parsed.values.lens)
    return undefined;
  return { ...parsed.values, bead: parsed.positionals[0] };
}

/**
 * Runs `baton review verdict ARGV` when the call is well-formed and returns true; returns
 * false, having done nothing, when yargs is to read it.
 */
export async function runVerdictFast(argv: string[]): Promise<boolean> {
  const args = wellFormed(argv);
  if (args === undefined) return false;
  try {
    await recordVerdictOf(args, (text) => writeAllSync(1, text));
  } catch (err) {
    reportFailure('baton', err);
  }
  return true;
}
