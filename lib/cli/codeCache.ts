// Loading the bundles of `baton` (baton-run.js, baton-cli.js, …), the agent commands
// (baton-agent.js) and the hooks with V8's code cache on a Node that has no compile cache of
// its own (module.enableCompileCache is Node 22.1+). Compiling a bundle is a third of what
// `baton run status` costs over Node's own start, and the agents, the controller and the
// owner call them again and again. The first call of a bundle compiles it as `require` would
// and, as it exits, saves what V8 compiled (the functions that call ran included) to
// `$TMPDIR/baton-code-cache-<uid>/`; later calls start from that.
// The cache is an optimisation only: a missing, stale, foreign or damaged cache file means
// a compile from source, never a failure. Its trust rules:
// - the folder is used only when it is a real folder of this user that no one else may
//   write (0700), so no other user can hand this process compiled code;
// - a file's name carries the bundle's name, size and modification time and Node's version,
//   so a rebuilt bundle or another Node never meets an older cache (V8 checks its own
//   version, flags and the source's length as well, and rejects what does not match);
// - a file is written whole (temporary name, fsync, then rename), so a reader never sees
//   half;
// - a new file of a bundle removes the older ones of the same installed bundle (same path),
//   and any file no call has read or written for UNUSED_DAYS: one of a bundle since removed
//   (a deleted clone, a test's copy) would otherwise stay in the folder for good. Reads keep a
//   file's access time fresh on Linux's default (relatime) mounts; on a noatime mount a file
//   in use goes after UNUSED_DAYS all the same and the next call compiles it once again.
// What the saving call ran is what the cache holds: a function first called later is
// compiled by every later call. So a bundle of many commands (`baton run`, the agent
// commands) keeps one file per command (`loadBundle`'s `command`): `run reply` started from
// the file `run start` made compiled its own functions on every call, 2–3 ms of its 15 over
// Node's start. Only a call that ended well (exit code 0) saves a file, so a mistyped command
// leaves none behind; a bundle may also say that a call ran too little of its command to make
// the file (`codeCacheWorthy`: a `--help`, or `ready_for_next` on an idle inbox, whose file
// then cost each claim 1.4 ms). A bundle whose commands all run a large function (the
// generated record validators, one function of up to 85 KB each: 6-15 ms to compile) exports
// `warmCodeCache`, which runs it once just before the cache is saved, so the cache holds it
// whichever call made it (`baton run --help` included).
// NODE_DISABLE_COMPILE_CACHE=1 turns it off, as it does Node's own. Where Node has its own
// compile cache, that one is turned on instead and the bundle is required.
//
// This module is the loader every agent command, hook and `baton` call starts with, so it
// loads nothing it can do without (measured at `ready_for_next`, docs/decisions.md, "A loader
// that loads nothing"): no module of its own, no `node:path`, no `node:module` unless a
// bundle requires a package (createRequire is made on first use), and it writes its cache
// file itself (whole, fsync'd, renamed into place) instead of importing the record store,
// whose modules cost every start more than the one write they would do. Paths are POSIX:
// Baton runs where tmux does.

type Vm = typeof import('node:vm');
type Fs = typeof import('node:fs');

const fs = process.getBuiltinModule('node:fs') as Fs;

/** The folder part of a POSIX path (`/a/b` → `/a`). */
function folderOf(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash <= 0 ? '/' : path.slice(0, slash);
}

/** The cache folder, made if missing; undefined when it cannot be trusted or made. */
function trustedCacheDir(): string | undefined {
  const uid = process.getuid?.();
  if (uid === undefined) return undefined;
  const dir = `${process.env.TMPDIR || '/tmp'}/baton-code-cache-${uid}`;
  try {
    // Looked at first and made only when missing: every call passes here.
    let stat = fs.lstatSync(dir, { throwIfNoEntry: false });
    if (stat === undefined) {
      fs.mkdirSync(dir, { mode: 0o700 });
      stat = fs.lstatSync(dir);
    }
    return stat.isDirectory() && stat.uid === uid && (stat.mode & 0o077) === 0 ? dir : undefined;
  } catch {
    return undefined;
  }
}

/** The cached code of `file` when present (undefined when absent or unreadable). */
function cachedCodeOf(cacheFile: string): Buffer | undefined {
  try {
    return fs.readFileSync(cacheFile);
  } catch {
    return undefined;
  }
}

/** FNV-1a of `text` in hex: names one installed bundle by its path, without loading crypto. */
function pathMark(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return (hash >>> 0).toString(16).padStart(8, '0');
}

/**
 * Writes `data` to `path` whole: a temporary file beside it (named after it, so the clean-up of
 * older files of the same bundle removes one a killed call left; one left by a killed process
 * of this pid is written over), fsync'd, then renamed over it. A crash leaves the old file or
 * the new one, never half of one.
 */
