// Resume and retry verification (docs/runtime.md §7): every check a paused or blocked run
// must pass before it may continue, each failure its own message naming the values, in the
// contract's order: owner, machine, release and schema version, repo_root, base commit,
// ancestry, repository state, artifact digests, lease. The caller refuses with all of them
// (exit 2, nothing changed), so the owner fixes everything in one go rather than one
// refusal at a time.
//
// A check that cannot run because an earlier one failed is skipped, not reported: with
// repo_root gone, nothing about its HEAD is asked; with base_commit missing, neither is
// ancestry from it. For retry before any checkpoint, "base_commit is an ancestor of HEAD"
// is the ancestry check itself and is reported once.
//
// Artifact digests and the lease are the caller's facts (it owns the run folder and the
// lease file); this module reads only git.
import { existsSync, realpathSync } from 'node:fs';
import { CommandFailure } from '../../fsx/commandFailure.js';
import { printable } from '../../fsx/printable.js';
import {
  commitExists,
  headOf,
  isAncestor,
  modifiedTrackedFiles,
  repoSnapshotOf,
  resolveWorkTree,
} from '../gates/repoState.js';
import { SCHEMA_VERSION, type Workflow } from '../record/workflow.js';

/** Which verb continues the run: resume (from PAUSED) or retry (from BLOCKED). */
export type ContinueKind = 'resume' | 'retry';

/** What the lease file says now (§5). */
export interface LeaseFacts {
  live: boolean;
  stale: boolean;
  pid?: number;
  host?: string;
}

/** The caller's facts about here and now that resume and retry compare the record with. */
export interface ResumeFacts {
  root: string;
  owner: string;
  machineId: string;
  release: string;
  /** Manifest paths whose file is missing or has another digest. */
  artifactsBad: string[];
  lease: LeaseFacts;
  reclaimStale: boolean;
}

/** At most this many modified files are named in one message. */
const MAX_FILES_NAMED = 10;

/**
 * Every failed §7 check for continuing `wf` by `kind`, one distinct message each, in the contract's
 * order (empty: it may continue).
 */
export function resumeProblems(wf: Workflow, kind: ContinueKind, facts: ResumeFacts): string[] {
  return [
    ...identityProblems(wf, facts),
    ...repositoryProblems(wf, kind, facts.root),
    ...facts.artifactsBad.map((path) => `artifact changed or missing: ${printable(path)}`),
    ...leaseProblems(facts.lease, facts.reclaimStale),
  ].map(printable);
}

/** Owner, machine, release and schema version. */
function identityProblems(wf: Workflow, facts: ResumeFacts): string[] {
  const problems: string[] = [];
  if (wf.owner !== facts.owner)
    problems.push(
      `run ${wf.run_id} belongs to ${wf.owner}; you are ${facts.owner || '(unknown user)'}`,
    );
  const machine = (id: string) => id || '(no machine id)';
  if (wf.machine_id !== facts.machineId)
    problems.push(
      `run was made on machine ${machine(wf.machine_id)}; this is ${machine(facts.machineId)}`,
    );
  if (wf.runtime_release !== facts.release)
    problems.push(`run was made by baton ${wf.runtime_release}; this is baton ${facts.release}`);
  if (wf.schema_version !== SCHEMA_VERSION)
    problems.push(
      `run was created with schema version ${wf.schema_version}; ` +
        `this baton supports ${SCHEMA_VERSION}`,
    );
  return problems;
}

/** Why repo_root is not a work tree of ROOT's repository, or undefined when it is one. */
function repoRootProblem(repo: string, root: string): string | undefined {
  if (!existsSync(repo)) return `repo_root '${repo}' does not exist`;
  let top: string;
  try {
    top = resolveWorkTree(root, repo);
  } catch (err) {
    if (err instanceof CommandFailure)
      return `repo_root '${repo}' is not a work tree of this repository: ${err.lines[0]}`;
    throw err;
  }
  if (top !== realpathSync(repo))
    return (
      `repo_root '${repo}' is not a work tree of this repository: ` +
      `it is a folder inside the work tree '${top}'`
    );
  return undefined;
}

