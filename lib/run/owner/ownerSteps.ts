// The owner's `baton run` actions with their I/O (docs/runtime.md §4, §7): start resolves
// the repository, base and spec; resume and retry gather the facts of §7; request-changes
// keeps the notes as an artifact. The decisions are in lib/run/owner/ownerActions.ts.
import * as fs from 'node:fs';
import { resolve } from 'node:path';
import { fail } from '../../fsx/commandFailure.js';
import { batonVersion } from '../../proc/version.js';
import {
  artifactNameOf,
  artifactPathTaken,
  checkArtifacts,
  writeEvidence,
} from '../gates/artifacts.js';
import { splitAcceptanceCommand } from '../gates/commandWords.js';
import { hostName, machineId } from '../record/identity.js';
import { leaseView, readLease } from '../record/lease.js';
import {
  approveRun,
  endRun,
  pauseRun,
  requestChanges,
  requireOwner,
  resumeRun,
  retryRun,
} from './ownerActions.js';
import { resolveCommit, resolveWorkTree } from '../gates/repoState.js';
import { changeRun, type ActionReport, type RunContext } from '../record/runContext.js';
import { requireNotTerminal, requireState, type ActionOutcome } from '../record/runMutation.js';
import { startRun, type RunShape, type StartRequest } from './runStart.js';
import { statusOf } from '../record/runStatus.js';
import { readWorkflow } from '../record/runStore.js';
import { resumeProblems } from './verifyResume.js';
import { type Workflow } from '../record/workflow.js';
import { type RunPaths } from '../../project/layout.js';

/** The options of start as given on the command line. */
export interface StartOptions extends RunShape {
  request: string;
  task: string;
  spec: string;
  acceptance: string;
  repo?: string;
  base?: string;
}

/** start: checks and resolves what it was given, then makes the run. */
export async function startStep(ctx: RunContext, o: StartOptions): Promise<ActionReport> {
  const specPath = resolve(ctx.cwd, o.spec);
  if (!fs.existsSync(specPath)) fail('usage', `start: no such spec file '${o.spec}'`);
  splitAcceptanceCommand(o.acceptance);
  const repoRoot = resolveWorkTree(ctx.root, resolve(ctx.cwd, o.repo ?? '.'));
  const baseRef = o.base ?? 'HEAD';
  const request: StartRequest = {
    requestId: o.request,
    task: o.task,
    specRef: specPath,
    acceptanceCommand: o.acceptance,
    repoRoot,
    baseRef,
    baseCommit: resolveCommit(repoRoot, baseRef),
    stages: o.stages,
    maxCycles: o.maxCycles,
    acceptanceTimeoutS: o.acceptanceTimeoutS,
    retryAttempts: o.retryAttempts,
    retryBaseMs: o.retryBaseMs,
    roles: o.roles,
    owner: ctx.user,
    channel: ctx.channel ?? 'cli',
    host: hostName(),
    machineId: machineId(),
  };
  const now = ctx.now();
  const wf = await startRun(ctx.root, request, now);
  const { paths } = readWorkflow(ctx.root, wf.run_id);
  return { status: statusOf(wf, paths, now) };
}

/** `detail` with the owner's channel (runtime.md §11.7) added: `…; channel=cli`. */
export function withChannel(detail: string, ctx: RunContext): string {
  const channel = `channel=${ctx.channel ?? 'cli'}`;
  return detail === '' ? channel : `${detail}; ${channel}`;
}

/** changeRun for an owner action: each history entry it adds records the owner's channel. */
function changeRunAsOwner(
  ctx: RunContext,
  runId: string,
  change: (wf: Workflow, paths: RunPaths, now: Date) => ActionOutcome,
): Promise<ActionReport> {
  return changeRun(ctx, runId, (wf, paths, now) => {
    const seen = ctx.seen;
    if (
      seen !== undefined &&
      (seen.updatedAt !== wf.updated_at ||
        seen.digests.join(',') !== wf.artifacts.map((a) => a.sha256).join(','))
    )
      fail('refused', 'the run changed since this page was loaded');
    const outcome = change(wf, paths, now);
    const after = outcome.workflow;
    if (after === undefined) return outcome;
    const history = after.history.map((h, i) =>
      i < wf.history.length ? h : { ...h, detail: withChannel(h.detail, ctx) },
    );
    return { ...outcome, workflow: { ...after, history } };
  });
}

