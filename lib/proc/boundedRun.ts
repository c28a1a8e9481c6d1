// Running an outside program a stage depends on (a review leaf's worker, a teacher's
// reviewer, a run's acceptance command): an argument vector, never a shell, in its own
// process group, with its input on stdin and its output kept within bounds. The one runner
// of both stages (lib/review and lib/run may not import each other).
//
// Crash contract: the program is spawned detached (setsid), so it is the leader of a
// process group of its own; a timeout or an abort (the leaf or the teacher was told to
// stop) ends the whole group as ending.ts does (SIGTERM, a grace, SIGKILL), so what the
// program started dies with it. When the leader exits, what is left of its group is
// killed too, and its output streams are cut a second later if a helper that left the
// group still holds them, so no straggler keeps the run (or a disposable worktree) in
// use. If the caller itself is SIGKILLed the group lives on: the caller records the
// leader's identity (onSpawn) for whoever cleans up after it.
//
// Output: by default stdout is kept from its start up to `stdoutLimit` bytes (it is the
// result), stderr from its end up to `stderrLimit` bytes (the last lines say why it
// failed); the bytes dropped are counted. A caller that needs another shape passes its own
// keepers (acceptance keeps both ends of both streams with HeadTailBytes).
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { endGroup, signalProcess } from './ending.js';

/** How to run the program. */
export interface BoundedRunOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Written to the program's stdin, which is then closed. */
  stdin: string;
  /** After this many milliseconds the process group is ended. */
  timeoutMs: number;
  /** How long the group gets between SIGTERM and SIGKILL when it is ended (ending.ts's default). */
  graceMs?: number;
  /** Aborting kills the process group; an already aborted signal spawns nothing. */
  signal?: AbortSignal;
  /** Called with the leader's pid once it runs. */
  onSpawn?: (pid: number) => void;
  /** Bytes of stdout kept from the start (default 1 MiB). */
  stdoutLimit?: number;
  /** Bytes of stderr kept from the end (default 64 KiB). */
  stderrLimit?: number;
  /** Keeps stdout instead of the default head (stdoutLimit is then unused). */
  stdoutKeeper?: OutputKeeper;
  /** Keeps stderr instead of the default tail (stderrLimit is then unused). */
  stderrKeeper?: OutputKeeper;
}

/** What keeps a stream's bytes within bounds: BoundedBytes, HeadTailBytes, or a caller's own. */
export interface OutputKeeper {
  add(chunk: Buffer): void;
  /** Bytes not kept. */
  readonly dropped: number;
  /** What was kept, as UTF-8 text. */
  text(): string;
}

/** What happened. */
export interface BoundedRun {
  /** The exit code, or null when the program was killed by a signal or never started. */
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  aborted: boolean;
  /** Why the program could not be started (`spawn <file> ENOENT`), else ''. */
  error: string;
  /** The system error code of a program that could not be started (`ENOENT`), else ''. */
  errorCode: string;
  durationMs: number;
  stdout: string;
  stdoutDropped: number;
  stderr: string;
  stderrDropped: number;
}

/**
 * Bytes of a stream kept within `limit`, from its head or its tail, with the count of bytes
 * dropped.
 */
export class BoundedBytes implements OutputKeeper {
  private chunks: Buffer[] = [];
  private kept = 0;
  dropped = 0;

  constructor(
    private readonly limit: number,
    private readonly keep: 'head' | 'tail',
  ) {}

  /** Takes one chunk. */
  add(chunk: Buffer): void {
    if (this.keep === 'head') {
      const room = Math.max(0, this.limit - this.kept);
      if (room > 0) this.chunks.push(chunk.subarray(0, room));
      this.kept += Math.min(room, chunk.length);
      this.dropped += Math.max(0, chunk.length - room);
      return;
    }
    this.chunks.push(chunk);
    this.kept += chunk.length;
    if (this.kept > this.limit) {
      const all = Buffer.concat(this.chunks);
      this.dropped += all.length - this.limit;
      this.chunks = [all.subarray(all.length - this.limit)];
      this.kept = this.limit;
    }
  }

  /** What was kept. */
  bytes(): Buffer {
    return Buffer.concat(this.chunks);
  }

  /** What was kept, as UTF-8 text. */
  text(): string {
    return this.bytes().toString('utf8');
  }
}

/**
 * Bytes of a stream kept from both ends: the first `limit` bytes and the last `limit`
 * bytes after them (never overlapping), with the count of bytes dropped in between.
 */
