// A run's artifacts (docs/runtime.md §3): immutable evidence files under the run folder,
// named by stage, cycle and kind, hashed into the manifest of workflow.json.
//
// Concurrency contract: none of these functions take a lock. Callers that change a run
// (write evidence, import a file, then record the manifest entry) hold the run's lock
// (runStore.withRunLock) around the whole step, so two writers never race for a name.
//
// Crash contract: an artifact file is created exclusively (O_CREAT|O_EXCL|O_NOFOLLOW,
// mode 0600), written, fsync'd, and only then is artifacts/ fsync'd; the caller records the
// manifest entry after that. A crash before the record leaves an orphan file that no
// manifest names: harmless, and its name counts as taken (artifactPathTaken), so the next
// attempt writes `-2`. A file is never overwritten, whatever the crash left.
// A copied file (importArtifactFile) takes the names rule too (§3: stage, cycle, its type,
// its own extension), so a `report.md` of cycle 1 and one of cycle 2 are two artifacts.
// Its rerun after a kill reuses a complete copy (the source's bytes) that a killed attempt
// left under one of those names and no manifest names, instead of leaving it an orphan
// beside a `-2`; any other file there counts as taken. A copy under a name the caller chose
// (a reply's cycle-specific name) has no `-2` of its own choosing: at that name a complete
// copy is reused; a torn one (a beginning of the source's bytes: the kill came between the
// file's creation and its last write) makes the copy take the next free `<name>-<n>.<ext>`;
// anything else is refused. So the rerun of a killed checkpoint registers its files instead
// of refusing them as existing. Records that hold copies under their sources' own names
// (made before the names rule) stay valid: a manifest path is any path of the §3 form.
//
// Trust: an artifact is checked through the run folder, component by component, with
// lstat: a symlink anywhere below the run folder is reported, never followed, and the
// final open is O_NOFOLLOW with an inode match against the lstat. Checks never throw for
// a bad file; they report it, so `status` can show every bad artifact at once.
import * as fs from 'node:fs';
import { dirname, extname, join, posix, relative, resolve, sep } from 'node:path';
import { fail } from '../../fsx/commandFailure.js';
import { sha256Hasher, sha256Hex } from '../../fsx/digests.js';
import { type RunPaths } from '../../project/layout.js';
import { crashPoint } from '../../fsx/crash.js';
import { fsyncDir, mkdirSynced, writeFileSynced } from '../../fsx/durable.js';
import {
  dropFolderModeIn,
  fileModeIn,
  keepSharedMode,
  makeFolder,
} from '../../fsx/sharedFolders.js';
import { isCode } from '../../fsx/absent.js';
import { printable } from '../../fsx/printable.js';
import { type Artifact, type Workflow } from '../record/workflow.js';
import { isoOf } from '../../fsx/timestamps.js';

/**
 * The artifact folder's name inside a run folder, as RunPaths.artifacts spells it (a test keeps the
 * two equal).
 */
export const ARTIFACTS_FOLDER = 'artifacts';

const STAGE_OR_RUN = /^[a-z][a-z0-9_-]{0,31}$/;
const KIND = /^[a-z][a-z0-9_-]{0,63}$/;
const EXTENSION = /^[a-z0-9]{1,16}$/;
const MAX_SUFFIX = 10_000;
const CHUNK_BYTES = 1 << 20;

/** The lowercase hex SHA-256 of a file's bytes (read through `file` as given). */
export function sha256Of(file: string): string {
  const fd = fs.openSync(file, fs.constants.O_RDONLY);
  try {
    return hashOfFd(fd, fs.fstatSync(fd).size);
  } finally {
    fs.closeSync(fd);
  }
}

// One read buffer for every file this process hashes (a hasher copies what it is given). A
// buffer per file made `run status` of 1,000 artifacts allocate 1 GB, and the collections
// that memory brought cost it more than the hashing.
let chunk: Buffer | undefined;

/** The digest of what `fd` reads to its end; `size`, its size when opened, picks the hasher. */
function hashOfFd(fd: number, size: number): string {
  const hash = sha256Hasher(size);
  chunk ??= Buffer.allocUnsafe(CHUNK_BYTES);
  for (let n = fs.readSync(fd, chunk); n > 0; n = fs.readSync(fd, chunk))
    hash.update(chunk.subarray(0, n));
  return hash.digest();
}

