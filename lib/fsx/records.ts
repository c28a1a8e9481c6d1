// Whole-file state replaced in place (bookbags, workflow.json, lease.json, the controller's
// phase, leaf and reviewer records, teacher sessions, consolidation summaries, agent
// settings), and the typed JSON records among them: one way to write, one way to read, one
// schema-error formatter.
//
// Crash contract: a write is a temp file in the same folder (unique to the writing process),
// written, fsync'd, given its mode (0600 unless said; group-readable in a shared folder,
// sharedFolders.ts), renamed over the target, then an
// fsync of the folder, so a reader sees the old content or the new, never a torn one, and a
// success reported after it survives power loss. A crash may leave the temp file
// (`<name>.<pid>.<n>.tmp`), never a torn target. The folder is created (0700, or
// shared like its parent) when missing.
// A symlink in the target's place is refused, never written through, and reads never follow
// one (O_NOFOLLOW).
//
// Concurrency contract: none here. A record changed by several processes is changed under
// its own lock (updateRecord holds it from the read to the end of the write).
import * as fs from 'node:fs';
import { dirname } from 'node:path';
import { isCode } from './absent.js';
import { crashPoint } from './crash.js';
import { fsyncDir, mkdirSynced, type StagedWrite, writeStaged } from './durable.js';
import { fileModeIn, keepSharedMode } from './sharedFolders.js';
import { acquireLock } from './lock.js';

/** A file that is a symlink where whole-file state should be: refused, never followed. */
export class SymlinkRefused extends Error {
  constructor(readonly path: string) {
    super(`refusing to use a symlink '${path}'`);
  }
}

/** Options of a replacing write. */
export interface ReplaceOptions {
  /** File mode (default 0600); `keep` keeps an existing file's mode (a person's settings file). */
  mode?: number | 'keep';
  /** Crash points passed after the rename and after the folder fsync (fault tests). */
  crashSteps?: { written?: string; synced?: string };
}

/** Replaces `path` with `data` atomically, then fsyncs its folder (module contract above). */
export function replaceFile(
  path: string,
  data: string | Buffer,
  options: ReplaceOptions = {},
): void {
  writeStaged(stageReplace(path, data, options));
}

let tempsMade = 0;

/**
 * Makes `path`'s folder and refuses a symlink in `path`'s place; returns a temp name beside it,
 * unique to this process, for a write that will be renamed over it.
 */
function tempBeside(path: string): string {
  mkdirSynced(dirname(path));
  if (fs.lstatSync(path, { throwIfNoEntry: false })?.isSymbolicLink())
    throw new SymlinkRefused(path);
  return `${path}.${process.pid}.${++tempsMade}.tmp`;
}

/**
 * replaceFile in two halves (durable.ts StagedWrite), for a caller that writes it together with
 * other files: the folder made and a symlink refused now; the temp file beside `path`; then its
 * mode, the rename over `path` and the folder's fsync. The mode is `mode`, or with `keep` the
 * existing file's mode and (when run as root) its owner, or for a new file 0666 less the umask,
 * as an editor would make it. Done here rather than with write-file-atomic, which loads
 * node:crypto and installs exit handlers at every command's start (issue 22); the steps and
 * their order are the same.
 */
export function stageReplace(
  path: string,
  data: string | Buffer,
  options: ReplaceOptions = {},
): StagedWrite {
  const mode = options.mode ?? 0o600;
  const temp = tempBeside(path);
  const existing = mode === 'keep' ? fs.statSync(path, { throwIfNoEntry: false }) : undefined;
  const asked = mode === 'keep' ? 0o666 : mode;
  const publish = () => {
    if (mode !== 'keep') fs.chmodSync(temp, fileModeIn(dirname(temp), asked));
    else if (existing) {
      fs.chmodSync(temp, existing.mode & 0o7777);
      if (process.getuid?.() === 0) fs.chownSync(temp, existing.uid, existing.gid);
    }
    crashPoint('replace:temp-written');
    fs.renameSync(temp, path);
    if (options.crashSteps?.written) crashPoint(options.crashSteps.written);
    fsyncDir(dirname(path));
    if (options.crashSteps?.synced) crashPoint(options.crashSteps.synced);
  };
  return { files: [{ path: temp, data, exclusive: true, mode: asked }], publish };
}

/**
 * Replaces `path` with `data` atomically but not durably: replaceFile's temp file and rename
 * (mode 0600, or group-readable in a shared folder; a symlink refused), without its fsyncs. For
 * an observation a crash may lose, which readers never believe alone (an agent's hooks report,
 * docs/runtime.md §11.6): its two fsyncs were about 1 ms of every hook call (issue 22).
 */
export function replaceFileAtomically(path: string, data: string): void {
  const temp = tempBeside(path);
  try {
    const mode = fileModeIn(dirname(path));
    fs.writeFileSync(temp, data, { flag: 'wx', mode });
    keepSharedMode(temp, mode);
    fs.renameSync(temp, path);
  } catch (err) {
    fs.rmSync(temp, { force: true });
    throw err;
  }
}

