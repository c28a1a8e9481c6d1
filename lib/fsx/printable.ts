// Printable renderings of text that may carry file names or file content (a name found in
// a mailbox, a header value, an argument, a draft line) before it reaches a terminal or a
// one-line record. Every control or otherwise invisible character becomes a JSON-style
// escape (`\n`, `\r`, `\t`, `\u001b`, `\u202e`, ...), so a file name cannot move the
// cursor, recolour or retitle the terminal, reorder the text around it, or split one
// message into two lines. Backslashes are kept as they are, which makes the rendering
// idempotent (rendering twice changes nothing: a message can be rendered where it is
// built and again where it is printed) and keeps it valid inside a JSON string literal,
// where it decodes back to the original text (the daemon log relies on that).

/**
 * Control characters (C0, DEL, C1), format characters (bidi overrides, zero-width marks),
 * private-use and unassigned code points, lone surrogates, and the line and paragraph
 * separators. Made at the first text that is not plain ASCII: V8 compiles this class of
 * Unicode properties on each of its first two uses, 0.2-0.3 ms each, which a short-lived
 * command would pay for every name it prints (issue 22).
 */
let nonPrintable: RegExp | undefined;

/** Text of printable ASCII only (space to tilde), which has nothing to escape. */
const PLAIN_ASCII = /^[\x20-\x7e]*$/;

const SHORT_ESCAPES: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function escapeOf(char: string): string {
  const short = SHORT_ESCAPES[char];
  if (short) return short;
  let out = '';
  for (let i = 0; i < char.length; i++)
    out += `\\u${char.charCodeAt(i).toString(16).padStart(4, '0')}`;
  return out;
}

/**
 * `text` with every non-printable character replaced by its JSON-style escape; printable text is
 * returned unchanged.
 */
export function printable(text: string): string {
  if (PLAIN_ASCII.test(text)) return text;
  nonPrintable ??= /[\p{Cc}\p{Cf}\p{Co}\p{Cn}\p{Cs}\p{Zl}\p{Zp}]/gu;
  return text.replace(nonPrintable, escapeOf);
}