function writeWhole(path: string, data: Buffer): void {
  const temp = `${path}.${process.pid}.tmp`;
  const fd = fs.openSync(temp, 'w', 0o600);
  try {
    fs.writeSync(fd, data);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(temp, path);
}

/** Days after which a cache file no call has read or written is removed by the next save. */
const UNUSED_DAYS = 7;

/** Whether `file` was last read or written more than UNUSED_DAYS ago. */
function unusedFor(file: string, now: number): boolean {
  const stat = fs.lstatSync(file, { throwIfNoEntry: false });
  if (stat === undefined) return false;
  return now - Math.max(stat.atimeMs, stat.mtimeMs) > UNUSED_DAYS * 86_400_000;
}

/**
 * Saves V8's code of `script` to `dir/name` whole, at exit (best effort: errors are ignored),
 * and removes the files of the same installed bundle that `name` replaces (an older build's,
 * another Node's, a temporary file a killed call left), so the folder keeps one file per
 * installed bundle however often it is rebuilt, and any file unused for UNUSED_DAYS.
 */
function saveAtExit(
  script: import('node:vm').Script,
  dir: string,
  name: string,
  bundle: () => BundleExports,
): void {
  process.once('exit', (code) => {
    if (code !== 0 || bundle().codeCacheWorthy?.() === false) return;
    try {
      bundle().warmCodeCache?.();
      writeWhole(`${dir}/${name}`, script.createCachedData());
      const installed = name.slice(0, name.indexOf('~') + 1);
      const now = Date.now();
      for (const other of fs.readdirSync(dir)) {
        if (other === name) continue;
        const path = `${dir}/${other}`;
        if (other.startsWith(installed) || unusedFor(path, now)) fs.rmSync(path, { force: true });
      }
    } catch {
      // A cache that cannot be written is only a slower next start.
    }
  });
}

/** What a bundle may export for its code cache (the module comment above). */
interface BundleExports {
  warmCodeCache?: () => void;
  codeCacheWorthy?: () => boolean;
}

/** A command word that may name a cache file of its own: lower-case letters, `-` and `_`. */
const COMMAND_WORD = /^[a-z][a-z_-]{0,31}$/;

/** node:module, loaded only by the calls that need it. */
const nodeModule = () => process.getBuiltinModule('node:module') as typeof import('node:module');

/**
 * True where Node has a compile cache of its own (22.1 and later), told by the version so that
 * the other calls do not load node:module to look for `enableCompileCache`.
 */
function nodeHasCompileCache(): boolean {
  const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
  return major > 22 || (major === 22 && minor >= 1);
}

/** A bundle beside the requiring one, as the build names them (scripts/build.mjs, OWN_BUNDLES). */
const SIBLING_BUNDLE = /^\.\/baton-[a-z-]+\.js$/;

/** The sibling bundles this process loaded, by path: each is evaluated once, as require does. */
const siblings = new Map<string, unknown>();

/**
 * The `require` a bundle at `file` is given: a builtin directly; a sibling bundle (js-yaml's,
 * gray-matter's, the web page's, the bridge's) with the code cache, as loadBundle loads it: the
 * controller compiled gray-matter's and js-yaml's from source at its first front-matter reply;
 * anything else (a package) resolved from `file` as Node's own would, by a require made on
 * first use.
 */
function requireFor(file: string): NodeJS.Require {
  let fromFile: NodeJS.Require | undefined;
  const bundleRequire = (id: string): unknown => {
    const builtin = process.getBuiltinModule(id);
    if (builtin !== undefined) return builtin;
    if (!SIBLING_BUNDLE.test(id)) return (fromFile ??= nodeModule().createRequire(file))(id);
    const path = `${folderOf(file)}/${id.slice(2)}`;
    if (!siblings.has(path)) siblings.set(path, loadBundle(path));
    return siblings.get(path);
  };
  return bundleRequire as NodeJS.Require;
}

/**
 * Loads the CommonJS bundle `file` (an absolute path; module rule) and returns its exports:
 * with the code cache where it can be used, else exactly as `require(file)`. A `command` (a
 * plain word) gives the calls of that command a cache file of their own.
 */
export function loadBundle<T>(file: string, command?: string): T {
  if (nodeHasCompileCache()) {
    (nodeModule() as { enableCompileCache?: () => unknown }).enableCompileCache?.();
    return nodeModule().createRequire(file)(file) as T;
  }
  const cacheDir = process.env.NODE_DISABLE_COMPILE_CACHE ? undefined : trustedCacheDir();
  if (cacheDir === undefined) return nodeModule().createRequire(file)(file) as T;
  const stat = fs.statSync(file);
  // <bundle>-<path mark>[-<command>]~<size>-<mtime>-<node>-<arch>: the part before `~` names
  // the installed bundle (and the command), the rest its build and the Node that compiled it.
  const own = command !== undefined && COMMAND_WORD.test(command) ? `-${command}` : '';
  const name =
    `${file.slice(file.lastIndexOf('/') + 1)}-${pathMark(file)}${own}~${stat.size}-` +
    `${Math.trunc(stat.mtimeMs)}-${process.version}-${process.arch}`;
  const cachedData = cachedCodeOf(`${cacheDir}/${name}`);
  const vm = process.getBuiltinModule('node:vm') as Vm;
  // A bin's bundle starts with `#!`, which is a comment only at the very start of a script:
  // inside the wrapper it becomes `//` (same line count, so stack traces keep their lines).
  const source = fs.readFileSync(file, 'utf8').replace(/^#!/, '//');
  const wrapper = `(function (exports, require, module, __filename, __dirname) { ${source}\n});`;
  const script = new vm.Script(wrapper, { filename: file, cachedData });
  const module: { exports: BundleExports } = { exports: {} };
  if (cachedData === undefined || script.cachedDataRejected)
    saveAtExit(script, cacheDir, name, () => module.exports);
  const compiled = script.runInThisContext() as (...args: unknown[]) => void;
  compiled.call(module.exports, module.exports, requireFor(file), module, file, folderOf(file));
  return module.exports as T;
}
