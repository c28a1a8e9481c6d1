// The configured acceptance command, split into the argument vector baton runs without a
// shell (docs/runtime.md §8): quotes are honoured, nothing is expanded, glob characters
// are literal, and anything only a shell would act on is refused (at `start`, and again
// before each run), never silently dropped or passed through as text.
//
// Why shell-quote: it is the maintained shell-words parser on npm (quoting, escapes,
// operators, globs and comments as bash reads them) and reports what it does not treat as
// a word as objects: an operator, a glob, a comment, and, through an env function that
// returns an object, every `$` expansion (unquoted or inside double quotes; inside single
// quotes `$` is literal). We turn a glob object back into its literal pattern and refuse
// every other object. What shell-quote reads as plain text although a shell would not is
// caught by a scan of our own before it parses (see unsafeSyntaxOf).
import { parse, type ParseEntry } from 'shell-quote';
import { fail } from '../../fsx/commandFailure.js';
import { printable } from '../../fsx/printable.js';

/** The marker our env function hands shell-quote for every `$` expansion it meets. */
interface Expansion {
  expansion: string;
}

/** Refuses (exit 2) with the rule every shell-only construct breaks. */
function refuseShellSyntax(token: string): never {
  fail(
    'refused',
    `acceptance command has a shell operator or expansion: ` +
      `'${printable(token)}'; baton runs it without a shell`,
  );
}

/**
 * The first construct a shell would act on that shell-quote lets through as text, or
 * undefined. shell-quote does not know backticks (command substitution): it keeps them as
 * part of a word, so we refuse a backtick anywhere but inside single quotes (escaped or
 * not: bash's rules for an escaped backtick differ between quoting contexts, and a plain
 * rule is easier to state). It also reads an unquoted newline as a space although a shell
 * runs the next line as a second command, expands `$'...'` (ANSI-C quoting) without
 * telling, and takes an unterminated quote or a trailing backslash as if it were closed.
 */
function unsafeSyntaxOf(command: string): string | undefined {
  let quote: "'" | '"' | undefined;
  for (let i = 0; i < command.length; i++) {
    const c = command[i]!;
    if (quote === "'") {
      if (c === "'") quote = undefined;
    } else if (c === '`' || (quote === undefined && (c === '\n' || c === '\r'))) {
      return c;
    } else if (c === '\\') {
      const next = command[i + 1];
      if (next === undefined) return '\\';
      if (next === '`' || (quote === undefined && (next === '\n' || next === '\r'))) return next;
      i += 1;
    } else if (c === '"') {
      quote = quote === '"' ? undefined : '"';
    } else if (quote === undefined && c === "'") {
      quote = "'";
    } else if (quote === undefined && c === '$' && command[i + 1] === "'") {
      return "$'";
    }
  }
  return quote;
}

/** The words shell-quote finds, with every `$` expansion reported as an Expansion object. */
function parsedWords(command: string): (ParseEntry | Expansion)[] {
  try {
    return parse<Expansion>(command, (key) => ({ expansion: `$${key}` }));
  } catch {
    // shell-quote throws only on a bad substitution, `${}` or an unclosed `${`.
    return refuseShellSyntax('${');
  }
}

/**
 * Splits an acceptance command into argv; refuses (exit 2) any operator, expansion, comment or
 * empty command.
 */
export function splitAcceptanceCommand(command: string): string[] {
  if (command.includes('\0')) fail('refused', 'acceptance command has a NUL character');
  const unsafe = unsafeSyntaxOf(command);
  if (unsafe === "'" || unsafe === '"')
    fail('refused', `acceptance command has an unterminated ${unsafe} quote`);
  if (unsafe !== undefined) refuseShellSyntax(unsafe);
  const argv: string[] = [];
  for (const entry of parsedWords(command)) {
    if (typeof entry === 'string') argv.push(entry);
    else if ('expansion' in entry) refuseShellSyntax(entry.expansion);
    else if ('comment' in entry)
      fail(
        'refused',
        `acceptance command has a comment: ` +
          `'#${printable(entry.comment)}'; quote a '#' that belongs to ` +
          `an argument`,
      );
    else if (entry.op === 'glob') argv.push(entry.pattern);
    else refuseShellSyntax(entry.op);
  }
  if (argv.length === 0 || argv[0] === '')
    fail('refused', 'acceptance command is empty: it names no program');
  if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(argv[0]!)) {
    fail(
      'refused',
      `acceptance command starts with a variable assignment: ` +
        `'${printable(argv[0]!)}'; baton runs it without a shell ` +
        `(write 'env ${printable(argv[0]!)} ...')`,
    );
  }
  return argv;
}
