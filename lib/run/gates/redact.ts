// Secrets out of what a run stores or prints (docs/runtime.md §8): acceptance output, the
// acceptance argv, status lines. Each rule replaces the secret itself with [REDACTED] and
// keeps what says where it was (the name, the header, the scheme), so the output still
// reads. The rules lean towards redacting too much: a `KeyError: 'x'` loses its 'x', but a
// value of anything named like a key, token, secret, password or credential never leaks.
//
// Rules, in order: PEM private-key blocks (also one cut off at either end, as a bounded
// output's head or tail can be); Authorization headers and bare `Bearer <token>`; quoted
// keys with a secret-like name (`"api_key": "…"`, `'token': …`); assignments to such a
// name (`NAME=value`, `NAME: value`, `--token=value`; a quoted value whole, a value after
// an auth scheme word with it); common key formats (OpenAI/Anthropic `sk-…`, GitHub
// `ghp_…`/`gho_`/`ghu_`/`ghs_`/`ghr_` and `github_pat_…`, AWS `AKIA…`/`ASIA…`); and the
// password of a URL's `user:password@`.

/** What a secret is replaced with. */
export const REDACTED = '[REDACTED]';

/** Parts of a name that mark its value as secret (matched case-insensitively). */
const SECRET_WORDS = 'token|secret|key|password|passwd|credential';

/**
 * A name with a secret word in it (letters, digits, `_`, `.`, `-`), starting where a name
 * starts. The lookbehind and the bounds keep matching linear on long runs of word
 * characters (an unbounded `[…]*KEY[…]*` tried at every offset of a 64 KiB line is
 * quadratic or worse).
 */
const NAME_BODY = `[A-Za-z0-9_.-]{0,128}(?:${SECRET_WORDS})[A-Za-z0-9_.-]{0,128}`;
const SECRET_NAME = `(?<![A-Za-z0-9_.-])${NAME_BODY}`;

const PEM_LABEL = '[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----';
const PEM_BLOCK = new RegExp(`-----BEGIN ${PEM_LABEL}[\\s\\S]*?(?:-----END ${PEM_LABEL}|$)`, 'g');
/** An END line left after every whole block is gone: the text began inside a block. */
const PEM_CUT_HEAD = /^[\s\S]*?-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----/;
const AUTHORIZATION =
  /(\bauthorization["']?[ \t]*[:=][ \t]*["']?)(?:(bearer|basic|token|digest)[ \t]+)?[^\s"']+/gi;
const BEARER = /\b(Bearer[ \t]+)[A-Za-z0-9._~+/=-]{8,}/g;
const QUOTED_KEY = new RegExp(
  `(["'])(${SECRET_NAME})\\1([ \\t]*:[ ` +
    `\\t]*)("(?:\\\\.|[^"\\\\\\n])*"|'(?:\\\\.|[^'\\\\\\n])*'|[^\\s,{}\\[\\]"']+)`,
  'gi',
);
const ASSIGNMENT = new RegExp(
  `(${SECRET_NAME}[ \\t]*(?:=(?!=)|:(?![:/]))[ ` +
    `\\t]*)((?:bearer|basic|token)[ ` +
    `\\t]+)?(?:"(?:\\\\.|[^"\\\\\\n])*"|'[^'\\n]*'|\\S+)`,
  'gi',
);
const KEY_FORMATS = [
  /\bsk-[A-Za-z0-9_-]{16,}/g,
  /\bgh[pousr]_[A-Za-z0-9]{20,}/g,
  /\bgithub_pat_[A-Za-z0-9_]{20,}/g,
  /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g,
];
const URL_PASSWORD = /((?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]{0,31}:\/\/[^/\s:@]+:)[^/\s@]+@/g;

/**
 * A word or mark at least one rule above needs (each rule's own literal: a secret word, an
 * auth header or scheme, PRIVATE KEY, a key format's prefix, `://`). Text without any is
 * left alone: most task lines and commands have none, and the rules' expressions cost a
 * few milliseconds to compile on their first use in a call.
 */
const ANY_RULE_NEEDS = new RegExp(
  'token|secret|key|passw|credential|authorization|bearer|' +
    'sk-|gh[pousr]_|github_pat_|akia|asia|://',
  'i',
);

/** `text` with every secret the rules know replaced by [REDACTED]. */
export function redactSecrets(text: string): string {
  if (!ANY_RULE_NEEDS.test(text)) return text;
  let out = text.replace(PEM_BLOCK, REDACTED).replace(PEM_CUT_HEAD, REDACTED);
  out = out.replace(
    AUTHORIZATION,
    (_m, head: string, scheme: string | undefined) =>
      `${head}${scheme ? `${scheme} ` : ''}${REDACTED}`,
  );
  out = out.replace(BEARER, `$1${REDACTED}`);
  out = out.replace(QUOTED_KEY, (_m, quote: string, name: string, colon: string, value: string) => {
    // a bare value (a number) becomes a string: the JSON stays valid
    const valueQuote = value[0] === "'" ? "'" : '"';
    return `${quote}${name}${quote}${colon}${valueQuote}${REDACTED}${valueQuote}`;
  });
  out = out.replace(
    ASSIGNMENT,
    (_m, head: string, scheme: string | undefined) => `${head}${scheme ?? ''}${REDACTED}`,
  );
  for (const format of KEY_FORMATS) out = out.replace(format, REDACTED);
  return out.replace(URL_PASSWORD, `$1${REDACTED}@`);
}

/** An option whose next argument is its (secret) value: `--token`, `-password`, `--api-key`. */
const SECRET_OPTION = new RegExp(`^-${NAME_BODY}$`, 'i');

/**
 * An argument vector with its secrets redacted, including the argument after a secret-named option.
 */
export function redactArgv(argv: readonly string[]): string[] {
  return argv.map((arg, i) =>
    i > 0 && SECRET_OPTION.test(argv[i - 1]!) ? REDACTED : redactSecrets(arg),
  );
}
