// The controller's `baton run` actions with their I/O (docs/runtime.md §4, §5, §8): each
// needs the live lease's token (fencing), checked under the run's lock; files named on
// the command line are read and checked before anything is written. The decisions are in
// lib/run/gates/stageActions.ts and lib/run/gates/reviewActions.ts.
import { resolve } from 'node:path';
import * as fs from 'node:fs';
import { fail } from '../../fsx/commandFailure.js';
import { type RunPaths } from '../../project/layout.js';
import {
  artifactNameOf,
  artifactPathTaken,
  evidenceStageOf,
  importArtifactFile,
  writeEvidence,
  type ImportOptions,
} from './artifacts.js';
import { headOf } from './repoState.js';
import { acquireLease, heartbeatLease, releaseLease } from '../record/lease.js';
import {
  changeRun,
  changeRunUnderLease,
  type ActionReport,
  type RunContext,
} from '../record/runContext.js';
import { logged, requireNotTerminal, requireState, stateOf } from '../record/runMutation.js';
import type { ActionOutcome } from '../record/runMutation.js';
import { badArtifactsOf } from '../owner/ownerSteps.js';
import {
  blockOnRequest,
  checkpointStage,
  providerFailed,
  providerSucceeded,
  requireCheckpointable,
  startStage,
} from './stageActions.js';
import { agentRolesOf, type Artifact, type Workflow } from '../record/workflow.js';
import { type AgentState } from '../../project/agentObservation.js';
import { isoOf } from '../../fsx/timestamps.js';

/** The controller's actor name in history. */
const actorOf = (wf: Workflow) => wf.roles.controller;

/** Whether `relPath` is registered or already on disk in the run. */
export function takenIn(wf: Workflow, paths: RunPaths): (relPath: string) => boolean {
  return artifactPathTaken(paths, wf.artifacts);
}

/** lease acquire: a new lease for a live controller (a stale one taken only with reclaimStale). */
export function leaseAcquireStep(
  ctx: RunContext,
  runId: string,
  o: { pid: number; ttlS?: number; reclaimStale: boolean },
): Promise<ActionReport> {
  return changeRun(ctx, runId, (wf, paths, now) => {
    requireNotTerminal(wf, 'lease acquire');
    if (wf.status === 'PAUSED')
      fail('refused', `lease acquire: run ${wf.run_id} is PAUSED; the owner resumes it first`);
    const { lease, reclaimed } = acquireLease(
      paths,
      { pid: o.pid, ttlS: o.ttlS, reclaimStale: o.reclaimStale },
      now,
      wf.history,
    );
    const next = logged(wf, now, {
      actor: `pid ${o.pid}`,
      action: reclaimed ? 'lease reclaim' : 'lease acquire',
      from: stateOf(wf),
      detail: `pid ${o.pid} until ${lease.expires_at}`,
    });
    return {
      workflow: next,
      extra: {
        lease: {
          held: true,
          token: lease.token,
          pid: lease.pid,
          host: lease.host,
          expires_at: lease.expires_at,
          stale: false,
        },
      },
    };
  });
}

/** lease heartbeat (no history) or release. */
export function leaseTokenStep(
  ctx: RunContext,
  runId: string,
  how: 'heartbeat' | 'release',
  token: string,
): Promise<ActionReport> {
  return changeRunUnderLease(ctx, runId, token, (wf, paths, now) => {
    if (how === 'heartbeat') {
      heartbeatLease(paths, token, now);
      return {};
    }
    releaseLease(paths);
    return {
      workflow: logged(wf, now, { actor: actorOf(wf), action: 'lease release', from: stateOf(wf) }),
    };
  });
}

/** stage-start. */
export function stageStartStep(ctx: RunContext, runId: string, token: string, stage: string) {
  return changeRunUnderLease(ctx, runId, token, (wf, _paths, now) =>
    startStage(wf, stage, actorOf(wf), now),
  );
}

/**
 * One file an action registers: its source, and its name in artifacts/ or the stage and cycle the
 * names rule takes.
 */
export type Named = { source: string } & ImportOptions;

/**
 * Registers every named file, or none: a file this call copied into artifacts/ is removed
 * again when a later one is refused (a duplicate, an overwrite), so a refused action leaves
 * nothing behind. Files registered in place were there before and stay.
 */
export function importAll(
  paths: RunPaths,
  cwd: string,
  existing: Artifact[],
  named: Named[],
): Artifact[] {
  const added: Artifact[] = [];
  const copied: string[] = [];
  try {
    for (const n of named) {
      const entry = importArtifactFile(paths, n.source, cwd, [...existing, ...added], n);
      const target = resolve(paths.dir, entry.path);
      if (resolve(cwd, n.source) !== target && fs.realpathSync(resolve(cwd, n.source)) !== target)
        copied.push(target);
      added.push(entry);
    }
  } catch (err) {
    for (const file of copied) fs.rmSync(file, { force: true });
    throw err;
  }
  return added;
}

