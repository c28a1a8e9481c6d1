// Test projects: real temporary git repositories initialised in process by
// initRolesAndMailboxes (what `baton init` runs, less the import of reference-layout mail,
// which a new repository does not have), and a runner for the built bins (argv only,
// never a shell).
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { initRolesAndMailboxes } from '../../lib/admin/init.js';
import { mailboxOf } from '../../lib/project/layout.js';
import { serializeEnvelope, type Headers } from '../../lib/queue/envelope.js';
import { type Mailbox } from '../../lib/queue/mailbox.js';
import { fixtureText } from './fixtures.js';

/** Where `npm run build` puts the bins. */
export const BIN_DIR = resolve('dist/bin');

/** The default three-role project: coder → reviewer → QA (batch). */
export const DEFAULT_CONF = fixtureText('conf', 'three-roles.conf');

/** A temporary project. */
export interface Project {
  root: string;
  box: (role: string) => Mailbox;
  cleanup: () => void;
}

/** A new temporary directory (removed by the caller). */
export function tempDir(prefix = 'baton-test-'): string {
  return fs.realpathSync(fs.mkdtempSync(join(tmpdir(), prefix)));
}

/** Runs git with an argument vector in `cwd`; returns trimmed stdout. */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 't',
      GIT_AUTHOR_EMAIL: 't@t',
      GIT_COMMITTER_NAME: 't',
      GIT_COMMITTER_EMAIL: 't@t',
    },
  }).trim();
}

/** Makes a commit in `cwd` and returns its full hash. */
export function commitIn(cwd: string, message = 'work'): string {
  git(cwd, 'commit', '-q', '--allow-empty', '-m', message);
  return git(cwd, 'rev-parse', 'HEAD');
}

/** The repositories `copyOfRepo` copies, by name: each made by git once per test process. */
const templates = new Map<string, string>();

/**
 * A new temporary folder holding a copy of the repository `make` builds (work tree and .git):
 * git runs once per test process for each `name`, and each later copy is a file copy. Most
 * tests need a repository as their ground, and three git processes per test were a tenth of
 * the suite's processes.
 */
export function copyOfRepo(name: string, make: (root: string) => void, prefix?: string): string {
  let template = templates.get(name);
  if (template === undefined || !fs.existsSync(template)) {
    template = tempDir(`baton-template-${name}-`);
    make(template);
    templates.set(name, template);
    const made = template;
    process.once('exit', () => fs.rmSync(made, { recursive: true, force: true }));
  }
  const root = tempDir(prefix);
  fs.cpSync(template, root, { recursive: true });
  return root;
}

/** A temporary git repository (branch main, one commit) with `conf` as swarmforge/swarmforge.conf, not initialised. */
export function makeRepo(conf = DEFAULT_CONF): string {
  const root = copyOfRepo('empty', (dir) => {
    git(dir, 'init', '-q', '-b', 'main');
    commitIn(dir, 'init');
  });
  fs.mkdirSync(join(root, 'swarmforge'));
  fs.writeFileSync(join(root, 'swarmforge', 'swarmforge.conf'), conf);
  return root;
}

/** The Project view of an initialised ROOT. */
export function projectAt(root: string): Project {
  return {
    root,
    box: (role) => mailboxOf(root, role),
    cleanup: () => fs.rmSync(root, { recursive: true, force: true }),
  };
}

/** A git repository with swarmforge.conf, initialised in process (roles.tsv, mailboxes, git exclude). */
export function makeProject(conf = DEFAULT_CONF): Project {
  const root = makeRepo(conf);
  initRolesAndMailboxes(root);
  return projectAt(root);
}

/** Runs `body` on the project, then removes it, whatever the body did. */
export async function withProject<T>(
  project: Project,
  body: (p: Project) => Promise<T> | T,
): Promise<T> {
  try {
    return await body(project);
  } finally {
    project.cleanup();
  }
}

/** The outcome of one bin run. */
export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  stdoutBytes: Buffer;
}

/** Options of one bin run: the acting role, the directory, extra environment. */
export interface RunOptions {
  role?: string;
  cwd: string;
  env?: Record<string, string | undefined>;
  /** runBinAsync only: SIGKILL the bin after this many ms (a bin blocked forever then fails its test instead of hanging it). */
  timeoutMs?: number;
  /** runBin only: what the bin reads on stdin (an agent hook's JSON); none by default. */
  input?: string;
}

function envOf(options: RunOptions): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...options.env };
  delete env.SWARMFORGE_ROOT;
  if (options.env && 'SWARMFORGE_ROOT' in options.env)
    env.SWARMFORGE_ROOT = options.env.SWARMFORGE_ROOT;
  if (options.role !== undefined) env.SWARMFORGE_ROLE = options.role;
  else if (!options.env || !('SWARMFORGE_ROLE' in options.env)) delete env.SWARMFORGE_ROLE;
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete env[k];
  return env;
}

/** Runs a built bin synchronously (`node dist/bin/<bin>.js args...`). */
export function runBin(bin: string, args: string[], options: RunOptions): RunResult {
  return runExecutable(process.execPath, [join(BIN_DIR, `${bin}.js`), ...args], options);
}

