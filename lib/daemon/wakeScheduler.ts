// Which roles a pass wakes (protocol §8.1): it looks at the inboxes of the roles that just
// received a copy or have a deferred wake-up due, and every few seconds at all of them
// (re-wakes need minutes, not every pass); WakePolicy decides for each. A wake-up runs
// beside the passes, is logged (`woke` or `wake-failed`), and never fails or delays a delivery.
import { type Role } from '../handoff/roles.js';
import { isBatchName, isItemName } from '../queue/names.js';
import { boxOf, type DaemonState } from './state.js';
import { type InboxView } from './wakePolicy.js';
import { wake, wakeTargetOf } from './waker.js';

/** What the daemon sees of a role's inbox: items waiting in new/, and whether anything is in process. */
export function inboxViewOf(state: DaemonState, role: string, now: number): InboxView {
  const box = boxOf(state, role);
  const inProcess = state.listings.entryNames(box.inProcess, now).filter((n) => isItemName(n) || isBatchName(n));
  return { waiting: state.listings.itemNames(box.inboxNew, now).length, busy: inProcess.length > 0 };
}

/** Decides and starts the wake-ups after a pass that delivered to `delivered`; `allViews` looks at every role. */
export function scheduleWakes(state: DaemonState, roles: Map<string, Role>, delivered: Set<string>, allViews: boolean, now: number): void {
  const due = state.policy.deferredDue(now);
  for (const role of roles.values()) {
    if (!allViews && !delivered.has(role.role) && !due.has(role.role)) continue;
    const reason = state.policy.decide(role.role, inboxViewOf(state, role.role, now), delivered.has(role.role), now);
    if (reason) startWake(state, role, reason);
  }
}

/** Types the wake-up into the role's pane in the background; the job removes itself from `state.wakes` when done. */
function startWake(state: DaemonState, role: Role, reason: string): void {
  const job = (async () => {
    try {
      const target = wakeTargetOf(state.root, role.role, role.session);
      await wake(target);
      state.log.write('woke', { role: role.role, target: target.target, reason });
    } catch (err) {
      state.log.write('wake-failed', { role: role.role, reason: (err as Error).message.split('\n')[0]! });
    }
  })();
  state.wakes.add(job);
  void job.finally(() => state.wakes.delete(job));
}
