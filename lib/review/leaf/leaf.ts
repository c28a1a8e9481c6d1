// `baton leaf run` (docs/review.md §8): one task done by a worker command in a disposable
// worktree, then submitted for the two-lens review.
//
// Steps: check the role and the reviewers; draw the bead (its rand8 names the worktree
// `study-<role>-<rand8>`); write the brief and the pid record; create the worktree on a
// branch from HEAD; run the worker there (no shell; the brief's JSON on stdin and its path
// in BATON_BRIEF; a timeout kills its process group); write the audit; remove the
// worktree in `finally`, keeping the branch only when the worker committed to it. Then,
// when the worker succeeded, submit (output = its stdout; submitted_by = the role, so the
// requests are queued from that role's mailbox; branch and commit name the kept branch).
// Waiting for the verdicts (`--wait`) is the caller's next step, with the bead returned.
//
// Crash contract: the pid record is written before the worktree exists and marked removed
// only after it is gone, so a leaf killed at any point (SIGKILL included) is found by
// `baton leaf clean` and `baton doctor` and its worktree removed. A signal the leaf gets
// (its caller aborts `signal`) kills the worker's group; the `finally` still removes the
// worktree, nothing is submitted, and LeafInterrupted says how it ended. A failed worker
// (non-zero exit, killed, timed out, not started) submits nothing: the audit says why.
import { runBounded } from '../../proc/boundedRun.js';
import { fail } from '../../fsx/commandFailure.js';
import {
  leafFilesOf,
  leafWorktreeNameOf,
  reviewPathsOf,
  worktreePathOf,
  type LeafFiles,
} from '../../project/layout.js';
import { processIdentityOf } from '../../fsx/processIdentity.js';
import { newBead, newRand8 } from '../bookbag/beads.js';
import { type Bookbag, type Difficulty } from '../bookbag/bookbag.js';
import { auditOf, endingOf, type LeafAudit } from './leafAudit.js';
import { readLeafFile, writeLeafJson, type LeafRecord } from './leafRecord.js';
import {
  addLeafWorktree,
  changedFilesOf,
  disposeLeaf,
  headCommitOf,
  newWorkOf,
} from './leafWorktree.js';
import { LeafInterrupted } from '../bookbag/reviewErrors.js';
import { reviewerRoles, submitReview } from '../lens/submit.js';

/** What a leaf is asked to do. */
export interface LeafRequest {
  role: string;
  domain: string;
  difficulty: Difficulty;
  task: string;
  /** The worker's argument vector (never run through a shell). */
  argv: string[];
  /** The worker's time limit. */
  timeoutMs: number;
}

/** How to run a leaf: environment, the signal that interrupts it, the bound on the bead's lock. */
export interface LeafOptions {
  env?: NodeJS.ProcessEnv;
  /** Aborted with the signal's name (`SIGTERM`) when the leaf is told to stop. */
  signal?: AbortSignal;
  lockTimeoutMs?: number;
}

/** What a successful leaf did. */
export interface LeafResult {
  bead: string;
  worktree: string;
  /** The audit file. */
  audit: string;
  /** The kept branch and its tip ('' when the worker committed nothing). */
  branch: string;
  commit: string;
  bookbag: Bookbag;
}

/** A leaf under way: its bead, files and pid record. */
interface StartedLeaf {
  bead: string;
  files: LeafFiles;
  record: LeafRecord;
  brief: string;
}

/** Draws the bead and writes the brief and the pid record (before any worktree exists). */
function startLeaf(root: string, request: LeafRequest, env: NodeJS.ProcessEnv): StartedLeaf {
  const rand8 = newRand8();
  const bead = newBead(request.role, request.domain, rand8);
  const worktree = leafWorktreeNameOf(request.role, rand8);
  const files = leafFilesOf(reviewPathsOf(root, env), bead);
  const record: LeafRecord = {
    bead,
    role: request.role,
    worktree,
    path: worktreePathOf(root, worktree),
    branch: worktree,
    base: headCommitOf(root),
    leaf: processIdentityOf(process.pid)!,
    worker: '',
    removed_at: '',
  };
  const brief = {
    bead,
    role: request.role,
    domain: request.domain,
    task: request.task,
    difficulty: request.difficulty,
  };
  writeLeafJson(files.brief, brief);
  writeLeafJson(files.record, record);
  return { bead, files, record, brief: `${JSON.stringify(brief)}\n` };
}