export class HeadTailBytes implements OutputKeeper {
  private readonly first: BoundedBytes;
  private readonly last: BoundedBytes;
  private headLength = 0;

  constructor(private readonly limit: number) {
    this.first = new BoundedBytes(limit, 'head');
    this.last = new BoundedBytes(limit, 'tail');
  }

  /** Takes one chunk: what still fits goes to the head, the rest to the tail. */
  add(chunk: Buffer): void {
    const room = Math.max(0, this.limit - this.headLength);
    if (room > 0) this.first.add(chunk.subarray(0, room));
    this.headLength += Math.min(room, chunk.length);
    if (chunk.length > room) this.last.add(chunk.subarray(room));
  }

  /** Bytes dropped between the head and the tail. */
  get dropped(): number {
    return this.last.dropped;
  }

  /** The first bytes of the stream. */
  head(): Buffer {
    return this.first.bytes();
  }

  /** The last bytes of the stream after the head. */
  tail(): Buffer {
    return this.last.bytes();
  }

  /** Head and tail together, as UTF-8 text (the whole stream when nothing was dropped). */
  text(): string {
    return Buffer.concat([this.head(), this.tail()]).toString('utf8');
  }
}

/**
 * How long the output streams of an exited program may stay open (held by a helper that left its
 * group) before they are cut.
 */
const STREAMS_AFTER_EXIT_MS = 1_000;

const NOT_STARTED: Omit<BoundedRun, 'error' | 'errorCode' | 'aborted'> = {
  exitCode: null,
  signal: null,
  timedOut: false,
  durationMs: 0,
  stdout: '',
  stdoutDropped: 0,
  stderr: '',
  stderrDropped: 0,
};

/** Feeds the program its input and keeps its output. */
function connectStreams(
  child: ChildProcessWithoutNullStreams,
  stdin: string,
  out: OutputKeeper,
  err: OutputKeeper,
): void {
  child.stdout.on('data', (b: Buffer) => out.add(b));
  child.stderr.on('data', (b: Buffer) => err.add(b));
  // a program that does not read its input closes the pipe early (EPIPE)
  child.stdin.on('error', () => undefined);
  child.stdin.end(stdin);
}

/** Runs `argv` (no shell) in its own process group; resolves when it and its output have ended. */
export function runBounded(argv: string[], options: BoundedRunOptions): Promise<BoundedRun> {
  if (options.signal?.aborted)
    return Promise.resolve({ ...NOT_STARTED, error: '', errorCode: '', aborted: true });
  return new Promise((resolve) => {
    const started = performance.now();
    const out =
      options.stdoutKeeper ?? new BoundedBytes(options.stdoutLimit ?? 1024 * 1024, 'head');
    const err = options.stderrKeeper ?? new BoundedBytes(options.stderrLimit ?? 64 * 1024, 'tail');
    const state = { timedOut: false, aborted: false, error: '', errorCode: '' };
    const child = process.getBuiltinModule('node:child_process').spawn(argv[0]!, argv.slice(1), {
      cwd: options.cwd,
      env: options.env,
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const end = () =>
      void (child.pid === undefined ? undefined : endGroup(child.pid, options.graceMs));
    const timer = setTimeout(() => {
      state.timedOut = true;
      end();
    }, options.timeoutMs);
    const onAbort = () => {
      state.aborted = true;
      end();
    };
    options.signal?.addEventListener('abort', onAbort, { once: true });
    if (child.pid !== undefined) options.onSpawn?.(child.pid);
    connectStreams(child, options.stdin, out, err);
    child.on('error', (e) => {
      state.error = e.message;
      state.errorCode = (e as NodeJS.ErrnoException).code ?? '';
    });
    let cut: NodeJS.Timeout | undefined;
    child.on('exit', () => {
      clearTimeout(timer);
      if (child.pid !== undefined) signalProcess(child.pid, 'SIGKILL', true);
      cut = setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
      }, STREAMS_AFTER_EXIT_MS);
    });
    child.on('close', (exitCode, signal) => {
      clearTimeout(timer);
      clearTimeout(cut);
      options.signal?.removeEventListener('abort', onAbort);
      resolve({
        exitCode: state.error ? null : exitCode,
        signal,
        ...state,
        durationMs: Math.round(performance.now() - started),
        stdout: out.text(),
        stdoutDropped: out.dropped,
        stderr: err.text(),
        stderrDropped: err.dropped,
      });
    });
  });
}
