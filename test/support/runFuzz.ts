// Mutated run records for test/bin/run_fuzz.test.ts: a seeded generator of invalid
// workflow.json files made from one valid record, the judge of what `baton run` must do
// with each (refuse with one line, exit 2, no stack trace, change nothing), and an
// in-process driver of the CLI entry (lib/cli/run/runCommand.ts) over many records.
//
// The driver runs in a child process of its own (`node --import tsx runFuzz.ts JOB.json`),
// so replacing process.stdout.write, process.stderr.write and process.exitCode for each
// call never touches mocha's process; it writes its results as JSON to the job's `out`.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { mulberry32 } from './seededRandom.js';

/** mulberry32: small, fast, good enough to pick test inputs. */
export class Rng {
  readonly next: () => number;
  constructor(seed: number) {
    this.next = mulberry32(seed);
  }
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  pick<T>(list: readonly T[]): T {
    return list[this.int(list.length)]!;
  }
  word(): string {
    return Array.from({ length: 1 + this.int(10) }, () =>
      this.pick('abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_-0123456789'.split('')),
    ).join('');
  }
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Path = (string | number)[];

/** The kinds of mutation, in the order the records cycle through them (so any 13 consecutive records hold each kind once). */
export const MUTATION_KINDS = [
  'wrong-type',
  'enum',
  'unknown-key-top',
  'unknown-key-nested',
  'unknown-key-artifact',
  'missing-key',
  'truncated',
  'non-utf8',
  'schema-version',
  'duplicate-artifact',
  'bad-timestamp',
  'cross-field',
  'not-an-object',
] as const;
export type MutationKind = (typeof MUTATION_KINDS)[number];

/** One mutated record. */
export interface Mutated {
  index: number;
  kind: MutationKind;
  /** What was changed, for a failure report. */
  what: string;
  bytes: Buffer;
}

const isObject = (v: Json | undefined): v is { [key: string]: Json } =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const clone = (v: Json): Json => JSON.parse(JSON.stringify(v)) as Json;
const show = (p: Path) => `/${p.join('/')}`;

/** Every path below `value` (not the root), depth first. */
function pathsOf(value: Json, prefix: Path = []): Path[] {
  const out: Path[] = [];
  if (Array.isArray(value))
    value.forEach((v, i) => out.push([...prefix, i], ...pathsOf(v, [...prefix, i])));
  else if (isObject(value))
    for (const [k, v] of Object.entries(value))
      out.push([...prefix, k], ...pathsOf(v, [...prefix, k]));
  return out;
}

function getAt(root: Json, path: Path): Json {
  return path.reduce<Json>((v, k) => (v as Record<string | number, Json>)[k]!, root);
}

/** Sets an own, enumerable property (also for `__proto__`, which plain assignment would not make a key). */
function setKey(target: object, key: string | number, value: Json): void {
  Object.defineProperty(target, key, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}

function setAt(root: Json, path: Path, value: Json): void {
  setKey(getAt(root, path.slice(0, -1)) as object, path[path.length - 1]!, value);
}

/** The JSON type of a value, telling integers from other numbers. */
function typeOf(v: Json): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

/** A value of another JSON type than `v`. */
function otherTyped(rng: Rng, v: Json): Json {
  const candidates: Json[] = [
    null,
    true,
    false,
    0,
    -1,
    7,
    2 ** 53,
    1.5,
    -0.25,
    '',
    'x',
    rng.word(),
    '1',
    'true',
    'null',
    [],
    [1],
    ['a', 'b'],
    [null],
    {},
    { a: 1 },
    { [rng.word()]: rng.word() },
  ];
  const others = candidates.filter(
    (c) => typeOf(c) !== typeOf(v) && !(typeOf(v) === 'number' && typeOf(c) === 'integer'),
  );
  return clone(rng.pick(others));
}

const KEY_NAMES = [
  'extra',
  'note',
  'Status',
  'status ',
  'run-id',
  'ståtus',
  '',
  ' ',
  '__proto__',
  'constructor',
  'toString',
  'hasOwnProperty',
  '$schema',
  'x'.repeat(200),
  '\u0000',
  'emoji 🙂',
];

function unknownKey(rng: Rng, existing: object): string {
  for (;;) {
    const key = rng.int(3) === 0 ? rng.word() : rng.pick(KEY_NAMES);
    if (!Object.hasOwn(existing, key)) return key;
  }
}

const TIME_FIELDS_TOP = [
  'created_at',
  'updated_at',
  'last_checkpoint_at',
  'last_acceptance_at',
  'last_resolution_at',
];
const BAD_TIMES: Json[] = [
  '',
  'yesterday',
  'now',
  '2026-01-01',
  '2026-01-01T00:00:00',
  '2026-01-01 00:00:00Z',
  '2026-01-01T00:00:00+00:00',
  '2026-01-01T00:00:00z',
  '2026-01-01T00:00:00.1234567890Z',
  '26-01-01T00:00:00Z',
  '20260101T000000Z',
  '２０２６-01-01T00:00:00Z',
  '2026-01-01T00:00:00Z\n',
  ' 2026-01-01T00:00:00Z',
  '2026-01-01T00:00:00.Z',
  '+002026-01-01T00:00:00Z',
  1767225600000,
  0,
  true,
  [],
  {},
  // Shaped like a time but impossible: the schema's pattern checks the shape only, so these stay valid and are skipped.
  '2026-13-45T25:61:61Z',
  '0000-00-00T00:00:00Z',
];

const STATUS = [
  'ACTIVE',
  'PAUSED',
  'BLOCKED',
  'WAITING_FOR_HUMAN_APPROVAL',
  'FAILED',
  'CANCELLED',
  'COMPLETED',
];
const PHASE = [
  'IDLE',
  'STAGE_ACTIVE',
  'PAUSE_REQUESTED',
  'REVIEW_PENDING',
  'FINDINGS_PENDING',
  'APPROVAL_PENDING',
  'DONE',
];
const ENUM_WORDS = [
  'RUNNING',
  'SLEEPING',
  'APPROVED',
  'UNKNOWN',
  'DONE',
  'COMPLETED',
  'IDLE',
  'Critical',
  'HIGH',
  'LOW',
  'structured',
  'security',
  'null',
  '',
];

/** A changed copy of `record` of kind `kind`; `what` says what changed. Undefined when the record has nothing the kind can change (no artifact entry). */
function mutateOnce(
  rng: Rng,
  kind: MutationKind,
  record: { [key: string]: Json },
  text: string,
): { bytes: Buffer; what: string } | undefined {
  const r = clone(record) as { [key: string]: Json };
  const done = (what: string) => ({
    bytes: Buffer.from(`${JSON.stringify(r, null, 2)}\n`, 'utf8'),
    what,
  });
  const objectPaths = () => [[] as Path, ...pathsOf(r).filter((p) => isObject(getAt(r, p)))];
  switch (kind) {
    case 'wrong-type': {
      const path = rng.pick(pathsOf(r));
      const value = otherTyped(rng, getAt(r, path));
      setAt(r, path, value);
      return done(`${show(path)} = ${JSON.stringify(value)}`);
    }
    case 'enum': {
      const paths: Path[] = [['status'], ['phase']];
      (r.findings as Json[]).forEach((_, i) =>
        paths.push(['findings', i, 'lane'], ['findings', i, 'severity']),
      );
      const path = rng.pick(paths);
      const current = String(getAt(r, path));
      const value = rng.pick([
        current.toLowerCase(),
        `${current} `,
        ` ${current}`,
        current.slice(0, -1),
        rng.pick(ENUM_WORDS),
        rng.pick(path[0] === 'status' ? PHASE : STATUS),
        rng.word().toUpperCase(),
      ]);
      setAt(r, path, value);
      return done(`${show(path)} = ${JSON.stringify(value)}`);
    }
    case 'unknown-key-top': {
      const key = unknownKey(rng, r);
      setKey(r, key, otherTyped(rng, null));
      return done(`unknown key ${JSON.stringify(key)} at the top`);
    }
    case 'unknown-key-nested': {
      const path = rng.pick(objectPaths().filter((p) => p.length > 0 && p[0] !== 'artifacts'));
      const target = getAt(r, path) as object;
      const key = unknownKey(rng, target);
      setKey(target, key, otherTyped(rng, null));
      return done(`unknown key ${JSON.stringify(key)} in ${show(path)}`);
    }
    case 'unknown-key-artifact': {
      if ((r.artifacts as Json[]).length === 0) return undefined;
      const i = rng.int((r.artifacts as Json[]).length);
      const target = (r.artifacts as Json[])[i] as object;
      const key = unknownKey(rng, target);
      setKey(target, key, otherTyped(rng, null));
      return done(`unknown key ${JSON.stringify(key)} in /artifacts/${i}`);
    }
    case 'missing-key': {
      const path = rng.pick(pathsOf(r).filter((p) => typeof p[p.length - 1] === 'string'));
      delete (getAt(r, path.slice(0, -1)) as Record<string, Json>)[path[path.length - 1] as string];
      return done(`${show(path)} removed`);
    }
    case 'truncated': {
      const bytes = Buffer.from(text, 'utf8');
      const at = rng.int(bytes.length);
      return { bytes: bytes.subarray(0, at), what: `cut at byte ${at} of ${bytes.length}` };
    }
    case 'non-utf8': {
      const sequences = [
        [0xff],
        [0xfe],
        [0x80],
        [0xbf],
        [0xc0, 0x80],
        [0xc1, 0xbf],
        [0xe0, 0x80, 0x80],
        [0xed, 0xa0, 0x80],
        [0xf4, 0x90, 0x80, 0x80],
        [0xf8, 0x88, 0x80, 0x80, 0x80],
        [0xe2, 0x82],
        [0xc3],
      ];
      let bytes = Buffer.from(text, 'utf8');
      const notes: string[] = [];
      for (let n = 1 + rng.int(3); n > 0; n--) {
        const seq = Buffer.from(rng.pick(sequences));
        const at = rng.int(bytes.length + 1);
        const overwrite = rng.int(2) === 0;
        bytes = Buffer.concat([
          bytes.subarray(0, at),
          seq,
          bytes.subarray(overwrite ? Math.min(bytes.length, at + seq.length) : at),
        ]);
        notes.push(`${overwrite ? 'over' : 'into'} byte ${at}: ${seq.toString('hex')}`);
      }
      return { bytes, what: `non-UTF-8 ${notes.join(', ')}` };
    }
    case 'schema-version': {
      const value = rng.pick<Json | undefined>([
        2,
        0,
        -1,
        2 + rng.int(1_000_000),
        '1',
        1.5,
        null,
        true,
        [1],
        {},
        rng.word(),
        1e21,
        undefined,
      ]);
      if (value === undefined) delete r.schema_version;
      else r.schema_version = value;
      return done(
        `/schema_version ${value === undefined ? 'removed' : `= ${JSON.stringify(value)}`}`,
      );
    }
    case 'duplicate-artifact': {
      const list = r.artifacts as { [key: string]: Json }[];
      if (list.length === 0) return undefined;
      const i = rng.int(list.length);
      const copy = { ...list[i]! };
      const changed = rng.pick(['nothing', 'sha256', 'type', 'producer']);
      if (changed === 'sha256') copy.sha256 = createHash('sha256').update(rng.word()).digest('hex');
      else if (changed !== 'nothing') copy[changed] = rng.word();
      list.splice(rng.int(list.length + 1), 0, copy);
      return done(`/artifacts/${i} repeated (${changed} changed)`);
    }
    case 'bad-timestamp': {
      const paths: Path[] = TIME_FIELDS_TOP.map((k) => [k]);
      (r.history as Json[]).forEach((_, i) => paths.push(['history', i, 'at']));
      paths.push(['observations', 'updated_at']);
      for (const role of Object.keys((r.observations as { panes: object }).panes))
        paths.push(['observations', 'panes', role, 'seen_at']);
      const path = rng.pick(paths);
      const value = clone(rng.pick(BAD_TIMES));
      setAt(r, path, value);
      return done(`${show(path)} = ${JSON.stringify(value)}`);
    }
    case 'cross-field': {
      const breaks: [string, () => void][] = [
        [
          'STAGE_ACTIVE without a stage',
          () => {
            r.phase = 'STAGE_ACTIVE';
            r.active_stage = null;
          },
        ],
        [
          'pause_requested flipped',
          () => {
            r.pause_requested = !r.pause_requested;
          },
        ],
        [
          'review_cycle above max_review_cycles',
          () => {
            r.review_cycle = (r.max_review_cycles as number) + 1 + rng.int(5);
          },
        ],
        [
          'COMPLETED not DONE',
          () => {
            r.status = 'COMPLETED';
          },
        ],
        [
          'BLOCKED without a reason',
          () => {
            r.status = 'BLOCKED';
            r.block_reason = rng.pick([null, '']);
          },
        ],
        [
          'active_stage not in stage_order',
          () => {
            r.phase = 'STAGE_ACTIVE';
            r.active_stage = 'nosuchstage';
          },
        ],
        [
          'last_completed_stage not in stage_order',
          () => {
            r.last_completed_stage = 'nosuchstage';
          },
        ],
        [
          'a finding repeated',
          () => {
            (r.findings as Json[]).push(clone((r.findings as Json[])[0] ?? null));
          },
        ],
        [
          'run_id of another folder',
          () => {
            r.run_id = `run-20200101T000000Z-${rng.int(0xffffff).toString(16).padStart(6, '0')}`;
          },
        ],
      ];
      const [what, apply] = rng.pick(breaks);
      apply();
      return done(what);
    }
    case 'not-an-object': {
      const value = rng.pick<Json>([
        [],
        [r],
        null,
        0,
        rng.int(1e9),
        '',
        rng.word(),
        true,
        {},
        { schema_version: 1 },
        { schema_version: 1, runtime_release: rng.word() },
      ]);
      const bytes = Buffer.from(
        rng.int(2) === 0 ? JSON.stringify(value) : `${JSON.stringify(value, null, 2)}\n`,
        'utf8',
      );
      return { bytes, what: `the whole record is ${JSON.stringify(value).slice(0, 40)}` };
    }
  }
}

/**
 * `count` distinct mutated records of `base` (the bytes of a valid record). Record i is of
 * kind MUTATION_KINDS[i % n]; a mutation that is still valid (`isValid`) or repeats an
 * earlier record is drawn again (after 20 such draws, of a random kind: a kind whose few
 * variants are used up). Deterministic for a seed.
 */
export function mutatedRecords(
  base: Buffer,
  seed: number,
  count: number,
  isValid: (bytes: Buffer) => boolean,
): { records: Mutated[]; stillValid: Record<string, number> } {
  const text = base.toString('utf8');
  const record = JSON.parse(text) as { [key: string]: Json };
  const rng = new Rng(seed);
  const seen = new Set<string>([createHash('sha256').update(base).digest('hex')]);
  const stillValid: Record<string, number> = {};
  const records: Mutated[] = [];
  for (let index = 0; index < count; index++) {
    let kind: MutationKind = MUTATION_KINDS[index % MUTATION_KINDS.length]!;
    for (let attempt = 0; ; attempt++) {
      if (attempt === 1000)
        throw new Error(`record ${index}: 1000 mutations in a row were valid or repeated`);
      const mutated = mutateOnce(rng, kind, record, text);
      if (mutated === undefined) {
        kind = rng.pick(MUTATION_KINDS);
        continue;
      }
      const { bytes, what } = mutated;
      const digest = createHash('sha256').update(bytes).digest('hex');
      if (!seen.has(digest)) {
        if (!isValid(bytes)) {
          seen.add(digest);
          records.push({ index, kind, what, bytes });
          break;
        }
        const key = `${kind}: ${what.replace(/\/\d+\//g, '/N/')}`;
        stillValid[key] = (stillValid[key] ?? 0) + 1;
      }
      if (attempt >= 20) kind = rng.pick(MUTATION_KINDS);
    }
  }
  return { records, stillValid };
}

/** What one `baton run` call did. */
export interface CallResult {
  code: number | null;
  signal?: string | null;
  stdout: string;
  stderr: string;
}

/** What status and the mutating action did with one record, and which files of the run folder changed. */
export interface RecordResult {
  index: number;
  calls: { action: string; result: CallResult }[];
  changed: string[];
}

/** Why a result breaks the rule (exit 2, one stderr line `baton run <action>: ` about the record, no stack, no stdout, nothing changed); empty when it keeps it. */
export function problemsOf(r: RecordResult): string[] {
  const problems: string[] = [];
  for (const { action, result } of r.calls) {
    if (result.code !== 2)
      problems.push(
        `${action}: exit ${result.code}${result.signal ? ` (${result.signal})` : ''}, not 2`,
      );
    if (result.stdout !== '')
      problems.push(`${action}: printed ${JSON.stringify(result.stdout.slice(0, 200))}`);
    const lines = result.stderr.split('\n').filter((l) => l !== '');
    if (lines.length !== 1 || !result.stderr.endsWith('\n'))
      problems.push(
        `${action}: ${lines.length} stderr lines, not 1: ${JSON.stringify(result.stderr.slice(0, 400))}`,
      );
    if (!lines[0]?.startsWith(`baton run ${action}: `))
      problems.push(
        `${action}: stderr does not start 'baton run ${action}: ': ${JSON.stringify(lines[0])}`,
      );
    else if (
      !/^baton run \S+: (invalid record '|run was created with schema version )/.test(lines[0])
    )
      problems.push(`${action}: not a refusal of the record: ${JSON.stringify(lines[0])}`);
    if (/^\s+at /m.test(result.stderr)) problems.push(`${action}: a stack trace`);
  }
  if (r.changed.length > 0) problems.push(`files changed: ${r.changed.join(', ')}`);
  return problems;
}

/** Every file below `dir` with its bytes (base64). */
export function folderBytes(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string, rel: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(d, e.name), `${rel}${e.name}/`);
      else out.set(`${rel}${e.name}`, fs.readFileSync(join(d, e.name)).toString('base64'));
    }
  };
  walk(dir, '');
  return out;
}

