// One run of a reviewer program (docs/review.md §7): its argument vector is spawned without
// a shell, in the teacher's worktree, as the leader of a process group of its own
// (`detached`), with the prompt on stdin. Its stdout is the findings document.
//
// Process contract: whatever ends the run (its exit, the timeout, the teacher stopping), the
// whole process group is ended before this resolves: on a timeout or a stop, SIGTERM to the
// group and SIGKILL to what is left of it after a short grace; after the reviewer's own
// exit, SIGKILL to any helper it left in its group. A reviewer that forks helpers (an agent CLI
// running
// tools) therefore leaves nothing behind, and a helper holding stdout open cannot keep the
// run alive. stdout and stderr are bounded: a reviewer cannot fill the teacher's memory.
import { BoundedBytes, runBounded, type BoundedRun } from '../../proc/boundedRun.js';
import { DEFAULT_GRACE_MS } from '../../proc/ending.js';

/** How long a process group gets between SIGTERM and SIGKILL. */
export const KILL_GRACE_MS = DEFAULT_GRACE_MS;
/** The most stdout kept (a findings document is small; more is not one). */
export const MAX_STDOUT_BYTES = 4 * 1024 * 1024;
/** The most stderr kept (the tail, for the failure reason). */
export const MAX_STDERR_BYTES = 64 * 1024;

/** What one run came to. */
export type ReviewerOutcome =
  | { kind: 'exited'; stdout: string; stderr: string; ms: number }
  | {
      kind: 'crashed';
      code: number | null;
      signal: NodeJS.Signals | null;
      stdout: string;
      stderr: string;
      ms: number;
    }
  | { kind: 'timeout'; timeoutMs: number; stderr: string; ms: number }
  | { kind: 'unstartable'; message: string; ms: number }
  | { kind: 'abandoned'; ms: number };

/** One run's inputs. */
export interface ReviewerRun {
  argv: string[];
  cwd: string;
  prompt: string;
  timeoutMs: number;
  env: NodeJS.ProcessEnv;
  /**
   * Stops the run (the teacher got TERM or INT): the group is ended, the outcome is `abandoned`.
   */
  signal?: AbortSignal;
  /** Called with the reviewer's pid as soon as it runs (before it has read the prompt). */
  onStart?: (pid: number) => void;
}

/** What a run of the reviewer came to, from what the runner saw. */
function outcomeOf(run: ReviewerRun, r: BoundedRun): ReviewerOutcome {
  const ms = r.durationMs;
  if (r.error)
    return {
      kind: 'unstartable',
      message: `cannot run '${run.argv[0]}': ${r.errorCode || r.error}`,
      ms,
    };
  if (r.timedOut) return { kind: 'timeout', timeoutMs: run.timeoutMs, stderr: r.stderr, ms };
  if (r.aborted) return { kind: 'abandoned', ms };
  if (r.exitCode === 0) return { kind: 'exited', stdout: r.stdout, stderr: r.stderr, ms };
  return {
    kind: 'crashed',
    code: r.exitCode,
    signal: r.signal,
    stdout: r.stdout,
    stderr: r.stderr,
    ms,
  };
}

/** Runs the reviewer once; resolves when it and its whole process group are gone. */
export async function runReviewer(run: ReviewerRun): Promise<ReviewerOutcome> {
  const result = await runBounded(run.argv, {
    cwd: run.cwd,
    env: run.env,
    stdin: run.prompt,
    timeoutMs: run.timeoutMs,
    graceMs: KILL_GRACE_MS,
    ...(run.signal ? { signal: run.signal } : {}),
    ...(run.onStart ? { onSpawn: run.onStart } : {}),
    // One byte past the bound is kept, so an oversized document shows as one.
    stdoutKeeper: new BoundedBytes(MAX_STDOUT_BYTES + 1, 'head'),
    stderrKeeper: new BoundedBytes(MAX_STDERR_BYTES, 'tail'),
  });
  return outcomeOf(run, result);
}
