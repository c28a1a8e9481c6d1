// One run of a reviewer program (docs/review.md §7): its argument vector is spawned without
// a shell, in the teacher's worktree, as the leader of a process group of its own
// (`detached`), with the prompt on stdin. Its stdout is the findings document.
//
// Process contract: whatever ends the run (its exit, the timeout, the teacher stopping), the
// whole process group is ended before this resolves: on a timeout or a stop, SIGTERM to the
// group and SIGKILL to what is left of it after a short grace; after the reviewer's own
// exit, SIGKILL to any helper it left in its group. A reviewer that forks helpers (an agent CLI running
// tools) therefore leaves nothing behind, and a helper holding stdout open cannot keep the
// run alive. stdout and stderr are bounded: a reviewer cannot fill the teacher's memory.
import { spawn } from 'node:child_process';
import { processRunning } from '../../fsx/processIdentity.js';

/** How long a process group gets between SIGTERM and SIGKILL. */
export const KILL_GRACE_MS = 1_000;
/** The most stdout kept (a findings document is small; more is not one). */
export const MAX_STDOUT_BYTES = 4 * 1024 * 1024;
/** The most stderr kept (the tail, for the failure reason). */
export const MAX_STDERR_BYTES = 64 * 1024;

/** What one run came to. */
export type ReviewerOutcome =
  | { kind: 'exited'; stdout: string; stderr: string; ms: number }
  | { kind: 'crashed'; code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string; ms: number }
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
  /** Stops the run (the teacher got TERM or INT): the group is ended, the outcome is `abandoned`. */
  signal?: AbortSignal;
  /** Called with the reviewer's pid as soon as it runs (before it has read the prompt). */
  onStart?: (pid: number) => void;
}

/** True while any process of group `pgid` exists (zombies included: a dead helper not yet reaped counts). */
export function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Sends `signal` to every process of group `pgid` (nothing when the group is gone). */
export function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // the group is gone
  }
}

/**
 * Ends group `pgid` (whose leader is the process `pgid`): SIGTERM to the group, up to
 * `graceMs` for the leader to finish, then SIGKILL to whatever is left of the group. It does
 * not wait for the killed processes to be reaped: SIGKILL cannot be refused, and a helper
 * whose parent died is reaped by init, on init's schedule.
 */
export async function endGroup(pgid: number, graceMs = KILL_GRACE_MS): Promise<void> {
  if (!groupAlive(pgid)) return;
  signalGroup(pgid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (processRunning(pgid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  signalGroup(pgid, 'SIGKILL');
}

/** Collects a stream's bytes up to `max` (keeping the head, or the tail with `keepTail`). */
function collector(max: number, keepTail: boolean): { add: (b: Buffer) => void; text: () => string } {
  let chunks: Buffer[] = [];
  let size = 0;
  return {
    add: (b) => {
      chunks.push(b);
      size += b.length;
      if (size <= max * 2) return;
      const all = Buffer.concat(chunks);
      chunks = [keepTail ? all.subarray(all.length - max) : all.subarray(0, max + 1)];
      size = chunks[0]!.length;
    },
    text: () => {
      const all = Buffer.concat(chunks);
      return (keepTail ? all.subarray(Math.max(0, all.length - max)) : all.subarray(0, max + 1)).toString('utf8');
    },
  };
}

/** How long the streams of an exited reviewer may stay open (held by a helper that left its group) before they are cut. */
const STREAMS_AFTER_EXIT_MS = 1_000;

/** Runs the reviewer once; resolves when it and its whole process group are gone. */
export function runReviewer(run: ReviewerRun): Promise<ReviewerOutcome> {
  const start = Date.now();
  const ms = () => Date.now() - start;
  return new Promise((resolve) => {
    if (run.signal?.aborted) return resolve({ kind: 'abandoned', ms: 0 });
    const child = spawn(run.argv[0]!, run.argv.slice(1), { cwd: run.cwd, env: run.env, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
    const stdout = collector(MAX_STDOUT_BYTES, false);
    const stderr = collector(MAX_STDERR_BYTES, true);
    let ending: 'timeout' | 'abandoned' | undefined;
    let settled = false;
    const stop = (why: 'timeout' | 'abandoned') => {
      ending ??= why;
      void endGroup(child.pid!);
    };
    const timer = setTimeout(() => stop('timeout'), run.timeoutMs);
    const onAbort = () => stop('abandoned');
    const finish = (outcome: ReviewerOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      run.signal?.removeEventListener('abort', onAbort);
      resolve(outcome);
    };
    child.on('error', (err) => finish({ kind: 'unstartable', message: `cannot run '${run.argv[0]}': ${(err as NodeJS.ErrnoException).code ?? err.message}`, ms: ms() }));
    if (child.pid === undefined) return;
    const pid = child.pid;
    run.signal?.addEventListener('abort', onAbort);
    run.onStart?.(pid);
    child.stdout.on('data', stdout.add);
    child.stderr.on('data', stderr.add);
    child.stdin.on('error', () => undefined); // a reviewer that exits without reading its prompt
    child.stdin.end(run.prompt);
    const outcomeOf = (code: number | null, signal: NodeJS.Signals | null): ReviewerOutcome => {
      if (ending === 'timeout') return { kind: 'timeout', timeoutMs: run.timeoutMs, stderr: stderr.text(), ms: ms() };
      if (ending === 'abandoned') return { kind: 'abandoned', ms: ms() };
      if (code === 0) return { kind: 'exited', stdout: stdout.text(), stderr: stderr.text(), ms: ms() };
      return { kind: 'crashed', code, signal, stdout: stdout.text(), stderr: stderr.text(), ms: ms() };
    };
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      signalGroup(pid, 'SIGKILL');
      const cut = setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
      }, STREAMS_AFTER_EXIT_MS);
      const done = () => {
        clearTimeout(cut);
        finish(outcomeOf(code, signal));
      };
      if (child.stdout.closed && child.stderr.closed) done();
      else child.on('close', done);
    });
  });
}