/**
 * The extension an artifact keeps of its source: lowercase letters and digits (at most 16), `txt`
 * when it has none.
 */
export function artifactExtensionOf(file: string): string {
  return (
    extname(file)
      .slice(1)
      .toLowerCase()
      .replace(/[^a-z0-9]/g, '')
      .slice(0, 16) || 'txt'
  );
}

/**
 * An artifact type as the kind part of a name: lowercase, other characters as `-`, at most 64;
 * `artifact` when nothing is left.
 */
export function artifactKindOf(type: string): string {
  const kind = type
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/^[^a-z]+/, '')
    .slice(0, 64)
    .replace(/-+$/, '');
  return kind === '' ? 'artifact' : kind;
}

/**
 * The stage part of the name of evidence recorded now: the active stage, else the last completed
 * one, else `run`.
 */
export function evidenceStageOf(wf: Workflow): string {
  return wf.active_stage ?? wf.last_completed_stage ?? 'run';
}

/**
 * The next free artifact name, relative to the run folder:
 * `artifacts/<stage or run>-c<cycle>-<kind>[-<n>].<ext>`, n = 2, 3, … while `taken` says the
 * name is used (pass artifactPathTaken, which knows both the manifest and the folder).
 */
export function artifactNameOf(
  stage: string,
  cycle: number,
  kind: string,
  ext: string,
  taken: (relPath: string) => boolean,
): string {
  if (!STAGE_OR_RUN.test(stage)) throw new Error(`artifact name: bad stage '${printable(stage)}'`);
  if (!Number.isSafeInteger(cycle) || cycle < 1)
    throw new Error(`artifact name: bad cycle ${cycle}`);
  if (!KIND.test(kind)) throw new Error(`artifact name: bad kind '${printable(kind)}'`);
  if (!EXTENSION.test(ext)) throw new Error(`artifact name: bad extension '${printable(ext)}'`);
  const stem = `${ARTIFACTS_FOLDER}/${stage}-c${cycle}-${kind}`;
  if (!taken(`${stem}.${ext}`)) return `${stem}.${ext}`;
  for (let n = 2; n <= MAX_SUFFIX; n++) {
    if (!taken(`${stem}-${n}.${ext}`)) return `${stem}-${n}.${ext}`;
  }
  throw new Error(`artifact name: ${MAX_SUFFIX} names of ${stem}.${ext} are taken`);
}

/**
 * A predicate for artifactNameOf: true for a path in the manifest or present in the run folder (an
 * orphan a crash left).
 */
export function artifactPathTaken(
  paths: RunPaths,
  existing: readonly Artifact[],
): (relPath: string) => boolean {
  const recorded = new Set(existing.map((a) => a.path));
  return (relPath) =>
    recorded.has(relPath) ||
    fs.lstatSync(join(paths.dir, relPath), { throwIfNoEntry: false }) !== undefined;
}

/**
 * Why `path` is not a manifest path (§3: non-empty relative POSIX, no `\`, no `.`/`..`/empty
 * segment), or undefined when it is one.
 */
export function artifactPathProblem(path: string): string | undefined {
  const shown = `artifact path '${printable(path)}'`;
  if (path === '') return 'artifact path is empty';
  if (path.startsWith('/')) return `${shown} is absolute: it must be relative to the run folder`;
  if (path.includes('\\')) return `${shown} contains a backslash: use '/' between segments`;
  const segments = path.split('/');
  if (segments.includes('')) return `${shown} has an empty segment ('//' or a trailing '/')`;
  if (segments.some((s) => s === '.' || s === '..')) return `${shown} has a '.' or '..' segment`;
  return undefined;
}

/**
 * Why the file at `relPath` is not a usable artifact (form, reached without a symlink, regular
 * file), or undefined. Never throws for a bad file.
 */
export function artifactFileProblem(paths: RunPaths, relPath: string): string | undefined {
  const found = artifactFileWalk(paths, relPath);
  return typeof found === 'string' ? found : undefined;
}

