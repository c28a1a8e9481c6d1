// `baton run status` and `baton run list` (docs/runtime.md §4): read-only, no lease, no
// lock; a run's status, or every run's (oldest first, by created_at). A run folder without a record
// (a
// start killed before its write) is no run and is skipped.
import { type ActionReport, type RunContext } from './runContext.js';
import { statusOf, type RunStatusView } from './runStatus.js';
import { readWorkflow, runIdsOf } from './runStore.js';

/** One run's status, or every run's when no id is given. */
export function statusOrList(
  ctx: RunContext,
  runId: string | undefined,
): ActionReport | RunStatusView[] {
  const now = ctx.now();
  if (runId !== undefined) {
    const { workflow, paths } = readWorkflow(ctx.root, runId);
    return { status: statusOf(workflow, paths, now) };
  }
  const runs = runIdsOf(ctx.root).map((id) => readWorkflow(ctx.root, id));
  // Both keys are ASCII (an ISO UTC time, a run id): compared by code unit. localeCompare
  // would build ICU's collator first, about 6 ms of a `run list`.
  const order = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);
  runs.sort(
    (a, b) =>
      order(a.workflow.created_at, b.workflow.created_at) ||
      order(a.workflow.run_id, b.workflow.run_id),
  );
  return runs.map(({ workflow, paths }) => statusOf(workflow, paths, now));
}

/** One run's status with `extra` fields added (e.g. what a reply stored). */
export function withExtra(
  ctx: RunContext,
  runId: string,
  extra: Record<string, unknown>,
): ActionReport {
  const { workflow, paths } = readWorkflow(ctx.root, runId);
  return { status: { ...statusOf(workflow, paths, ctx.now()), ...extra } };
}
