// What every `baton run` action works with: ROOT, the caller's directory and environment,
// the clock and the user, and the result it reports (the run's status, plus the reason
// when its gate failed and blocked the run).
import { type RunPaths } from '../../project/layout.js';
import { currentOwner } from './identity.js';
import { releaseLease, requireLeaseToken } from './lease.js';
import { runRootOf } from './runRoot.js';
import { mutateRun, type ActionOutcome } from './runMutation.js';
import { statusOf, type RunStatusView } from './runStatus.js';
import { type Workflow } from './workflow.js';

/** The caller of an action. */
export interface RunContext {
  root: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  user: string;
  now: () => Date;
  /** How an owner action reached Baton (runtime.md §11.7): the command line unless said. */
  channel?: 'cli' | 'web';
  /**
   * The record the owner decided on (web.md §3: the page's `updated_at` and the digests it
   * showed): an owner action is refused, inside its lock, when the run differs from it.
   */
  seen?: { updatedAt: string; digests: string[] };
}

/**
 * The context of a command run in `cwd` with `env`: ROOT per docs/runtime.md §1, the current user,
 * the clock. The user is looked up when first read: only the owner's actions and a start need
 * it, and the lookup (node:os and the password database) cost every status, heartbeat, provider
 * report and reply about 0.3 ms.
 */
export function runContextOf(cwd: string, env: NodeJS.ProcessEnv): RunContext {
  let user: string | undefined;
  return {
    root: runRootOf(cwd, env),
    cwd,
    env,
    get user() {
      user ??= currentOwner();
      return user;
    },
    now: () => new Date(),
  };
}

/** What an action reports: the status to print and, for a blocking outcome, why. */
export interface ActionReport {
  /**
   * The printed status (every artifact's digest recomputed: for a person or a script, never on the
   * controller's path).
   */
  readonly status: RunStatusView;
  blocked?: string;
  /** The record as the action left it (a mutation's report). */
  workflow?: Workflow;
  /** The fields the action adds to the status (`lease` with its token, `retry_in_ms`). */
  extra?: Record<string, unknown>;
}

/**
 * The report of a finished mutation. Its status is computed when first read: the CLI prints
 * it, while the controller, which calls these actions in process (a heartbeat every 20 s),
 * reads the record and the extra fields and never pays for hashing every artifact.
 */
export function reportOf(
  result: {
    workflow: Workflow;
    paths: RunPaths;
    blocked?: string;
    extra?: Record<string, unknown>;
  },
  now: Date,
): ActionReport {
  let status: RunStatusView | undefined;
  const report: ActionReport = {
    get status() {
      status ??= {
        ...statusOf(result.workflow, result.paths, now),
        ...result.extra,
      } as RunStatusView;
      return status;
    },
    workflow: result.workflow,
    ...(result.extra ? { extra: result.extra } : {}),
  };
  return result.blocked === undefined ? report : Object.assign(report, { blocked: result.blocked });
}

/** Runs one locked change of the run and reports it. */
export async function changeRun(
  ctx: RunContext,
  runId: string,
  change: (wf: Workflow, paths: RunPaths, now: Date) => Promise<ActionOutcome> | ActionOutcome,
): Promise<ActionReport> {
  const now = ctx.now();
  const result = await mutateRun(
    ctx.root,
    runId,
    (wf, paths) => change(wf, paths, now),
    releaseLease,
  );
  return reportOf(result, now);
}

/** changeRun for a controller action: the lease token is checked first, under the run's lock. */
export function changeRunUnderLease(
  ctx: RunContext,
  runId: string,
  token: string,
  change: (wf: Workflow, paths: RunPaths, now: Date) => Promise<ActionOutcome> | ActionOutcome,
): Promise<ActionReport> {
  return changeRun(ctx, runId, (wf, paths, now) => {
    requireLeaseToken(paths, token, now);
    return change(wf, paths, now);
  });
}