/**
 * artifactFileProblem's walk: the file's path and own lstat when it is a usable artifact, else the
 * problem. That stat is the identity a digest requires of the opened file (digestOrProblem).
 * Segments are joined with `/` as they are: the path's form was checked first, and the run
 * folder's path is normalized (figure 10e walks 1,000 of these).
 */
function artifactFileWalk(
  paths: RunPaths,
  relPath: string,
): { path: string; stat: fs.Stats } | string {
  const formProblem = artifactPathProblem(relPath);
  if (formProblem !== undefined) return formProblem;
  const segments = relPath.split('/');
  let at = paths.dir;
  for (const [index, segment] of segments.entries()) {
    at = `${at}/${segment}`;
    const stat = lstatOrProblem(at);
    if (typeof stat === 'string') return stat;
    if (stat.isSymbolicLink()) return 'reached through a symlink';
    if (index === segments.length - 1)
      return stat.isFile() ? { path: at, stat } : 'not a regular file';
    if (!stat.isDirectory()) return 'missing';
  }
  return 'artifact path is empty'; // not reached: a path of the right form has a segment
}

function lstatOrProblem(path: string): fs.Stats | string {
  try {
    return fs.lstatSync(path);
  } catch (err) {
    return problemOfError(err);
  }
}

function problemOfError(err: unknown): string {
  if (isCode(err, 'ENOENT') || isCode(err, 'ENOTDIR')) return 'missing';
  if (isCode(err, 'ELOOP')) return 'reached through a symlink';
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (code === undefined) throw err;
  return `unreadable (${code})`;
}

/**
 * The digest of the regular file at `relPath` read without following a symlink, or the problem that
 * prevents it.
 */
