// The common case of the front matter without js-yaml: every header Baton itself writes
// (ids, role names, times, priorities, one-line messages in plain words) is a `key: value`
// line that YAML reads back verbatim. For such lines this module parses and writes exactly
// what js-yaml's FAILSAFE schema would; for anything else it answers `undefined` and the
// caller uses js-yaml. Loading, compiling and running the YAML parser is most of the
// per-file CPU of a delivery and of an agent command's start-up.
//
// A value is taken plain only if it is non-empty ASCII from a small alphabet, starts with a
// letter, digit or `_ . / (`, does not end with a space or `:`, has no `: ` inside, and is
// not one of the YAML 1.1 booleans js-yaml quotes (y, yes, n, no, on, off). The test
// compares both directions with js-yaml over random strings of a wider alphabet.

const KEY = /^[A-Za-z_][A-Za-z0-9_]*$/;
const VALUE = /^[A-Za-z0-9_./(][A-Za-z0-9 _.,:;/()+=@-]*$/;
const YAML11_BOOLEAN = /^(?:y|yes|n|no|on|off)$/i;

/** Whether YAML (FAILSAFE) reads `key: value` back as exactly this key and value. */
export function isPlainPair(key: string, value: string): boolean {
  return (
    KEY.test(key) &&
    key !== '__proto__' &&
    VALUE.test(value) &&
    !value.endsWith(' ') &&
    !value.endsWith(':') &&
    !value.includes(': ') &&
    !YAML11_BOOLEAN.test(value)
  );
}

/** The header lines' values, or undefined unless every line is a plain pair with a distinct key. */
export function parsePlainHeader(text: string): Record<string, string> | undefined {
  const headers: Record<string, string> = {};
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  for (const line of lines) {
    const sep = line.indexOf(': ');
    if (sep <= 0) return undefined;
    const key = line.slice(0, sep);
    const value = line.slice(sep + 2);
    if (!isPlainPair(key, value) || Object.hasOwn(headers, key)) return undefined;
    headers[key] = value;
  }
  return headers;
}

/** `key: value\n` when js-yaml would write the pair that way, else undefined. */
export function plainLine(key: string, value: string): string | undefined {
  return isPlainPair(key, value) ? `${key}: ${value}\n` : undefined;
}
