// The handoff file format: YAML front matter in which every value is a string, then an
// opaque body of bytes. The body is split off as bytes and never decoded, so no step can
// change its line endings or trailing newlines. The header is parsed and dumped with
// js-yaml's FAILSAFE schema (no implicit types: `00`, `0e12` and timestamps stay strings).
// Plain `key: value` lines take a fast path that gives js-yaml's exact result
// (plainHeader.ts); js-yaml is loaded only for anything else.
// Readers also accept the reference scripts' legacy format: `key: value` lines, one blank
// line, body.
import { parsePlainHeader, plainLine } from './plainHeader.js';

/** Header values by name; insertion order is irrelevant (serializeEnvelope orders them). */
export type Headers = Record<string, string>;

/** A parsed handoff file. */
export interface Envelope {
  headers: Headers;
  body: Buffer;
  legacy: boolean;
}

/** The order in which known headers are written; others follow in name order. */
export const HEADER_ORDER = [
  'id',
  'from',
  'to',
  'recipient',
  'priority',
  'type',
  'role',
  'task',
  'commit',
  'message',
  'created_at',
  'enqueued_at',
  'dequeued_at',
  'completed_at',
];

/** Raised when a file has no readable header. */
export class EnvelopeError extends Error {}

type Yaml = typeof import('js-yaml');
let yamlModule: Yaml | undefined;
async function yaml(): Promise<Yaml> {
  yamlModule ??= (await import('js-yaml')).default as unknown as Yaml;
  return yamlModule;
}

async function yamlLine(key: string, value: string): Promise<string> {
  const y = await yaml();
  return y.dump({ [key]: value }, { schema: y.FAILSAFE_SCHEMA, lineWidth: -1, noRefs: true });
}

/** Splits a file into header and body and parses the header (front matter or legacy). */
export async function parseEnvelope(bytes: Buffer): Promise<Envelope> {
  const open = lineEndAt(bytes, 0);
  if (open !== undefined && bytes.subarray(0, open.contentEnd).toString('latin1') === '---') {
    return parseFrontMatter(bytes, open.next);
  }
  return parseLegacy(bytes);
}

async function parseFrontMatter(bytes: Buffer, start: number): Promise<Envelope> {
  for (let pos = start; pos < bytes.length;) {
    const line = lineEndAt(bytes, pos);
    if (line === undefined) break;
    if (bytes.subarray(pos, line.contentEnd).toString('latin1') === '---') {
      const text = bytes.subarray(start, pos).toString('utf8');
      return {
        headers: await parseYamlHeader(text),
        body: bytes.subarray(line.next),
        legacy: false,
      };
    }
    pos = line.next;
  }
  throw new EnvelopeError('front matter is not closed by a --- line');
}

async function parseYamlHeader(text: string): Promise<Headers> {
  const plain = parsePlainHeader(text);
  if (plain) return plain;
  const y = await yaml();
  let data: unknown;
  try {
    data = y.load(text, { schema: y.FAILSAFE_SCHEMA });
  } catch (err) {
    throw new EnvelopeError(`unreadable front matter: ${(err as Error).message.split('\n')[0]}`);
  }
  if (data === undefined || data === null) return {};
  if (typeof data !== 'object' || Array.isArray(data))
    throw new EnvelopeError('front matter is not a mapping');
  const headers: Headers = {};
  for (const [key, value] of Object.entries(data as Record<string, unknown>)) {
    if (value === null || value === undefined) continue;
    if (typeof value !== 'string') throw new EnvelopeError(`header '${key}' is not a string`);
    headers[key] = value;
  }
  return headers;
}

function parseLegacy(bytes: Buffer): Envelope {
  const headers: Headers = {};
  let pos = 0;
  while (pos < bytes.length) {
    const line = lineEndAt(bytes, pos) ?? { contentEnd: bytes.length, next: bytes.length };
    const text = bytes.subarray(pos, line.contentEnd).toString('utf8');
    pos = line.next;
    if (text === '') return { headers, body: bytes.subarray(pos), legacy: true };
    const sep = text.indexOf(': ');
    if (sep <= 0) throw new EnvelopeError(`unreadable header line '${text.slice(0, 60)}'`);
    headers[text.slice(0, sep)] = text.slice(sep + 2);
  }
  return { headers, body: Buffer.alloc(0), legacy: true };
}

/**
 * End of the line starting at `pos`: where its content ends (before CR LF) and the next line
 * starts.
 */
function lineEndAt(bytes: Buffer, pos: number): { contentEnd: number; next: number } | undefined {
  const nl = bytes.indexOf(0x0a, pos);
  if (nl < 0) return undefined;
  const contentEnd = nl > pos && bytes[nl - 1] === 0x0d ? nl - 1 : nl;
  return { contentEnd, next: nl + 1 };
}

/** Orders header names: the protocol's order, then the rest by name. */
export function orderedHeaderNames(headers: Headers): string[] {
  const known = HEADER_ORDER.filter((k) => headers[k] !== undefined && headers[k] !== '');
  const others = Object.keys(headers)
    .filter((k) => !HEADER_ORDER.includes(k) && headers[k] !== '')
    .sort();
  return [...known, ...others];
}

/**
 * Writes headers as front matter (protocol order, empty values left out) followed by the body
 * bytes.
 */
export async function serializeEnvelope(headers: Headers, body: Uint8Array): Promise<Buffer> {
  const lines: string[] = [];
  for (const key of orderedHeaderNames(headers)) {
    const value = headers[key]!;
    lines.push(plainLine(key, value) ?? (await yamlLine(key, value)));
  }
  return Buffer.concat([Buffer.from(`---\n${lines.join('')}---\n`, 'utf8'), body]);
}
