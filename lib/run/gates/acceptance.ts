// Running a run's acceptance command (docs/runtime.md §8) and describing what happened as
// a JSON-ready record, the payload of the acceptance (or validation-failure) artifact.
//
// Process contract: the configured command is split into argv (commandWords.ts: a shell
// construct is refused before anything runs) and run without a shell, from `cwd`, as the
// leader of its own process group (lib/proc/boundedRun.ts); at the timeout the whole
// group gets SIGKILL, and whatever the command left running in its group when it exited
// is killed too, so no straggler outlives the acceptance. A program that cannot be started
// (missing, not executable, `cwd` gone) is an outcome, 'unstartable', never a throw: the
// caller records it as a failed gate like any other.
//
// Output contract: each stream keeps its first and last 64 KiB. An output of at most
// 128 KiB is kept whole in `head` (`tail` empty, nothing dropped). A longer one keeps its
// first 64 KiB cut back to the end of its last whole line and its last 64 KiB cut forward
// to the start of its first whole line: the partial lines at the cuts are dropped (and
// counted in `dropped_bytes`), so no line, and no secret on it, is split where the
// redaction rules could no longer recognise it. Everything text (argv, output, the spawn
// error) is redacted before it is returned.
import { HeadTailBytes, runBounded, type BoundedRun } from '../../proc/boundedRun.js';
import { splitAcceptanceCommand } from './commandWords.js';
import { redactArgv, redactSecrets } from './redact.js';

/** Bytes kept from each end of each stream. */
export const ACCEPTANCE_KEEP_BYTES = 64 * 1024;

/** The longest timer Node keeps (2^31 − 1 ms, about 24.8 days); a longer one would fire at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** How an acceptance run ended. */
export type AcceptanceOutcome = 'passed' | 'failed' | 'timed-out' | 'unstartable';

/** One stream's kept output, redacted. */
export interface AcceptanceStream {
  head: string;
  tail: string;
  dropped_bytes: number;
}

/** What an acceptance run did, ready for JSON. */
export interface AcceptanceRecord {
  /** The argument vector run, redacted. */
  argv: string[];
  cwd: string;
  outcome: AcceptanceOutcome;
  /** The exit code; null when killed by a signal or never started. */
  exit_code: number | null;
  signal: string | null;
  duration_ms: number;
  node_version: string;
  /** Why the program could not be started (`spawn <file> ENOENT`), redacted; null when it ran. */
  error: string | null;
  stdout: AcceptanceStream;
  stderr: AcceptanceStream;
}

/** What to run, where, for how long. */
export interface AcceptanceRequest {
  /** The configured acceptance command, as written. */
  command: string;
  /** The run's repo_root. */
  cwd: string;
  timeoutMs: number;
  /** The command's environment (default: this process's). */
  env?: NodeJS.ProcessEnv;
}

/**
 * A stream's record: whole when nothing was dropped, else both ends cut at line boundaries;
 * redacted.
 */
export function streamRecordOf(kept: HeadTailBytes): AcceptanceStream {
  if (kept.dropped === 0) return { head: redactSecrets(kept.text()), tail: '', dropped_bytes: 0 };
  let head = kept.head();
  let tail = kept.tail();
  let dropped = kept.dropped;
  const headEnd = head.lastIndexOf(0x0a) + 1;
  if (headEnd > 0) {
    dropped += head.length - headEnd;
    head = head.subarray(0, headEnd);
  }
  const tailStart = tail.indexOf(0x0a) + 1;
  if (tailStart > 0) {
    dropped += tailStart;
    tail = tail.subarray(tailStart);
  }
  return {
    head: redactSecrets(head.toString('utf8')),
    tail: redactSecrets(tail.toString('utf8')),
    dropped_bytes: dropped,
  };
}

/** The outcome of a bounded run: not started, timed out, exit 0, or anything else. */
function outcomeOf(run: BoundedRun): AcceptanceOutcome {
  if (run.error) return 'unstartable';
  if (run.timedOut) return 'timed-out';
  return run.exitCode === 0 ? 'passed' : 'failed';
}

/**
 * Runs the acceptance command without a shell, in its own process group, within its timeout;
 * refuses (exit 2) a shell construct.
 */
export async function runAcceptance(request: AcceptanceRequest): Promise<AcceptanceRecord> {
  const argv = splitAcceptanceCommand(request.command);
  if (!(request.timeoutMs > 0))
    throw new RangeError(`acceptance timeout must be positive, not ${request.timeoutMs} ms`);
  const stdout = new HeadTailBytes(ACCEPTANCE_KEEP_BYTES);
  const stderr = new HeadTailBytes(ACCEPTANCE_KEEP_BYTES);
  const run = await runBounded(argv, {
    cwd: request.cwd,
    env: request.env ?? process.env,
    stdin: '',
    timeoutMs: Math.min(request.timeoutMs, MAX_TIMER_MS),
    stdoutKeeper: stdout,
    stderrKeeper: stderr,
  });
  return {
    argv: redactArgv(argv),
    cwd: request.cwd,
    outcome: outcomeOf(run),
    exit_code: run.exitCode,
    signal: run.signal,
    duration_ms: run.durationMs,
    node_version: process.version,
    error: run.error ? redactSecrets(run.error) : null,
    stdout: streamRecordOf(stdout),
    stderr: streamRecordOf(stderr),
  };
}
