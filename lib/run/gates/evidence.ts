// Evidence files that agents write for a run (docs/runtime.md §6): review lane files,
// validation files and resolution files. Parsers only: nothing here reads or writes the
// file system, so a refusal changes nothing.
//
// Formats: JSON; Markdown with YAML front matter carrying the same fields (through
// lib/findings/frontMatter.ts, whose FAILSAFE schema keeps every scalar a string,
// so `cycle: 2` arrives as '2' and `valid: true` as 'true' and both are read strictly);
// and, for lane files only, text with `FINDING <id> <Severity> <title>` lines.
//
// Strictness: unknown keys are refused, a malformed FINDING line is refused (never
// skipped: a blocking finding must not be lost to a typo), a lane or cycle stated in a
// file must be the one asked for (mixed generations), a declared blocking count must equal
// the derived one, and a text lane file that states nothing at all is refused: approval is
// never inferred from silence. Every refusal is fail('refused', one line).
import { fail } from '../../fsx/commandFailure.js';
import {
  DocumentProblem,
  readStructured,
  type StructuredDocument,
} from '../../findings/frontMatter.js';
import { isBlockingSeverity, severityOf } from '../../findings/severity.js';
import { printable } from '../../fsx/printable.js';
import { type Lane, type RunSeverity } from '../record/workflow.js';

const FINDING_ID = /^[A-Za-z0-9._-]+$/;

/** One finding of a lane file. */
export interface LaneFinding {
  id: string;
  severity: RunSeverity;
  title: string;
}

/** A parsed lane file: its findings and how many of them block. */
export interface LaneReport {
  findings: LaneFinding[];
  blocking: number;
}

/** One judgement of a validation file. */
export interface Validation {
  id: string;
  valid: boolean;
  reason: string;
}

/** A parsed validation file. */
export interface ValidationFile {
  cycle: number;
  findings: Validation[];
}

/** One entry of a resolution file. */
export interface Resolution {
  id: string;
  change: string;
  tests: string;
}

/** A parsed resolution file. */
export interface ResolutionFile {
  cycle: number;
  resolved: Resolution[];
}