function digestOrProblem(
  paths: RunPaths,
  relPath: string,
): { sha256: string } | { problem: string } {
  // One lstat of the file (the walk's) and one fstat of the opened file: figure 10e hashes 1,000.
  const walked = artifactFileWalk(paths, relPath);
  if (typeof walked === 'string') return { problem: walked };
  const expected = walked.stat;
  try {
    const fd = fs.openSync(walked.path, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
    try {
      const opened = fs.fstatSync(fd);
      if (!opened.isFile()) return { problem: 'not a regular file' };
      if (opened.ino !== expected.ino || opened.dev !== expected.dev)
        return { problem: 'changed (replaced while it was checked)' };
      return { sha256: hashOfFd(fd, opened.size) };
    } finally {
      fs.closeSync(fd);
    }
  } catch (err) {
    return { problem: problemOfError(err) };
  }
}

/** A manifest entry's file that failed its check, and why. */
export interface BadArtifact {
  path: string;
  problem: string;
}

/**
 * Recomputes every artifact's digest (§3): each must exist, be a regular file reached without a
 * symlink, and hash to its sha256. Never throws for a bad file.
 */
export function checkArtifacts(
  paths: RunPaths,
  artifacts: readonly Artifact[],
): { ok: boolean; bad: BadArtifact[] } {
  const bad: BadArtifact[] = [];
  for (const artifact of artifacts) {
    const found = digestOrProblem(paths, artifact.path);
    if ('problem' in found) bad.push({ path: artifact.path, problem: found.problem });
    else if (found.sha256 !== artifact.sha256)
      bad.push({
        path: artifact.path,
        problem: `changed (sha256 ${found.sha256}, recorded ${artifact.sha256})`,
      });
  }
  return { ok: bad.length === 0, bad };
}

/**
 * Creates the run's artifacts/ (not fsync'd): 0700, or in a shared run folder 3770, since there
 * agents of another user copy their replies (sharedFolders.ts).
 */
export function makeArtifactsFolder(paths: RunPaths): void {
  makeFolder(paths.artifacts, dropFolderModeIn(paths.dir));
}

/**
 * Makes sure artifacts/ is a real folder (created with its parent fsync'd when missing);
 * refuses a symlink or a file there.
 */
function ensureArtifactsFolder(paths: RunPaths): void {
  const stat = fs.lstatSync(paths.artifacts, { throwIfNoEntry: false });
  if (stat === undefined) {
    mkdirSynced(paths.dir);
    try {
      makeArtifactsFolder(paths);
    } catch (err) {
      if (!isCode(err, 'EEXIST')) throw err; // made meanwhile by another writer of the run
    }
    fsyncDir(paths.dir);
  } else if (!stat.isDirectory())
    fail(
      'refused',
      `artifact folder '${paths.artifacts}' is ` +
        `${stat.isSymbolicLink() ? 'a symlink' : 'not a folder'}`,
    );
}

/**
 * The absolute path of `relPath` when it names a file directly in artifacts/; throws otherwise (a
 * caller's bug).
 */
function artifactsFileOf(paths: RunPaths, relPath: string): string {
  const problem = artifactPathProblem(relPath);
  if (problem !== undefined) throw new Error(problem);
  if (posix.dirname(relPath) !== ARTIFACTS_FOLDER)
    throw new Error(
      `artifact path '${printable(relPath)}' is not a file directly in ${ARTIFACTS_FOLDER}/`,
    );
  return join(paths.dir, relPath);
}

function refuseOverwrite(relPath: string): never {
  fail(
    'refused',
    `artifact file '${printable(relPath)}' already exists: an artifact is never overwritten`,
  );
}

/**
 * Writes runtime evidence `{kind, recorded_at, payload}` as a new file at `relPath` (in artifacts/,
 * 0600, fsync'd, then the folder fsync'd); refuses an existing file.
 */
export function writeEvidence(
  paths: RunPaths,
  relPath: string,
  kind: string,
  payload: unknown,
  now: Date = new Date(),
): { path: string; sha256: string } {
  const full = artifactsFileOf(paths, relPath);
  const envelope = { kind, recorded_at: isoOf(now), payload: payload ?? null };
  const bytes = Buffer.from(`${JSON.stringify(envelope, null, 2)}\n`, 'utf8');
  ensureArtifactsFolder(paths);
  try {
    writeFileSynced(full, bytes, true);
  } catch (err) {
    if (isCode(err, 'EEXIST') || isCode(err, 'ELOOP')) refuseOverwrite(relPath);
    throw err;
  }
  crashPoint('run:evidence-written');
  fsyncDir(paths.artifacts);
  return { path: relPath, sha256: sha256Hex(bytes) };
}

/** What an imported file is registered as, and where a copy of it goes. */
export type ImportOptions = { type: string; producer: string } &
  /** The copy's name in artifacts/, chosen by the caller (a reply's cycle-specific name). */
  (
    | { name: string }
    /**
     * The copy named by the §3 rule: `<stage>-c<cycle>-<kind of type>[-<n>].<source's extension>`.
     */
    | { stage: string; cycle: number }
  );

/**
 * Registers a file named on the command line (relative to `cwd`) as an artifact (§3). A
 * file whose real path is inside the run folder is registered in place (only under
 * artifacts/: workflow.json, lease.json and controller/ are the runtime's and change); any
 * other is copied into artifacts/ under the caller's name or the names rule, never over an
 * existing file. Returns the manifest entry; the caller records it.
 */
export function importArtifactFile(
  paths: RunPaths,
  source: string,
  cwd: string,
  existing: readonly Artifact[],
  opts: ImportOptions,
): Artifact {
  if (opts.type.trim() === '') fail('usage', 'artifact --type is empty');
  if (opts.producer.trim() === '') fail('usage', 'artifact --producer is empty');
  const named = resolve(cwd, source);
  const real = realPathOfSource(source, named);
  const runDir = fs.realpathSync(paths.dir);
  const entry = (path: string, sha256: string): Artifact => ({
    path,
    sha256,
    type: opts.type,
    producer: opts.producer,
  });
  if (real.startsWith(runDir + sep)) {
    const relPath = inPlacePath(paths, source, named, relative(runDir, real).split(sep).join('/'));
    refuseDuplicate(existing, relPath);
    return entry(relPath, inPlaceDigest(paths, relPath));
  }
  if (!('name' in opts)) {
    requireRegularFile(source, real);
    const target = ruleNamedDestinationOf(
      paths,
      real,
      existing,
      opts.stage,
      opts.cycle,
      artifactKindOf(opts.type),
      artifactExtensionOf(source),
    );
    return entry(target.path, target.reused ?? copyIntoArtifacts(paths, source, real, target.path));
  }
  const relPath = copyTargetOf(opts.name);
  refuseDuplicate(existing, relPath);
  const target = copyDestinationOf(paths, real, relPath, existing);
  return entry(target.path, target.reused ?? copyIntoArtifacts(paths, source, real, target.path));
}

function refuseDuplicate(existing: readonly Artifact[], relPath: string): void {
  if (existing.some((a) => a.path === relPath))
    fail(
      'refused',
      `duplicate artifact path '${printable(relPath)}': an artifact path is recorded once`,
    );
}

function requireRegularFile(source: string, real: string): void {
  if (!fs.statSync(real).isFile()) fail('refused', `'${printable(source)}' is not a regular file`);
}

/**
 * The first name of the §3 rule for a copy of `from` that is free, or that holds a complete
 * copy a killed attempt left (no manifest names it: reused, crash contract above).
 */
function ruleNamedDestinationOf(
  paths: RunPaths,
  from: string,
  existing: readonly Artifact[],
  stage: string,
  cycle: number,
  kind: string,
  ext: string,
): { path: string; reused?: string } {
  const taken = artifactPathTaken(paths, existing);
  const recorded = new Set(existing.map((a) => a.path));
  let whole: string | undefined;
  let reusable: string | undefined;
  const path = artifactNameOf(stage, cycle, kind, ext, (p) => {
    if (!taken(p)) return false;
    if (recorded.has(p)) return true;
    const left = digestOrProblem(paths, p);
    whole ??= sha256Of(from);
    if (!('sha256' in left) || left.sha256 !== whole) return true;
    reusable = p;
    return false;
  });
  return reusable === path ? reuse(paths, path, whole!) : { path };
}

/**
 * Where the copy of `from` named `relPath` goes, after a killed attempt (crash contract
 * above): `reused` is set when a complete unregistered copy is there. Past a torn copy at
 * `relPath`, the first `<stem>-<n><ext>` that is free or such a complete copy. Any other
 * file at `relPath` is left for copyIntoArtifacts to refuse.
 */
function copyDestinationOf(
  paths: RunPaths,
  from: string,
  relPath: string,
  existing: readonly Artifact[],
): { path: string; reused?: string } {
  const taken = artifactPathTaken(paths, existing);
  if (!taken(relPath)) return { path: relPath };
  const source = fs.statSync(from);
  if (!source.isFile()) return { path: relPath };
  const size = source.size;
  const leftover = (p: string) =>
    existing.some((a) => a.path === p) ? undefined : digestOrProblem(paths, p);
  const first = leftover(relPath);
  if (first === undefined || !('sha256' in first)) return { path: relPath };
  const whole = sha256OfStart(from, size);
  if (first.sha256 === whole) return reuse(paths, relPath, whole);
  const leftSize = fs.lstatSync(join(paths.dir, relPath)).size;
  if (leftSize >= size || first.sha256 !== sha256OfStart(from, leftSize)) return { path: relPath };
  const ext = posix.extname(relPath);
  const stem = relPath.slice(0, relPath.length - ext.length);
  for (let n = 2; n <= MAX_SUFFIX; n++) {
    const candidate = `${stem}-${n}${ext}`;
    if (!taken(candidate)) return { path: candidate };
    const found = leftover(candidate);
    if (found !== undefined && 'sha256' in found && found.sha256 === whole)
      return reuse(paths, candidate, whole);
  }
  throw new Error(`artifact name: ${MAX_SUFFIX} names of ${relPath} are taken`);
}

/** A complete copy a killed attempt left, reused: its folder entry made durable. */
function reuse(paths: RunPaths, relPath: string, sha256: string): { path: string; reused: string } {
  fsyncDir(paths.artifacts);
  return { path: relPath, reused: sha256 };
}

/** The digest of the first `length` bytes of `file`. */
function sha256OfStart(file: string, length: number): string {
  const hash = sha256Hasher(length);
  const fd = fs.openSync(file, fs.constants.O_RDONLY);
  try {
    const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
    for (let left = length, n = 1; left > 0 && n > 0; left -= n) {
      n = fs.readSync(fd, buffer, 0, Math.min(CHUNK_BYTES, left), null);
      hash.update(buffer.subarray(0, n));
    }
  } finally {
    fs.closeSync(fd);
  }
  return hash.digest();
}

function realPathOfSource(source: string, named: string): string {
  try {
    return fs.realpathSync(named);
  } catch (err) {
    if (isCode(err, 'ENOENT') || isCode(err, 'ENOTDIR'))
      fail('usage', `no such file '${printable(source)}'`);
    throw err;
  }
}

/**
 * The manifest path of a file already in the run folder; refuses one outside artifacts/, named
 * through a symlink, or failing the form rules.
 */
function inPlacePath(paths: RunPaths, source: string, named: string, relPath: string): string {
  if (fs.lstatSync(named).isSymbolicLink())
    fail(
      'refused',
      `'${printable(source)}' is a symlink: name the artifact file ` +
        `itself ('${printable(relPath)}' in the run folder)`,
    );
  const problem = artifactFileProblem(paths, relPath);
  const why = problem?.startsWith('artifact path')
    ? problem
    : `'${printable(relPath)}' is ${problem}`;
  if (problem !== undefined)
    fail('refused', `'${printable(source)}' cannot be registered in place: ${why}`);
  if (!relPath.startsWith(`${ARTIFACTS_FOLDER}/`))
    fail(
      'refused',
      `'${printable(source)}' is the runtime's own file ` +
        `'${printable(relPath)}': only files under ` +
        `${ARTIFACTS_FOLDER}/ are registered in place`,
    );
  return relPath;
}

function inPlaceDigest(paths: RunPaths, relPath: string): string {
  const found = digestOrProblem(paths, relPath);
  if ('problem' in found) fail('refused', `artifact '${printable(relPath)}' is ${found.problem}`);
  return found.sha256;
}

/** `artifacts/<name>`; refuses a name that is not one plain segment. */
function copyTargetOf(name: string): string {
  if (name.includes('/') || artifactPathProblem(name) !== undefined)
    fail('usage', `artifact name '${printable(name)}' is not a plain file name`);
  return `${ARTIFACTS_FOLDER}/${name}`;
}

/**
 * Copies the regular file `from` to the new file `relPath` (exclusive, 0600, fsync, folder fsync)
 * and returns the digest of the bytes copied; a partial copy is removed.
 */
function copyIntoArtifacts(paths: RunPaths, source: string, from: string, relPath: string): string {
  const to = artifactsFileOf(paths, relPath);
  if (!fs.statSync(from).isFile()) fail('refused', `'${printable(source)}' is not a regular file`);
  const input = fs.openSync(from, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  try {
    if (!fs.fstatSync(input).isFile())
      fail('refused', `'${printable(source)}' is not a regular file`);
    ensureArtifactsFolder(paths);
    const output = openNewArtifact(to, relPath);
    try {
      crashPoint('run:artifact-created');
      const sha256 = copyAndHash(input, output);
      fs.fsyncSync(output);
      crashPoint('run:artifact-copied');
      fsyncDir(dirname(to));
      return sha256;
    } catch (err) {
      fs.rmSync(to, { force: true });
      throw err;
    } finally {
      fs.closeSync(output);
    }
  } finally {
    fs.closeSync(input);
  }
}

function openNewArtifact(to: string, relPath: string): number {
  const { O_CREAT, O_EXCL, O_WRONLY, O_NOFOLLOW } = fs.constants;
  try {
    const mode = fileModeIn(dirname(to));
    const fd = fs.openSync(to, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW, mode);
    keepSharedMode(fd, mode);
    return fd;
  } catch (err) {
    if (isCode(err, 'EEXIST') || isCode(err, 'ELOOP')) refuseOverwrite(relPath);
    throw err;
  }
}

function copyAndHash(input: number, output: number): string {
  const hash = sha256Hasher(fs.fstatSync(input).size);
  const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
  for (let n = fs.readSync(input, buffer); n > 0; n = fs.readSync(input, buffer)) {
    const chunk = buffer.subarray(0, n);
    hash.update(chunk);
    for (let written = 0; written < n;) written += fs.writeSync(output, chunk, written);
  }
  return hash.digest();
}
