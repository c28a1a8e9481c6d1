// The audit of one leaf run (`<leaves>/<bead>/output.json`, docs/review.md §8): how the
// worker ended, how long it took, its stdout and stderr within bounds, the files it
// changed according to git, the verification the review receives, and the branch and
// commit its work is on. Written once, after the worker ended and before its worktree is
// removed; a person reads it to see why a leaf failed.
import { type BoundedRun } from '../../proc/boundedRun.js';
import { isoOf } from '../../fsx/timestamps.js';

/** How a worker run ended, from the leaf's point of view. */
export type LeafOutcome = 'succeeded' | 'failed' | 'timed-out' | 'interrupted';

/** The audit file's content. */
export interface LeafAudit {
  bead: string;
  role: string;
  worktree: string;
  argv: string[];
  started_at: string;
  duration_ms: number;
  timeout_ms: number;
  outcome: LeafOutcome;
  exit_code: number | null;
  signal: string | null;
  /** Why the worker could not be started, else ''. */
  error: string;
  /** The signal the leaf itself received (SIGTERM, SIGINT, SIGHUP), else ''. */
  interrupted_by: string;
  stdout: string;
  stdout_dropped_bytes: number;
  stderr: string;
  stderr_dropped_bytes: number;
  files_changed: string[];
  verification: string;
  /** The branch holding the worker's commits, '' when it committed nothing. */
  branch: string;
  commit: string;
}

/**
 * The outcome of a run: interrupted, timed out, failed (did not start, non-zero exit, killed), or
 * succeeded.
 */
export function outcomeOf(run: BoundedRun): LeafOutcome {
  if (run.aborted) return 'interrupted';
  if (run.timedOut) return 'timed-out';
  return run.error || run.exitCode !== 0 ? 'failed' : 'succeeded';
}

/**
 * One phrase for how the worker ended (`exited with code 3 after 0.12 s`, `was killed by SIGKILL`,
 * `timed out after 5 s ...`).
 */
export function endingOf(
  audit: Pick<
    LeafAudit,
    'outcome' | 'exit_code' | 'signal' | 'error' | 'timeout_ms' | 'duration_ms' | 'interrupted_by'
  >,
): string {
  if (audit.outcome === 'interrupted') return `was stopped: the leaf got ${audit.interrupted_by}`;
  if (audit.outcome === 'timed-out')
    return `timed out after ${audit.timeout_ms / 1000} s (its process group was killed)`;
  if (audit.error) return `could not be started: ${audit.error}`;
  if (audit.signal) return `was killed by ${audit.signal}`;
  return `exited with code ${audit.exit_code} after ${(audit.duration_ms / 1000).toFixed(2)} s`;
}

/**
 * The verification the review receives: the run's facts, then what the worker wrote to
 * BATON_VERIFICATION (if anything).
 */
export function verificationOf(
  worktree: string,
  ending: string,
  files: string[],
  branch: string,
  commit: string,
  note: string,
): string {
  const committed = commit ? `commit ${commit} on branch ${branch}` : 'no commit';
  const facts =
    `leaf ${worktree}: worker ${ending}; ${files.length} ` +
    `file${files.length === 1 ? '' : 's'} changed; ${committed}`;
  return note.trim() ? `${facts}\n\n${note.trim()}\n` : `${facts}\n`;
}

/** What an audit records about one run (its facts gathered by the leaf). */
export interface AuditFacts {
  bead: string;
  role: string;
  worktree: string;
  argv: string[];
  startedAt: Date;
  timeoutMs: number;
  interruptedBy: string;
  files: string[];
  branch: string;
  commit: string;
  /** What the worker wrote to BATON_VERIFICATION ('' when nothing). */
  note: string;
}

/** The audit of a run. */
export function auditOf(run: BoundedRun, facts: AuditFacts): LeafAudit {
  const base = {
    outcome: outcomeOf(run),
    exit_code: run.exitCode,
    signal: run.signal,
    error: run.error,
    timeout_ms: facts.timeoutMs,
    duration_ms: run.durationMs,
    interrupted_by: run.aborted ? facts.interruptedBy : '',
  };
  return {
    bead: facts.bead,
    role: facts.role,
    worktree: facts.worktree,
    argv: facts.argv,
    started_at: isoOf(facts.startedAt),
    ...base,
    stdout: run.stdout,
    stdout_dropped_bytes: run.stdoutDropped,
    stderr: run.stderr,
    stderr_dropped_bytes: run.stderrDropped,
    files_changed: facts.files,
    branch: facts.branch,
    commit: facts.commit,
    verification: verificationOf(
      facts.worktree,
      endingOf(base),
      facts.files,
      facts.branch,
      facts.commit,
      facts.note,
    ),
  };
}
