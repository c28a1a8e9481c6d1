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

/** Splits Markdown text into its front matter and content; throws on unreadable YAML, a block that is not a mapping, or another language. */
export async function readMarkdownFrontMatter(text: string): Promise<MarkdownDocument> {
  const [{ default: matter }, { default: yaml }] = await Promise.all([import('gray-matter'), import('js-yaml')]);
  const parsed = matter(text, {
    engines: {
      yaml: (source: string) => (yaml.load(source, { schema: yaml.FAILSAFE_SCHEMA }) ?? {}) as object,
      javascript: notYaml('JavaScript'), json: notYaml('JSON'), coffee: notYaml('CoffeeScript'),
    },
  });
  const data: unknown = parsed.data;
  if (data === null || typeof data !== 'object' || Object.getPrototypeOf(data) !== Object.prototype) throw new Error('the front matter is not a mapping of names to values');
  return { data: data as Record<string, unknown>, content: parsed.content, hasFrontMatter: Boolean(parsed.matter) || (parsed as { isEmpty?: boolean }).isEmpty === true };
}
