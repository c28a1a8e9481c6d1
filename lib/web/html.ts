// HTML for the web page (docs/web.md §2, §4): every value put into a page goes through `h`,
// a tagged template that escapes each interpolation (text agents wrote is hostile: a title
// `<script>` is shown as text). Only markup made here is trusted, wrapped in `Markup`.
// Nothing inline runs or styles: the page's one script and one style sheet are its own files
// (lib/web/assets.ts), as the Content-Security-Policy requires.

/** Markup built by the page itself (never text from a file or an agent). */
export class Markup {
  constructor(readonly html: string) {}
  toString(): string {
    return this.html;
  }
}

/** Escapes text for an element's content or a quoted attribute. */
export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

type Value = string | number | boolean | null | undefined | Markup | Value[];

function render(value: Value): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof Markup) return value.html;
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

/** Markup from a template: each interpolation escaped, Markup and arrays of it kept. */
export function h(strings: TemplateStringsArray, ...values: Value[]): Markup {
  let out = strings[0]!;
  values.forEach((v, i) => (out += render(v) + strings[i + 1]!));
  return new Markup(out);
}

/** A table row of cells, each escaped (Markup kept). */
export function row(...cells: Value[]): Markup {
  return h`<tr>${cells.map((c) => h`<td>${c}</td>`)}</tr>`;
}

/** A table's heading row. */
export function headRow(...names: string[]): Markup {
  return h`<tr>${names.map((n) => h`<th>${n}</th>`)}</tr>`;
}

/** A whole page: the navigation, the content in `<main id="main">` (live updates swap it). */
export function page(title: string, body: Markup): string {
  return `<!doctype html>${h`<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Baton</title>
<link rel="stylesheet" href="/assets/style.css">
<script src="/assets/live.js" defer></script></head>
<body><nav><a href="/">Swarm</a> <a href="/runs">Runs</a> <a href="/reviews">Reviews</a></nav>
<main id="main">${body}</main></body></html>`}`;
}