function refuse(what: string, reason: string): never {
  fail('refused', `invalid ${what}: ${printable(reason)}`);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The text as JSON (when it starts with `{`) or Markdown front matter; undefined for neither. */
async function structuredOf(text: string, what: string): Promise<StructuredDocument | undefined> {
  try {
    return await readStructured(text);
  } catch (err) {
    if (!(err instanceof DocumentProblem)) throw err;
    refuse(
      what,
      err.part === 'json'
        ? `not JSON: ${err.message}`
        : err.part === 'object'
          ? 'not a JSON object'
          : `unreadable front matter: ${err.message}`,
    );
  }
}

function refuseUnknownKeys(
  value: Record<string, unknown>,
  allowed: readonly string[],
  what: string,
  where: string,
): void {
  const unknown = Object.keys(value).find((key) => !allowed.includes(key));
  if (unknown !== undefined)
    refuse(what, `${where}unknown key '${unknown}' (allowed: ${allowed.join(', ')})`);
}

function stringField(
  value: Record<string, unknown>,
  key: string,
  what: string,
  where: string,
): string {
  const field = value[key];
  if (typeof field !== 'string')
    refuse(what, `${where}${key} ${field === undefined ? 'is missing' : 'is not a string'}`);
  return field;
}

/** A non-negative integer: a JSON integer, or a string of digits from front matter or text. */
function integerOf(value: unknown, dialect: 'json' | 'yaml' | 'text'): number | undefined {
  if (dialect === 'json')
    return Number.isSafeInteger(value) && (value as number) >= 0 ? (value as number) : undefined;
  return typeof value === 'string' && /^[0-9]{1,9}$/.test(value.trim())
    ? Number(value.trim())
    : undefined;
}

function integerField(
  value: Record<string, unknown>,
  key: string,
  doc: StructuredDocument,
  what: string,
): number {
  if (value[key] === undefined) refuse(what, `${key} is missing`);
  const n = integerOf(value[key], doc.dialect);
  if (n === undefined) refuse(what, `${key} is not a non-negative integer`);
  return n;
}

function booleanField(
  value: Record<string, unknown>,
  key: string,
  doc: StructuredDocument,
  what: string,
  where: string,
): boolean {
  const field = value[key];
  if (doc.dialect === 'json' && typeof field === 'boolean') return field;
  if (doc.dialect === 'yaml' && (field === 'true' || field === 'false')) return field === 'true';
  return refuse(
    what,
    `${where}${key} ${field === undefined ? 'is missing' : 'is not true or false'}`,
  );
}

/** The entries of a list field, each an object with only `allowed` keys. */
function entriesOf(
  value: Record<string, unknown>,
  key: string,
  allowed: readonly string[],
  what: string,
): Record<string, unknown>[] {
  const list = value[key];
  if (!Array.isArray(list))
    refuse(what, `${key} ${list === undefined ? 'is missing' : 'is not a list'}`);
  return list.map((entry, index) => {
    if (!isPlainObject(entry)) refuse(what, `${key}[${index}] is not an object`);
    refuseUnknownKeys(entry, allowed, what, `${key}[${index}]: `);
    return entry;
  });
}

/**
 * One entry of a findings list with its id (checked, unique in the file) and the prefix that names
 * it in a refusal.
 */
interface IdentifiedEntry {
  entry: Record<string, unknown>;
  id: string;
  where: string;
}

/** Checks a finding id's form and that it is new in this file. */
function requireNewId(id: string, seen: Set<string>, what: string): string {
  if (!FINDING_ID.test(id)) refuse(what, `finding id '${id}' is not [A-Za-z0-9._-]+`);
  if (seen.has(id)) refuse(what, `duplicate finding id '${id}'`);
  seen.add(id);
  return id;
}

/** The entries of list `key`, each with an `id` of the finding-id form, new in this file. */
function identifiedEntriesOf(
  value: Record<string, unknown>,
  key: string,
  allowed: readonly string[],
  what: string,
): IdentifiedEntry[] {
  const seen = new Set<string>();
  return entriesOf(value, key, allowed, what).map((entry, index) => {
    const id = requireNewId(stringField(entry, 'id', what, `${key}[${index}]: `), seen, what);
    return { entry, id, where: `finding '${id}': ` };
  });
}

function requireSeverity(word: string, id: string, what: string): RunSeverity {
  const severity = severityOf(word);
  if (severity === undefined)
    refuse(
      what,
      `finding '${id}': unknown severity '${word}' (Critical, ` +
        `Important, Minor, Nit, or CRITICAL, HIGH, MEDIUM, LOW)`,
    );
  return severity;
}

/** Refuses a file of another lane or cycle than the one asked for. */
function requireGeneration(
  stated: { lane?: string; cycle?: number },
  expected: { lane?: Lane; cycle: number },
  what: string,
): void {
  if (stated.lane !== undefined && expected.lane !== undefined && stated.lane !== expected.lane) {
    fail(
      'refused',
      `mixed generations: ${what} says lane ` +
        `${printable(stated.lane)}; this is the ${expected.lane} lane`,
    );
  }
  if (stated.cycle !== undefined && stated.cycle !== expected.cycle) {
    fail(
      'refused',
      `mixed generations: ${what} says cycle ${stated.cycle}; this ` +
        `review is cycle ${expected.cycle}`,
    );
  }
}

/** The findings and blocking count of a lane's statements, after the declared count is checked. */
function laneReportOf(
  findings: LaneFinding[],
  declared: { name: string; value: number } | undefined,
  what: string,
): LaneReport {
  const blocking = findings.filter((f) => isBlockingSeverity(f.severity)).length;
  if (declared !== undefined && declared.value !== blocking) {
    fail(
      'refused',
      `invalid ${what}: declares ${declared.name} ${declared.value} ` +
        `but has ${blocking} blocking finding(s)`,
    );
  }
  return { findings, blocking };
}

const LANE_KEYS = ['lane', 'cycle', 'findings', 'blocking_findings'] as const;
const LANE_FINDING_KEYS = ['id', 'severity', 'title', 'detail', 'location'] as const;

/** A lane file in JSON or front matter. */
function structuredLaneReport(
  doc: StructuredDocument,
  expected: { lane: Lane; cycle: number },
  what: string,
): LaneReport {
  refuseUnknownKeys(doc.data, LANE_KEYS, what, '');
  if (/^\s*FINDING(\s|$)/m.test(doc.content))
    refuse(what, 'FINDING lines after the front matter: list findings in its findings field');
  requireGeneration(
    {
      lane: stringField(doc.data, 'lane', what, ''),
      cycle: integerField(doc.data, 'cycle', doc, what),
    },
    expected,
    what,
  );
  const findings = identifiedEntriesOf(doc.data, 'findings', LANE_FINDING_KEYS, what).map(
    ({ entry, id, where }) => {
      const severity = requireSeverity(stringField(entry, 'severity', what, where), id, what);
      const title = stringField(entry, 'title', what, where);
      if (title.trim() === '') refuse(what, `${where}title is empty`);
      for (const key of ['detail', 'location'])
        if (entry[key] !== undefined) stringField(entry, key, what, where);
      return { id, severity, title };
    },
  );
  const declared =
    doc.data.blocking_findings === undefined
      ? undefined
      : {
          name: 'blocking_findings',
          value: integerField(doc.data, 'blocking_findings', doc, what),
        };
  return laneReportOf(findings, declared, what);
}

/** The value of a `NAME: value` line, refusing a second one. */
function headerValue(stated: Map<string, string>, name: string, value: string, what: string): void {
  if (stated.has(name)) refuse(what, `${name} is stated twice`);
  stated.set(name, value.trim());
}

function textInteger(stated: Map<string, string>, name: string, what: string): number | undefined {
  const value = stated.get(name);
  if (value === undefined) return undefined;
  const n = integerOf(value, 'text');
  if (n === undefined) refuse(what, `${name} '${value}' is not a non-negative integer`);
  return n;
}

/**
 * A lane file as text: FINDING lines and optional LANE, CYCLE, BLOCKING_FINDINGS lines; other lines
 * are ignored.
 */
function textLaneReport(
  text: string,
  expected: { lane: Lane; cycle: number },
  what: string,
): LaneReport {
  const stated = new Map<string, string>();
  const seen = new Set<string>();
  const findings: LaneFinding[] = [];
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    const header = /^(LANE|CYCLE|BLOCKING_FINDINGS):(.*)$/.exec(line);
    if (header) headerValue(stated, header[1]!, header[2]!, what);
    if (!/^FINDING(\s|$)/.test(line)) continue;
    const parts = /^FINDING\s+(\S+)\s+(\S+)\s+(\S.*)$/.exec(line);
    if (!parts) refuse(what, `malformed line '${line}': expected FINDING <id> <Severity> <title>`);
    const id = requireNewId(parts[1]!, seen, what);
    findings.push({ id, severity: requireSeverity(parts[2]!, id, what), title: parts[3]!.trim() });
  }
  if (findings.length === 0 && stated.size === 0)
    refuse(
      what,
      'no FINDING, LANE, CYCLE or BLOCKING_FINDINGS line: an empty review is never assumed',
    );
  requireGeneration(
    { lane: stated.get('LANE'), cycle: textInteger(stated, 'CYCLE', what) },
    expected,
    what,
  );
  const declared = textInteger(stated, 'BLOCKING_FINDINGS', what);
  return laneReportOf(
    findings,
    declared === undefined ? undefined : { name: 'BLOCKING_FINDINGS', value: declared },
    what,
  );
}

