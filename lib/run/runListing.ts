// `baton run status` and `baton run list` (docs/runtime.md §4): read-only, no lease, no
// lock; a run's status, or every run's (oldest first). A run folder without a record (a
// start killed before its write) is no run and is skipped.
import { type ActionReport, type RunContext } from './runContext.js';
import { statusOf, type RunStatusView } from './runStatus.js';
import { readWorkflow, runIdsOf } from './runStore.js';

/** One run's status, or every run's when no id is given. */
export function statusOrList(ctx: RunContext, runId: string | undefined): ActionReport | RunStatusView[] {
  const now = ctx.now();
  if (runId !== undefined) {
    const { workflow, paths } = readWorkflow(ctx.root, runId);
    return { status: statusOf(workflow, paths, now) };
  }
  return runIdsOf(ctx.root).map((id) => {
    const { workflow, paths } = readWorkflow(ctx.root, id);
    return statusOf(workflow, paths, now);
  });
}
