// What every `baton run` action works with: ROOT, the caller's directory and environment,
// the clock and the user, and the result it reports (the run's status, plus the reason
// when its gate failed and blocked the run).
import { type RunPaths } from '../../project/layout.js';
import { currentOwner } from './identity.js';
import { releaseLease } from './lease.js';
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
}

/** The context of a command run in `cwd` with `env`: ROOT per docs/runtime.md §1, the current user, the clock. */
export function runContextOf(cwd: string, env: NodeJS.ProcessEnv): RunContext {
  return { root: runRootOf(cwd, env), cwd, env, user: currentOwner(), now: () => new Date() };
}

/** What an action reports: the status to print and, for a blocking outcome, why. */
export interface ActionReport {
  status: RunStatusView;
  blocked?: string;
}

/** The report of a finished mutation. */
export function reportOf(result: { workflow: Workflow; paths: RunPaths; blocked?: string; extra?: Record<string, unknown> }, now: Date): ActionReport {
  const status = { ...statusOf(result.workflow, result.paths, now), ...result.extra } as RunStatusView;
  return result.blocked === undefined ? { status } : { status, blocked: result.blocked };
}

/** Runs one locked change of the run and reports it. */
export async function changeRun(ctx: RunContext, runId: string, change: (wf: Workflow, paths: RunPaths, now: Date) => Promise<ActionOutcome> | ActionOutcome): Promise<ActionReport> {
  const now = ctx.now();
  const result = await mutateRun(ctx.root, runId, (wf, paths) => change(wf, paths, now), releaseLease);
  return reportOf(result, now);
}
