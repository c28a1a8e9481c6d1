// A strict reader of long command-line options, for the commands that agents and the
// controller run again and again (`baton run <action>`, `baton review verdict`). It reads
// what node:util parseArgs reads in strict mode with positionals allowed, for the options
// Baton declares: Node compiles parseArgs and its validators at the first call, 0.6-0.8 ms
// of a start-up whose goal is within 1.2× of `node -e 0` (issue 22).
//
// Grammar, as parseArgs has it:
// - `--name value` or `--name=value` for a string option. A next word that starts with a
//   dash (other than `-` alone) is refused as ambiguous: write `--name=-x`.
// - `--name` for a boolean option; a value given to it is refused.
// - A `multiple` option collects each value in order; any other keeps its last one.
// - `--` ends the options: every word after it is a positional, as is `-` alone.
// - Anything else that starts with a dash is an unknown option (Baton declares no short
//   ones), named as parseArgs names it: `--name` without its value, `-x` of a `-xyz` group.
// Refusals have parseArgs' wording, in one line.

/** One declared option. */
export interface LongOption {
  type: 'string' | 'boolean';
  multiple?: boolean;
}

/** Option values by name: a string, true, or the strings of a `multiple` option. */
export type LongOptionValues = Record<string, string | boolean | string[] | undefined>;

/** What a command line holds. */
export interface ReadOptions {
  values: LongOptionValues;
  positionals: string[];
  /** The option names in the order given, one per occurrence. */
  given: string[];
  /** Whether `--` ended the options. */
  terminated: boolean;
}

/** A command line that the options refuse: an unknown option, or a value missing or misplaced. */
export class OptionRefusal extends Error {
  constructor(
    readonly kind: 'unknown' | 'value',
    /** The option as written on the command line (`--bogus`, `-x`). */
    readonly option: string,
    message: string,
  ) {
    super(message);
  }
}

/** Reads `args` against `options` (see the header); throws OptionRefusal. */
export function readLongOptions(args: string[], options: Record<string, LongOption>): ReadOptions {
  const read: ReadOptions = { values: {}, positionals: [], given: [], terminated: false };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') {
      read.terminated = true;
      read.positionals.push(...args.slice(i + 1));
      break;
    }
    if (!arg.startsWith('-') || arg === '-') {
      read.positionals.push(arg);
      continue;
    }
    if (!arg.startsWith('--')) throw unknown(arg.slice(0, 2));
    const equals = arg.indexOf('=', 3);
    const name = equals === -1 ? arg.slice(2) : arg.slice(2, equals);
    const option = Object.hasOwn(options, name) ? options[name] : undefined;
    if (option === undefined) throw unknown(`--${name}`);
    let value: string | boolean;
    if (option.type === 'boolean') {
      if (equals !== -1)
        throw new OptionRefusal(
          'value',
          `--${name}`,
          `Option '--${name}' does not take an argument`,
        );
      value = true;
    } else if (equals !== -1) value = arg.slice(equals + 1);
    else {
      const next = args[i + 1];
      if (next === undefined)
        throw new OptionRefusal(
          'value',
          `--${name}`,
          `Option '--${name} <value>' argument missing`,
        );
      if (next.length > 1 && next.startsWith('-'))
        throw new OptionRefusal(
          'value',
          `--${name}`,
          `Option '--${name}' argument is ambiguous: to give a value that starts with a dash, ` +
            `write '--${name}=${next}'`,
        );
      value = next;
      i++;
    }
    read.given.push(name);
    if (option.multiple) {
      const values = read.values[name];
      read.values[name] = [...(Array.isArray(values) ? values : []), value as string];
    } else read.values[name] = value;
  }
  return read;
}

function unknown(option: string): OptionRefusal {
  return new OptionRefusal('unknown', option, `Unknown option '${option}'`);
}