/**
 * Parses a review lane file (§6: JSON, front matter or FINDING lines) of the lane and cycle
 * expected; refuses (exit 2) anything malformed or of another generation.
 */
export async function parseLaneFile(
  text: string,
  expected: { lane: Lane; cycle: number },
): Promise<LaneReport> {
  const what = 'lane file';
  const doc = await structuredOf(text, what);
  return doc === undefined
    ? textLaneReport(text, expected, what)
    : structuredLaneReport(doc, expected, what);
}

/**
 * A validation or resolution file's document and its checked cycle; refuses text that is neither
 * JSON nor front matter.
 */
async function cycleDocumentOf(
  text: string,
  cycle: number,
  what: string,
  keys: readonly string[],
): Promise<StructuredDocument> {
  const doc = await structuredOf(text, what);
  if (doc === undefined) refuse(what, 'neither JSON nor Markdown with YAML front matter');
  refuseUnknownKeys(doc.data, keys, what, '');
  requireGeneration({ cycle: integerField(doc.data, 'cycle', doc, what) }, { cycle }, what);
  return doc;
}

/**
 * The entries under `list` of a cycle's file (JSON or front matter), each with only the `fields`
 * given, an id new in the list, and `read` into what the file says of it.
 */
async function cycleEntriesOf<E>(
  text: string,
  cycle: number,
  [what, list, fields]: [string, string, string[]],
  read: (entry: Record<string, unknown>, where: string, doc: StructuredDocument) => E,
): Promise<({ id: string } & E)[]> {
  const doc = await cycleDocumentOf(text, cycle, what, ['cycle', list]);
  return identifiedEntriesOf(doc.data, list, fields, what).map((e) => ({
    id: e.id,
    ...read(e.entry, e.where, doc),
  }));
}

