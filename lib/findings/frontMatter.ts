// Markdown documents with YAML front matter that agents and people write (reviewer reports,
// run replies, personas), read through gray-matter behind this one module. gray-matter is
// always called with an options object (without one it caches results by content and
// shares the cached data object between calls), and its YAML engine is js-yaml's FAILSAFE
// schema, so every value stays the string that was written (`00`, dates). A block in any
// other language is refused: gray-matter would `eval` a `---js` block (a reviewer's output
// could run code in Baton) and type a `---json` one. The handoff envelope is not read here:
// its body is bytes (lib/queue/envelope.ts).

/** A document's front matter (values as written) and the Markdown after it. */
export interface MarkdownDocument {
  data: Record<string, unknown>;
  content: string;
  /** True when the text started with a front matter block. */
  hasFrontMatter: boolean;
}

function notYaml(language: string): () => never {
  return () => {
    throw new Error(`front matter in ${language}: only YAML is read`);
  };
}

/**
 * Splits Markdown text into its front matter and content; throws on unreadable YAML, a block that
 * is not a mapping, or another language.
 */
export async function readMarkdownFrontMatter(text: string): Promise<MarkdownDocument> {
  const [{ default: matter }, { default: yaml }] = await Promise.all([
    import('gray-matter'),
    import('js-yaml'),
  ]);
  const parsed = matter(text, {
    engines: {
      yaml: (source: string) =>
        (yaml.load(source, { schema: yaml.FAILSAFE_SCHEMA }) ?? {}) as object,
      javascript: notYaml('JavaScript'),
      json: notYaml('JSON'),
      coffee: notYaml('CoffeeScript'),
    },
  });
  const data: unknown = parsed.data;
  if (data === null || typeof data !== 'object' || Object.getPrototypeOf(data) !== Object.prototype)
    throw new Error('the front matter is not a mapping of names to values');
  return {
    data: data as Record<string, unknown>,
    content: parsed.content,
    hasFrontMatter: Boolean(parsed.matter) || (parsed as { isEmpty?: boolean }).isEmpty === true,
  };
}

/**
 * A structured document: a JSON object (its types kept), or YAML front matter (every value a
 * string) and the Markdown after it.
 */
export type StructuredDocument =
  | { dialect: 'json'; data: Record<string, unknown>; content: '' }
  | { dialect: 'yaml'; data: Record<string, unknown>; content: string };

/**
 * Why a structured document could not be read: the part that failed, with the parser's own message.
 */
export class DocumentProblem extends Error {
  constructor(
    readonly part: 'json' | 'object' | 'front-matter',
    message: string,
  ) {
    super(message);
  }
}

/**
 * Reads what agents write for both stages (a reviewer's findings, a run's evidence): a JSON
 * object when the text starts with `{` (a byte-order mark and white space aside), else YAML
 * front matter when it starts with `---`; undefined for neither (a stage's own line form).
 * A part that does not parse is a DocumentProblem; each stage words it its own way.
 */
export async function readStructured(text: string): Promise<StructuredDocument | undefined> {
  const trimmed = text.replace(/^\uFEFF/, '').trimStart();
  if (trimmed.startsWith('{')) {
    let data: unknown;
    try {
      data = JSON.parse(trimmed);
    } catch (err) {
      throw new DocumentProblem('json', (err as Error).message);
    }
    if (typeof data !== 'object' || data === null || Array.isArray(data))
      throw new DocumentProblem('object', 'not a JSON object');
    return { dialect: 'json', data: data as Record<string, unknown>, content: '' };
  }
  if (!trimmed.startsWith('---')) return undefined;
  let doc: MarkdownDocument;
  try {
    doc = await readMarkdownFrontMatter(trimmed);
  } catch (err) {
    throw new DocumentProblem('front-matter', (err as Error).message);
  }
  return doc.hasFrontMatter ? { dialect: 'yaml', data: doc.data, content: doc.content } : undefined;
}