/** The digests that no longer match, as `path (problem)`. */
export function badArtifactsOf(wf: Workflow, paths: RunPaths): string[] {
  return checkArtifacts(paths, wf.artifacts).bad.map((b) => `${b.path} (${b.problem})`);
}

/** The facts §7 checks, gathered for this caller. */
function verificationOf(
  ctx: RunContext,
  wf: Workflow,
  paths: RunPaths,
  kind: 'resume' | 'retry',
  reclaimStale: boolean,
  now: Date,
): string[] {
  const lease = readLease(paths);
  const view = lease === undefined ? { held: false as const } : leaseView(lease, now, wf.history);
  const live = view.held && !view.stale;
  return resumeProblems(wf, kind, {
    root: ctx.root,
    owner: ctx.user,
    machineId: machineId(),
    release: batonVersion(),
    artifactsBad: badArtifactsOf(wf, paths),
    lease: {
      live,
      stale: view.held && view.stale,
      pid: view.held ? view.pid : undefined,
      host: view.held ? view.host : undefined,
    },
    reclaimStale,
  });
}

/** pause. */
export function pauseStep(ctx: RunContext, runId: string): Promise<ActionReport> {
  return changeRunAsOwner(ctx, runId, (wf, _paths, now) => pauseRun(wf, ctx.user, now));
}

/** resume (from PAUSED) or retry (from BLOCKED), `reopen` given every failed check of §7. */
function reopenStep(
  ctx: RunContext,
  runId: string,
  [kind, reclaimStale]: ['resume' | 'retry', boolean],
  reopen: (wf: Workflow, problems: string[], now: Date) => ActionOutcome,
): Promise<ActionReport> {
  return changeRunAsOwner(ctx, runId, (wf, paths, now) => {
    requireState(wf, kind, [kind === 'resume' ? 'PAUSED' : 'BLOCKED']);
    return reopen(wf, verificationOf(ctx, wf, paths, kind, reclaimStale, now), now);
  });
}

/** resume, after every check of §7. */
export function resumeStep(
  ctx: RunContext,
  runId: string,
  reclaimStale: boolean,
): Promise<ActionReport> {
  return reopenStep(ctx, runId, ['resume', reclaimStale], (wf, problems, now) =>
    resumeRun(wf, ctx.user, problems, now),
  );
}

/** retry, after every check of §7. */
export function retryStep(
  ctx: RunContext,
  runId: string,
  addCycles: number,
  reclaimStale: boolean,
): Promise<ActionReport> {
  return reopenStep(ctx, runId, ['retry', reclaimStale], (wf, problems, now) =>
    retryRun(wf, ctx.user, addCycles, problems, now),
  );
}

/** approve (a bad digest blocks). */
export function approveStep(ctx: RunContext, runId: string): Promise<ActionReport> {
  return changeRunAsOwner(ctx, runId, (wf, paths, now) => {
    requireOwner(wf, 'approve', ctx.user);
    requireState(wf, 'approve', ['WAITING_FOR_HUMAN_APPROVAL']);
    return approveRun(wf, ctx.user, badArtifactsOf(wf, paths), now);
  });
}

/** request-changes: the notes become an artifact, then the first stage reopens. */
export function requestChangesStep(
  ctx: RunContext,
  runId: string,
  notes: string[],
): Promise<ActionReport> {
  return changeRunAsOwner(ctx, runId, (wf, paths, now) => {
    requireOwner(wf, 'request-changes', ctx.user);
    requireState(wf, 'request-changes', ['WAITING_FOR_HUMAN_APPROVAL']);
    const taken = artifactPathTaken(paths, wf.artifacts);
    const name = artifactNameOf('run', wf.review_cycle, 'change-request', 'json', taken);
    const written = writeEvidence(paths, name, 'change-request', { notes }, now);
    return requestChanges(wf, ctx.user, written, now);
  });
}

/** cancel or fail. */
export function endStep(
  ctx: RunContext,
  runId: string,
  how: 'cancel' | 'fail',
  reason: string,
): Promise<ActionReport> {
  return changeRunAsOwner(ctx, runId, (wf, _paths, now) => {
    requireNotTerminal(wf, how);
    return endRun(wf, ctx.user, how, reason, now);
  });
}