/** The text a JSON record is written as: two-space indented, one final line break. */
export function jsonText(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/** Replaces `path` with `value` as JSON (jsonText), atomically. */
export function replaceJson(path: string, value: unknown, options: ReplaceOptions = {}): void {
  replaceFile(path, jsonText(value), options);
}

/**
 * The bytes of `path` read without following a symlink; undefined when it does not exist;
 * SymlinkRefused for a symlink.
 */
export function readNoFollow(path: string): Buffer | undefined {
  let fd: number;
  try {
    fd = fs.openSync(path, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
  } catch (err) {
    if (isCode(err, 'ENOENT')) return undefined;
    if (isCode(err, 'ELOOP')) throw new SymlinkRefused(path);
    throw err;
  }
  try {
    return fs.readFileSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** An ajv standalone validator: a predicate that leaves its complaints on `errors`. */
export type SchemaValidator = (data: unknown) => boolean;

interface SchemaError {
  instancePath: string;
  message?: string;
  params?: Record<string, unknown>;
}

/**
 * The schema's complaints about `data`, one line each (`<pointer> <message>`), empty when valid.
 */
export function schemaProblems(validate: SchemaValidator, data: unknown): string[] {
  if (validate(data)) return [];
  const errors = (validate as unknown as { errors?: SchemaError[] }).errors ?? [];
  return errors.map((e) => {
    const extra = e.params?.additionalProperty;
    return (
      `${e.instancePath || '/'} ` +
      `${e.message ?? 'is invalid'}${extra ? ` '${String(extra)}'` : ''}`
    );
  });
}

/** Why bytes are not a JSON value: `not UTF-8`, `not JSON: <parser's words>`; or the value. */
export function parseJsonBytes(bytes: Buffer): { value: unknown } | { problem: string } {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return { problem: 'not UTF-8' };
  }
  try {
    return { value: JSON.parse(text) };
  } catch (err) {
    return { problem: `not JSON: ${(err as Error).message}` };
  }
}

/**
 * One kind of typed JSON record: its schema, the rules across its fields that a schema
 * cannot say, and how the owner of the kind reports a bad file (each stage keeps its own
 * messages and exit codes).
 */
export interface RecordKind<T> {
  /** What a message calls it: `record`, `lease`, `bookbag`. */
  what: string;
  validate: SchemaValidator;
  /** Problems across fields (checked once the schema holds). */
  invariants?: (value: T) => string[];
  /**
   * The error for a file that is a symlink, not JSON, or not a valid record (every problem given).
   */
  invalid: (path: string, problems: string[]) => Error;
  /** Crash points of a write. */
  crashSteps?: ReplaceOptions['crashSteps'];
}

/**
 * Every problem of `data` as a record of `kind`: the schema's first, then (when it holds) the
 * invariants.
 */
export function recordProblems<T>(kind: RecordKind<T>, data: unknown): string[] {
  const schema = schemaProblems(kind.validate, data);
  if (schema.length > 0 || kind.invariants === undefined) return schema;
  return kind.invariants(data as T);
}

/**
 * Reads a record of `kind` from `path`: undefined when absent; the kind's error when it is a
 * symlink, not JSON or invalid.
 */
export function readRecord<T>(path: string, kind: RecordKind<T>): T | undefined {
  let bytes: Buffer | undefined;
  try {
    bytes = readNoFollow(path);
  } catch (err) {
    if (err instanceof SymlinkRefused) throw kind.invalid(path, ['is a symlink']);
    throw err;
  }
  if (bytes === undefined) return undefined;
  const parsed = parseJsonBytes(bytes);
  if ('problem' in parsed) throw kind.invalid(path, [parsed.problem]);
  const problems = recordProblems(kind, parsed.value);
  if (problems.length > 0) throw kind.invalid(path, problems);
  return parsed.value as T;
}

/** Writes a valid record of `kind` (a programming error, thrown, when it is not), atomically. */
export function writeRecord<T>(path: string, kind: RecordKind<T>, value: T): void {
  writeStaged(stageRecord(path, kind, value));
}

/** writeRecord in two halves (durable.ts StagedWrite): checked and staged now, published later. */
export function stageRecord<T>(path: string, kind: RecordKind<T>, value: T): StagedWrite {
  const problems = recordProblems(kind, value);
  if (problems.length > 0)
    throw new Error(`refusing to write an invalid ${kind.what} '${path}': ${problems[0]}`);
  try {
    return stageReplace(path, jsonText(value), { crashSteps: kind.crashSteps });
  } catch (err) {
    if (err instanceof SymlinkRefused) throw kind.invalid(path, ['is a symlink']);
    throw err;
  }
}

/**
 * How long a change of a record waits for the record's lock before LockBusy (exit 75) by default.
 */
export const RECORD_LOCK_WAIT_MS = 10_000;

/** Runs `fn` holding the lock folder `lockDir` (bounded wait, then LockBusy: exit 75). */
export async function withLockHeld<T>(
  lockDir: string,
  timeoutMs: number | undefined,
  fn: () => Promise<T> | T,
): Promise<T> {
  const release = acquireLock(lockDir, timeoutMs);
  try {
    return await fn();
  } finally {
    release();
  }
}