/**
 * The worker's environment: the caller's, plus the brief's path, the verification file, the role
 * and ROOT.
 */
function workerEnv(root: string, leaf: StartedLeaf, env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return {
    ...env,
    BATON_BRIEF: leaf.files.brief,
    BATON_VERIFICATION: leaf.files.verification,
    SWARMFORGE_ROLE: leaf.record.role,
    SWARMFORGE_ROOT: root,
  };
}

/**
 * Creates the worktree, runs the worker in it and writes the audit; the worktree is removed
 * whatever happened.
 */
async function runInWorktree(
  root: string,
  leaf: StartedLeaf,
  request: LeafRequest,
  options: LeafOptions,
): Promise<LeafAudit> {
  const { files, record } = leaf;
  try {
    addLeafWorktree(root, record);
    const startedAt = new Date();
    const run = await runBounded(request.argv, {
      cwd: record.path,
      env: workerEnv(root, leaf, options.env ?? process.env),
      stdin: leaf.brief,
      timeoutMs: request.timeoutMs,
      signal: options.signal,
      onSpawn: (pid) => {
        record.worker = processIdentityOf(pid) ?? '';
        writeLeafJson(files.record, record);
      },
    });
    const commit = newWorkOf(root, record);
    const audit = auditOf(run, {
      bead: leaf.bead,
      role: record.role,
      worktree: record.worktree,
      argv: request.argv,
      startedAt,
      timeoutMs: request.timeoutMs,
      interruptedBy: String(options.signal?.reason ?? ''),
      files: changedFilesOf(record),
      branch: commit ? record.branch : '',
      commit,
      note: readLeafFile(files.verification) ?? '',
    });
    writeLeafJson(files.output, audit);
    return audit;
  } finally {
    disposeLeaf(root, files.record, record);
  }
}

/** Throws LeafInterrupted when the leaf was told to stop. */
function stopIfInterrupted(signal: AbortSignal | undefined, detail: string): void {
  if (signal?.aborted) throw new LeafInterrupted(signal.reason as NodeJS.Signals, detail);
}

/** Runs one leaf; returns what it submitted. */
export async function runLeaf(
  root: string,
  request: LeafRequest,
  options: LeafOptions = {},
): Promise<LeafResult> {
  reviewerRoles(root, { submittedBy: request.role });
  const leaf = startLeaf(root, request, options.env ?? process.env);
  const audit = await runInWorktree(root, leaf, request, options);
  stopIfInterrupted(
    options.signal,
    `worktree removed, nothing submitted; audit '${leaf.files.output}'`,
  );
  if (audit.outcome !== 'succeeded')
    fail(
      'refused',
      `baton leaf: worker failed '${leaf.files.output}': ${endingOf(audit)}; nothing submitted`,
    );
  const bookbag = await submitReview(
    root,
    {
      bead: leaf.bead,
      task: request.task,
      output: audit.stdout,
      student: request.role,
      domain: request.domain,
      difficulty: request.difficulty,
      verification: audit.verification,
      summary: '',
      acMet: [],
      filesChanged: audit.files_changed,
      blockers: [],
      submittedBy: request.role,
      replyTo: request.role,
      branch: audit.branch,
      commit: audit.commit,
    },
    { lockTimeoutMs: options.lockTimeoutMs, env: options.env },
  );
  return {
    bead: leaf.bead,
    worktree: leaf.record.worktree,
    audit: leaf.files.output,
    branch: audit.branch,
    commit: audit.commit,
    bookbag,
  };
}
