// Findings as reviewers report them (docs/review.md §2, §6): a severity from either
// vocabulary (CRITICAL|HIGH|MEDIUM|LOW, or the run runtime's Critical|Important|Minor|Nit,
// in any case), stored in the first; `SEVERITY:SECTION:DESCRIPTION` arguments; and findings
// documents, JSON (`{verdict?, findings: [...], summary?}`) or Markdown with front matter
// (`verdict:`, `summary:`) and one `- [SEVERITY] section: description` list item per
// finding (every list item is one: a list item in another form is malformed, never skipped,
// so a blocking finding cannot be lost to a typo). Anything malformed is a FindingsError
// naming what is wrong; nothing guesses.
import { DocumentProblem, readStructured } from '../../findings/frontMatter.js';
import {
  isBlockingSeverity,
  MAPPED_WORDS,
  mappedWordOf,
  severityOf as findingSeverityOf,
} from '../../findings/severity.js';
import { type Finding, type Severity, type Verdict } from './bookbag.js';
import { FindingsError } from './reviewErrors.js';

/**
 * The stored severity (a bookbag's word) for either vocabulary's word, in any case, or undefined.
 */
export function severityOf(word: string): Severity | undefined {
  const severity = findingSeverityOf(word, true);
  return severity === undefined ? undefined : mappedWordOf(severity);
}

/** CRITICAL and HIGH findings block: a lens with one fails. */
export function isBlocking(finding: Finding): boolean {
  return isBlockingSeverity(MAPPED_WORDS[finding.severity]);
}

function requireSeverity(word: string): Severity {
  const severity = severityOf(word);
  if (!severity)
    throw new FindingsError(
      `unknown severity '${word}' (one of CRITICAL, HIGH, MEDIUM, ` +
        `LOW or Critical, Important, Minor, Nit)`,
    );
  return severity;
}

/** Parses `SEVERITY:SECTION:DESCRIPTION` (the description may contain colons). */
export function parseFindingArg(arg: string): Finding {
  const first = arg.indexOf(':');
  const second = arg.indexOf(':', first + 1);
  if (first < 0 || second < 0)
    throw new FindingsError(`finding '${arg}' is not SEVERITY:SECTION:DESCRIPTION`);
  const description = arg.slice(second + 1).trim();
  if (!description) throw new FindingsError(`finding '${arg}' has no description`);
  return {
    severity: requireSeverity(arg.slice(0, first)),
    section: arg.slice(first + 1, second).trim(),
    description,
  };
}

/** What a reviewer reported: findings, and optionally a declared verdict and a summary. */
export interface FindingsDocument {
  verdict?: Verdict;
  findings: Finding[];
  summary?: string;
}

function declaredVerdict(value: unknown): Verdict | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw new FindingsError('verdict is not a string');
  const text = value.trim().toUpperCase();
  if (text !== 'PASS' && text !== 'FAIL')
    throw new FindingsError(`verdict '${value}' is not PASS or FAIL`);
  return text;
}

function summaryOf(value: unknown): string | undefined {
  if (value !== undefined && typeof value !== 'string')
    throw new FindingsError('summary is not a string');
  return value;
}

const FINDING_KEYS = new Set([
  'section',
  'severity',
  'description',
  'citation',
  'suggestion',
  'id',
]);

function findingOfJson(value: unknown, index: number): Finding {
  if (!value || typeof value !== 'object' || Array.isArray(value))
    throw new FindingsError(`findings[${index}] is not an object`);
  const entry = value as Record<string, unknown>;
  const unknown = Object.keys(entry).filter((k) => !FINDING_KEYS.has(k));
  if (unknown.length > 0)
    throw new FindingsError(`findings[${index}] has unknown field ${unknown.join(', ')}`);
  for (const key of Object.keys(entry))
    if (typeof entry[key] !== 'string')
      throw new FindingsError(`findings[${index}].${key} is not a string`);
  if (
    typeof entry.severity !== 'string' ||
    typeof entry.description !== 'string' ||
    !entry.description.trim()
  ) {
    throw new FindingsError(`findings[${index}] needs a severity and a description`);
  }
  return {
    ...(entry as unknown as Finding),
    section: (entry.section as string | undefined) ?? '',
    severity: requireSeverity(entry.severity),
  };
}

/** A findings document read as JSON: its fields checked. */
function findingsOfJson(doc: Record<string, unknown>): FindingsDocument {
  const unknown = Object.keys(doc).filter((k) => !['verdict', 'findings', 'summary'].includes(k));
  if (unknown.length > 0) throw new FindingsError(`unknown field ${unknown.join(', ')}`);
  if (!Array.isArray(doc.findings)) throw new FindingsError('findings is not a list');
  return {
    verdict: declaredVerdict(doc.verdict),
    findings: doc.findings.map(findingOfJson),
    summary: summaryOf(doc.summary),
  };
}

const LIST_ITEM = /^\s*[-*+]\s+\[([^\]]+)\]\s*(.*)$/;
const ANY_LIST_ITEM = /^\s*[-*+]\s+\S/;
const FRONT_MATTER_KEYS = ['verdict', 'summary'];

/**
 * A findings document read as front matter (verdict, summary) and `- [SEVERITY] section:
 * description` items.
 */
function findingsOfMarkdown(doc: {
  data: Record<string, unknown>;
  content: string;
}): FindingsDocument {
  const unknown = Object.keys(doc.data).filter((k) => !FRONT_MATTER_KEYS.includes(k));
  if (unknown.length > 0)
    throw new FindingsError(`unknown front matter field ${unknown.join(', ')}`);
  const findings: Finding[] = [];
  for (const line of doc.content.split('\n')) {
    if (!ANY_LIST_ITEM.test(line)) continue;
    const item = LIST_ITEM.exec(line);
    const rest = item?.[2] ?? '';
    const colon = rest.indexOf(':');
    if (!item || colon < 0 || !rest.slice(colon + 1).trim())
      throw new FindingsError(
        `list item '${line.trim()}' is not '- [SEVERITY] section: description'`,
      );
    findings.push({
      severity: requireSeverity(item[1]!),
      section: rest.slice(0, colon).trim(),
      description: rest.slice(colon + 1).trim(),
    });
  }
  return {
    verdict: declaredVerdict(doc.data.verdict),
    findings,
    summary: summaryOf(doc.data.summary),
  };
}

/**
 * A findings document in either form: JSON when it starts with `{`, else Markdown with front
 * matter.
 */
export async function parseFindingsDocument(text: string): Promise<FindingsDocument> {
  let doc;
  try {
    doc = await readStructured(text);
  } catch (err) {
    if (!(err instanceof DocumentProblem)) throw err;
    if (err.part === 'json') throw new FindingsError(`not valid JSON: ${err.message}`);
    if (err.part === 'object') throw new FindingsError('the document is not a JSON object');
    throw new FindingsError(`unreadable front matter: ${err.message.split('\n')[0]}`);
  }
  if (doc === undefined)
    throw new FindingsError('no front matter (a --- block with verdict: and summary:)');
  return doc.dialect === 'json' ? findingsOfJson(doc.data) : findingsOfMarkdown(doc);
}