/** Runs an executable file synchronously (argv only; a script through its own `#!` line). */
export function runExecutable(file: string, args: string[], options: RunOptions): RunResult {
  const result = spawnSync(file, args, {
    cwd: options.cwd,
    env: envOf(options),
    maxBuffer: 64 * 1024 * 1024,
    ...(options.input === undefined ? {} : { input: options.input }),
  });
  return {
    code: result.status,
    signal: result.signal,
    stdout: result.stdout.toString('utf8'),
    stderr: result.stderr.toString('utf8'),
    stdoutBytes: result.stdout,
  };
}

/** Runs a built bin without blocking the test process (for concurrent callers). */
export function runBinAsync(bin: string, args: string[], options: RunOptions): Promise<RunResult> {
  return new Promise((done, failed) => {
    const guard =
      options.timeoutMs === undefined
        ? {}
        : { timeout: options.timeoutMs, killSignal: 'SIGKILL' as const };
    const child = spawn(process.execPath, [join(BIN_DIR, `${bin}.js`), ...args], {
      cwd: options.cwd,
      env: envOf(options),
      ...guard,
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.on('error', failed);
    child.on('close', (code, signal) => {
      const stdoutBytes = Buffer.concat(out);
      done({
        code,
        signal,
        stdout: stdoutBytes.toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
        stdoutBytes,
      });
    });
  });
}

/** Writes a draft file and returns its path. */
export function writeDraft(dir: string, text: string | Buffer, name = 'draft.txt'): string {
  const path = join(dir, name);
  fs.writeFileSync(path, text);
  return path;
}

/** A valid note draft to `to`. */
export function noteDraft(to: string, message = 'hello', priority = '50'): string {
  return `type: note\nto: ${to}\npriority: ${priority}\nmessage: ${message}\n`;
}

let placed = 0;
/** Writes an item straight into a folder (as a delivered copy would be), returning its path. */
export async function placeItem(
  dir: string,
  headers: Headers,
  body: Buffer | string = 'body\n',
  name?: string,
): Promise<string> {
  placed += 1;
  const id = headers.id ?? `20260101T000000Z_${String(placed).padStart(6, '0')}_from_coder`;
  const fileName = name ?? `${headers.priority ?? '50'}_${id}_to_reviewer.handoff`;
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const path = join(dir, fileName);
  fs.writeFileSync(
    path,
    await serializeEnvelope(
      {
        id,
        from: 'coder',
        to: 'reviewer',
        recipient: 'reviewer',
        priority: '50',
        type: 'note',
        message: 'm',
        ...headers,
      },
      Buffer.from(body),
    ),
    { mode: 0o600 },
  );
  return path;
}

/** Every file under `dir` with a hash of its bytes and its mode: compare two to prove nothing changed. */
export function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const entry of fs.readdirSync(d, { withFileTypes: true })) {
      const path = join(d, entry.name);
      const rel = relative(dir, path);
      if (entry.name === 'locks' || rel.includes('/locks/')) continue;
      if (entry.isDirectory()) {
        out[`${rel}/`] = 'dir';
        walk(path);
      } else {
        const bytes = entry.isSymbolicLink()
          ? Buffer.from(fs.readlinkSync(path))
          : fs.readFileSync(path);
        out[rel] = createHash('sha256').update(bytes).digest('hex');
      }
    }
  };
  walk(dir);
  return out;
}

/** Names of the `*.handoff` files directly in `dir`, sorted. */
export function itemsIn(dir: string): string[] {
  return fs.existsSync(dir)
    ? fs
        .readdirSync(dir)
        .filter((n) => n.endsWith('.handoff') && !n.startsWith('.'))
        .sort()
    : [];
}

/** Runs a built bin in each of several processes released at one instant (test/support/barrierRun.mjs); resolves with their results in order. */
export async function runBinsTogether(
  runs: { bin: string; args: string[]; options: RunOptions }[],
): Promise<RunResult[]> {
  const barrier = resolve('test/support/barrierRun.mjs');
  const children = runs.map(({ bin, args, options }) =>
    spawn(process.execPath, [barrier, join(BIN_DIR, `${bin}.js`), ...args], {
      cwd: options.cwd,
      env: envOf(options),
    }),
  );
  const results = children.map(
    (child) =>
      new Promise<RunResult>((done, failed) => {
        const out: Buffer[] = [];
        const err: Buffer[] = [];
        child.stdout.on('data', (b: Buffer) => out.push(b));
        child.stderr.on('data', (b: Buffer) => err.push(b));
        child.on('error', failed);
        child.on('close', (code, signal) => {
          const stdoutBytes = Buffer.concat(out).subarray('READY\n'.length);
          done({
            code,
            signal,
            stdout: stdoutBytes.toString('utf8'),
            stderr: Buffer.concat(err).toString('utf8'),
            stdoutBytes,
          });
        });
      }),
  );
  await Promise.all(
    children.map(
      (child) =>
        new Promise<void>((ready) => {
          let seen = '';
          const onData = (b: Buffer) => {
            seen += b.toString();
            if (!seen.startsWith('READY\n')) return;
            child.stdout.off('data', onData);
            ready();
          };
          child.stdout.on('data', onData);
        }),
    ),
  );
  for (const child of children) child.stdin.end('go');
  return Promise.all(results);
}