/**
 * Parses a validation file `{cycle, findings: [{id, valid, reason}]}` of `cycle` (JSON or front
 * matter).
 */
export async function parseValidationFile(text: string, cycle: number): Promise<ValidationFile> {
  const what = 'validation file';
  const findings = await cycleEntriesOf(
    text,
    cycle,
    [what, 'findings', ['id', 'valid', 'reason']],
    (entry, where, doc) => ({
      valid: booleanField(entry, 'valid', doc, what, where),
      reason: stringField(entry, 'reason', what, where),
    }),
  );
  return { cycle, findings };
}

/**
 * Parses a resolution file `{cycle, resolved: [{id, change, tests}]}` of `cycle` (JSON or front
 * matter).
 */
export async function parseResolutionFile(text: string, cycle: number): Promise<ResolutionFile> {
  const what = 'resolution file';
  const fields = ['id', 'change', 'tests'];
  const resolved = await cycleEntriesOf(text, cycle, [what, 'resolved', fields], (e, where) => ({
    change: stringField(e, 'change', what, where),
    tests: stringField(e, 'tests', what, where),
  }));
  return { cycle, resolved };
}

/**
 * Each id that `entries` leave out (`<noun> '<id>' is not <done>`) or cover with a blank text (`...
 * is <done> without <what>`).
 */
function coverageGaps<T extends { id: string }>(
  ids: readonly string[],
  entries: readonly T[],
  text: (e: T) => string,
  noun: string,
  done: string,
  what: string,
): string[] {
  const byId = new Map(entries.map((e) => [e.id, e]));
  return ids.flatMap((id) => {
    const entry = byId.get(id);
    if (entry === undefined) return [`${noun} '${id}' is not ${done}`];
    return text(entry).trim() === '' ? [`${noun} '${id}' is ${done} without ${what}`] : [];
  });
}

/**
 * What keeps a validation from being positive (§6): each blocking finding not judged, or judged
 * without a reason. Empty = positive.
 */
export function validationGaps(
  validation: ValidationFile,
  blockingIds: readonly string[],
): string[] {
  return coverageGaps(
    blockingIds,
    validation.findings,
    (v) => v.reason,
    'blocking finding',
    'validated',
    'a reason',
  );
}

/** The ids a validation judged valid: the findings a resolution must cover. */
export function validIdsOf(validation: ValidationFile): string[] {
  return validation.findings.filter((v) => v.valid).map((v) => v.id);
}

/**
 * What keeps a resolution from being complete (§6): each valid finding not resolved, or resolved
 * without saying what changed. Empty = complete.
 */
export function resolutionGaps(resolution: ResolutionFile, validIds: readonly string[]): string[] {
  return coverageGaps(
    validIds,
    resolution.resolved,
    (r) => r.change,
    'valid finding',
    'resolved',
    'a change',
  );
}
