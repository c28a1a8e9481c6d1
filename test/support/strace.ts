// Reading strace logs in tests: a node process run under `strace -f -y`, its log parsed into
// system calls (with the paths of their fd arguments), and ordering queries over them (what
// was fsync'd between two calls).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { dirname, join } from 'node:path';
import { tempDir } from './project.js';

/** The calls the durability tests trace. */
export const TRACED =
  'openat,write,fsync,fdatasync,rename,renameat,renameat2,link,linkat,unlink,unlinkat,close';

/** One system call from the strace log. */
export interface Call {
  /** Position of the line that started the call and of the line that finished it. */
  start: number;
  end: number;
  pid: number;
  name: string;
  /** First argument as an fd, with its path as annotated by -y (a file, a directory, `socket:[…]`). */
  fd?: number;
  fdPath?: string;
  /** Quoted string arguments, unescaped (paths of rename/link/unlink/openat, data of write). */
  strings: string[];
  ret: number;
}

function unescape(text: string): string {
  return text.replace(/\\(x[0-9a-fA-F]{2}|[0-7]{1,3}|.)/g, (_, e: string) => {
    if (e[0] === 'x') return String.fromCharCode(parseInt(e.slice(1), 16));
    if (/^[0-7]+$/.test(e)) return String.fromCharCode(parseInt(e, 8));
    return ({ n: '\n', t: '\t', r: '\r', v: '\v', f: '\f' } as Record<string, string>)[e] ?? e;
  });
}

/** A node process run under strace: its exit, its output, the calls traced and the log's text. */
export interface TracedRun {
  code: number | null;
  stdout: string;
  stderr: string;
  calls: Call[];
  log: string;
}

/** How `traceNode` runs: the calls to trace, where, with what environment, strings up to what length. */
export interface TraceOptions {
  calls?: string;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  stringBytes?: number;
}

/**
 * Runs `node args` under `strace -f -qq -y` tracing `calls` (TRACED unless given), without
 * BATON_CRASH_AT (a trace is of a whole run), and parses its log.
 */
export function traceNode(
  args: string[],
  { calls = TRACED, cwd, env = process.env, stringBytes = 256 }: TraceOptions = {},
): TracedRun {
  const dir = tempDir('baton-strace-');
  const logFile = join(dir, 'trace.log');
  try {
    const run = spawnSync(
      'strace',
      ['-f', '-qq', '-y', '-s', String(stringBytes), '-e', `trace=${calls}`, '-o', logFile].concat([
        process.execPath,
        ...args,
      ]),
      { cwd, env: { ...env, BATON_CRASH_AT: undefined }, encoding: 'utf8' },
    );
    assert.equal(run.error, undefined, `strace could not run: ${run.error}`);
    const log = fs.readFileSync(logFile, 'utf8');
    return {
      code: run.status,
      stdout: run.stdout,
      stderr: run.stderr,
      calls: parseStrace(log),
      log,
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Parses `strace -f -y` output; `<unfinished ...>`/`<... resumed>` pairs become one call. */
export function parseStrace(log: string): Call[] {
  const calls: Call[] = [];
  const pending = new Map<number, { text: string; start: number }>();
  log.split('\n').forEach((line, index) => {
    const m = /^(\d+)\s+(.*)$/.exec(line);
    if (!m) return;
    const pid = Number(m[1]);
    let text = m[2]!;
    let start = index;
    const resumed = /^<\.\.\. \w+ resumed>(.*)$/.exec(text);
    if (resumed) {
      const head = pending.get(pid);
      if (!head) return;
      pending.delete(pid);
      text = head.text + resumed[1]!;
      start = head.start;
    }
    if (text.endsWith('<unfinished ...>')) {
      pending.set(pid, { text: text.slice(0, -'<unfinished ...>'.length).trimEnd(), start: index });
      return;
    }
    const call = /^(\w+)\((.*)\)\s+=\s+(-?\d+)/.exec(text);
    if (!call) return;
    const args = call[2]!;
    const fdArg = /^(\d+)<([^>]*)>/.exec(args);
    const strings = [...args.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((s) => unescape(s[1]!));
    calls.push({
      start,
      end: index,
      pid,
      name: call[1]!,
      strings,
      ret: Number(call[3]),
      ...(fdArg ? { fd: Number(fdArg[1]), fdPath: unescape(fdArg[2]!) } : {}),
    });
  });
  return calls;
}

/** Queries over one trace. */
export class Trace {
  constructor(readonly calls: Call[]) {}

  /** The one successful rename of `from` to `to`. */
  rename(from: string, to: string): Call {
    const found = this.calls.filter(
      (c) =>
        /^rename(at2?)?$/.test(c.name) &&
        c.ret === 0 &&
        c.strings[0] === from &&
        c.strings[1] === to,
    );
    assert.equal(found.length, 1, `expected one rename ${from} -> ${to}, found ${found.length}`);
    return found[0]!;
  }

  /** Successful renames whose source is in `fromDir` and target in `toDir`. */
  renamesBetween(fromDir: string, toDir: string): Call[] {
    return this.calls.filter(
      (c) =>
        /^rename(at2?)?$/.test(c.name) &&
        c.ret === 0 &&
        dirname(c.strings[0] ?? '') === fromDir &&
        dirname(c.strings[1] ?? '') === toDir,
    );
  }

  /** The last successful write to the file at `path`. */
  lastWrite(path: string): Call {
    const writes = this.calls.filter((c) => c.name === 'write' && c.fdPath === path && c.ret > 0);
    assert.ok(writes.length > 0, `no write to ${path}`);
    return writes[writes.length - 1]!;
  }

  /** The write of stdout that starts with `prefix`. */
  stdout(prefix: string): Call {
    const found = this.calls.find(
      (c) => c.name === 'write' && c.fd === 1 && (c.strings[0] ?? '').startsWith(prefix),
    );
    assert.ok(found, `no write of '${prefix}' to stdout`);
    return found;
  }

  /** Asserts that `path` (file or directory) is fsync'd after `after` finished and before `before` started. */
  fsyncBetween(path: string, after: Call, before: Call, what: string): void {
    const ok = this.calls.some(
      (c) =>
        (c.name === 'fsync' || c.name === 'fdatasync') &&
        c.ret === 0 &&
        c.fdPath === path &&
        c.start > after.end &&
        c.end < before.start,
    );
    assert.ok(
      ok,
      `${what}: no fsync of ${path} between line ${after.end} and line ${before.start}`,
    );
  }
}