/** The files that differ between two folderBytes maps (added, removed or changed). */
export function changedFiles(before: Map<string, string>, after: Map<string, string>): string[] {
  return [...new Set([...before.keys(), ...after.keys()])]
    .filter((k) => before.get(k) !== after.get(k))
    .sort();
}

/** The job of the in-process driver. */
export interface DriverJob {
  /** ROOT (the repository's main checkout), the driver's working directory. */
  root: string;
  runId: string;
  /** Each call's arguments after `run`; `RUN` stands for the run id. */
  actions: string[][];
  /** The mutated records as base64, with their indices. */
  records: { index: number; bytes: string }[];
  /** Where the results go (JSON): the unmutated record's calls first (index -1), then one RecordResult per record. */
  out: string;
}

/** Runs every record of `job` through runRunCommand in this process, capturing each call's output and exit code. */
async function drive(job: DriverJob): Promise<void> {
  const { runRunCommand } = await import('../../lib/cli/run/runCommand.js');
  // ROOT given, as a controller may give it: found by git, it would cost a git process per call.
  process.env.SWARMFORGE_ROOT = job.root;
  delete process.env.BATON_CRASH_AT;
  process.chdir(job.root);
  const dir = join(job.root, '.swarmforge', 'runs', job.runId);
  const workflow = join(dir, 'workflow.json');
  const original = fs.readFileSync(workflow);
  const realOut = process.stdout.write.bind(process.stdout);
  const realErr = process.stderr.write.bind(process.stderr);
  const call = async (args: string[]): Promise<CallResult> => {
    let stdout = '';
    let stderr = '';
    process.exitCode = undefined;
    process.stdout.write = ((chunk: string | Uint8Array) => {
      stdout += chunk.toString();
      return true;
    }) as typeof process.stdout.write;
    process.stderr.write = ((chunk: string | Uint8Array) => {
      stderr += chunk.toString();
      return true;
    }) as typeof process.stderr.write;
    try {
      await runRunCommand(
        args.map((a) => (a === 'RUN' ? job.runId : a)),
        (text) => void process.stdout.write(text),
      );
    } catch (err) {
      stderr += `uncaught: ${(err as Error).stack ?? String(err)}\n`;
    } finally {
      process.stdout.write = realOut;
      process.stderr.write = realErr;
    }
    const code =
      typeof process.exitCode === 'number' ? process.exitCode : Number(process.exitCode ?? 0);
    process.exitCode = undefined;
    return { code, stdout, stderr };
  };
  const results: RecordResult[] = [];
  results.push({
    index: -1,
    calls: [{ action: 'status', result: await call(['status', 'RUN']) }],
    changed: [],
  });
  for (const record of job.records) {
    fs.writeFileSync(workflow, Buffer.from(record.bytes, 'base64'));
    const before = folderBytes(dir);
    const calls: RecordResult['calls'] = [];
    for (const args of job.actions) calls.push({ action: args[0]!, result: await call(args) });
    results.push({ index: record.index, calls, changed: changedFiles(before, folderBytes(dir)) });
  }
  fs.writeFileSync(workflow, original);
  fs.writeFileSync(job.out, JSON.stringify(results));
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const job = JSON.parse(fs.readFileSync(process.argv[2]!, 'utf8')) as DriverJob;
  await drive(job);
}