/** `PATH:TYPE` of checkpoint's --artifact. */
export function parseArtifactArg(arg: string): { path: string; type: string } {
  const at = arg.lastIndexOf(':');
  if (at <= 0 || at === arg.length - 1)
    fail('usage', `checkpoint: --artifact takes PATH:TYPE, not '${arg}'`);
  return { path: arg.slice(0, at), type: arg.slice(at + 1) };
}

/**
 * checkpoint: the named files registered, the stage done at the repository's HEAD. Their
 * producer is `producer` (the controller names the worker whose reply they are, runtime.md
 * §11.2), else whoever holds the lease.
 */
export function checkpointStep(
  ctx: RunContext,
  runId: string,
  token: string,
  stage: string,
  artifactArgs: string[],
  producer?: string,
): Promise<ActionReport> {
  const named = artifactArgs.map(parseArtifactArg);
  for (const a of named)
    if (!fs.existsSync(resolve(ctx.cwd, a.path)))
      fail('usage', `checkpoint: no such file '${a.path}'`);
  return changeRunUnderLease(ctx, runId, token, (wf, paths, now) => {
    requireCheckpointable(wf, stage, named.length);
    const bad = badArtifactsOf(wf, paths);
    const added =
      bad.length === 0
        ? importAll(
            paths,
            ctx.cwd,
            wf.artifacts,
            named.map((a) => ({
              source: a.path,
              type: a.type,
              producer: producer ?? actorOf(wf),
              stage,
              cycle: wf.review_cycle,
            })),
          )
        : [];
    return checkpointStage(
      wf,
      stage,
      headOf(wf.repo_root),
      added,
      bad,
      actorOf(wf),
      now,
      named.length,
    );
  });
}

/** artifact: one file registered. */
export function artifactStep(
  ctx: RunContext,
  runId: string,
  token: string,
  o: { path: string; type: string; producer: string },
): Promise<ActionReport> {
  if (!fs.existsSync(resolve(ctx.cwd, o.path))) fail('usage', `artifact: no such file '${o.path}'`);
  return changeRunUnderLease(ctx, runId, token, (wf, paths, now) => {
    requireNotTerminal(wf, 'artifact');
    const entry = importArtifactFile(paths, o.path, ctx.cwd, wf.artifacts, {
      type: o.type,
      producer: o.producer,
      stage: evidenceStageOf(wf),
      cycle: wf.review_cycle,
    });
    return {
      workflow: logged({ ...wf, artifacts: [...wf.artifacts, entry] }, now, {
        actor: o.producer,
        action: 'artifact',
        from: stateOf(wf),
        detail: `${entry.path} (${entry.type})`,
      }),
    };
  });
}

/** provider --failed / --succeeded. */
export function providerStep(
  ctx: RunContext,
  runId: string,
  token: string,
  o: { name: string; failed?: string },
): Promise<ActionReport> {
  return changeRunUnderLease(ctx, runId, token, (wf, paths, now) => {
    if (o.failed === undefined) return providerSucceeded(wf, o.name, actorOf(wf), now);
    requireState(wf, 'provider', ['ACTIVE']);
    const evidence = () => {
      const name = artifactNameOf(
        evidenceStageOf(wf),
        wf.review_cycle,
        'provider-failure',
        'json',
        takenIn(wf, paths),
      );
      const written = writeEvidence(
        paths,
        name,
        'provider-failure',
        { provider: o.name, reason: o.failed, attempts: wf.provider_attempts + 1 },
        now,
      );
      return { ...written, type: 'provider-failure', producer: actorOf(wf) };
    };
    return providerFailed(wf, o.name, o.failed, actorOf(wf), now, evidence);
  });
}

/** block: asked for, exit 0. */
export function blockStep(ctx: RunContext, runId: string, token: string, reason: string) {
  return changeRunUnderLease(ctx, runId, token, (wf, _paths, now) =>
    blockOnRequest(wf, reason, actorOf(wf), now),
  );
}

/**
 * observe: a role's observed agent state (runtime.md §11.6) kept in the run's
 * `observations.panes`, with the time it was first seen so. The same state again changes
 * nothing (no write), so the controller may say it on every poll.
 */
export function observeRole(
  wf: Workflow,
  o: { role: string; state: AgentState; pane: string },
  now: Date,
): ActionOutcome {
  requireNotTerminal(wf, 'observe');
  const known = agentRolesOf(wf);
  if (!known.includes(o.role))
    fail('refused', `observe: ${o.role} is not a role of run ${wf.run_id} (${known.join(', ')})`);
  const before = wf.observations.panes[o.role];
  if (before?.status === o.state && before.pane === o.pane) return {};
  const seen = { pane: o.pane, status: o.state, seen_at: isoOf(now) };
  return {
    workflow: {
      ...wf,
      observations: {
        panes: { ...wf.observations.panes, [o.role]: seen },
        updated_at: isoOf(now),
      },
    },
  };
}

/** observe --role R --state S [--pane P], under the lease. */
export function observeStep(
  ctx: RunContext,
  runId: string,
  token: string,
  o: { role: string; state: AgentState; pane: string },
): Promise<ActionReport> {
  return changeRunUnderLease(ctx, runId, token, (wf, _paths, now) => observeRole(wf, o, now));
}