/**
 * repo_root, base_commit, ancestry from it, and the repository state (skipping what cannot be
 * asked).
 */
function repositoryProblems(wf: Workflow, kind: ContinueKind, root: string): string[] {
  const repo = wf.repo_root;
  const notWorkTree = repoRootProblem(repo, root);
  if (notWorkTree !== undefined) return [notWorkTree];
  if (kind === 'resume' && resumesCleanly(wf, repo)) return [];
  const problems: string[] = [];
  const baseExists = commitExists(repo, wf.base_commit);
  if (!baseExists) problems.push(`base commit ${wf.base_commit} does not exist`);
  let head: string | undefined;
  try {
    head = headOf(repo);
  } catch (err) {
    if (!(err instanceof CommandFailure)) throw err;
    problems.push(err.lines[0]!);
  }
  if (head !== undefined && baseExists && !isAncestor(repo, wf.base_commit, head)) {
    problems.push(`HEAD ${head} does not descend from base commit ${wf.base_commit}`);
  }
  if (head !== undefined) problems.push(...headStateProblems(wf, kind, head, baseExists));
  if (kind === 'resume') problems.push(...modifiedProblems(wf, repo));
  return problems;
}

/**
 * The common resume, told by two git processes where the checks one by one take five (the owner
 * waits on each): HEAD is the commit resume needs (so it exists), no tracked file differs from
 * it, and base_commit is its ancestor (so the base exists). When any of that is not so, false,
 * and the checks one by one say what is wrong in their own words.
 */
function resumesCleanly(wf: Workflow, repo: string): boolean {
  const needed = wf.last_checkpoint_commit ?? wf.base_commit;
  try {
    const { head, modified } = repoSnapshotOf(repo);
    if (head !== needed || Object.keys(modified).length > 0) return false;
    return head === wf.base_commit || isAncestor(repo, wf.base_commit, head);
  } catch (err) {
    if (err instanceof CommandFailure) return false;
    throw err;
  }
}

/**
 * Resume: HEAD is the last checkpoint (or base_commit before one). Retry: the checkpoint is an
 * ancestor of HEAD.
 */
function headStateProblems(
  wf: Workflow,
  kind: ContinueKind,
  head: string,
  baseExists: boolean,
): string[] {
  const checkpoint = wf.last_checkpoint_commit;
  if (checkpoint === null) {
    if (kind === 'retry' || !baseExists || head === wf.base_commit) return [];
    return [
      `HEAD moved since the run started: ${head}, base commit ` +
        `${wf.base_commit} (resume needs them equal)`,
    ];
  }
  if (!commitExists(wf.repo_root, checkpoint))
    return [`checkpoint commit ${checkpoint} does not exist`];
  if (kind === 'resume' && head !== checkpoint)
    return [
      `HEAD moved since the last checkpoint: ${head}, checkpoint ` +
        `${checkpoint} (resume needs them equal)`,
    ];
  if (kind === 'retry' && !isAncestor(wf.repo_root, checkpoint, head))
    return [`checkpoint commit ${checkpoint} is not an ancestor of HEAD ${head}`];
  return [];
}

/** Resume: no tracked file of repo_root differs from HEAD. */
function modifiedProblems(wf: Workflow, repo: string): string[] {
  const files = modifiedTrackedFiles(repo);
  if (files.length === 0) return [];
  const since = wf.last_checkpoint_commit === null ? 'the run started' : 'the last checkpoint';
  const more = files.length > MAX_FILES_NAMED ? ` and ${files.length - MAX_FILES_NAMED} more` : '';
  return [
    `tracked files modified since ${since}: ${files.slice(0, MAX_FILES_NAMED).join(', ')}${more}`,
  ];
}

/** No live lease; a stale one only with --reclaim-stale. */
function leaseProblems(lease: LeaseFacts, reclaimStale: boolean): string[] {
  const pid = lease.pid === undefined ? 'an unknown pid' : `pid ${lease.pid}`;
  if (lease.live) return [`a live lease is held by ${pid} on ${lease.host || 'an unknown host'}`];
  if (lease.stale && !reclaimStale)
    return [`a stale lease of ${pid} is in the way: add --reclaim-stale`];
  return [];
}
