// What the controller awaits of a run in its current phase (docs/runtime.md §9, §11.2): the
// keys of the replies, and the role each must come from. Read by the controller when it takes
// a reply and by `baton run reply` before it copies anything.
import { reviewerOfLane, type Workflow } from '../record/workflow.js';
import { requestKey } from './controllerMail.js';

/** The reply keys the run's phase awaits. */
export function awaitedKeys(wf: Workflow): string[] {
  if (wf.status !== 'ACTIVE') return [];
  if ((wf.phase === 'STAGE_ACTIVE' || wf.phase === 'PAUSE_REQUESTED') && wf.active_stage)
    return [requestKey(wf, 'work', wf.active_stage)];
  if (wf.phase === 'REVIEW_PENDING')
    return ['structured', 'independent'].map((lane) => requestKey(wf, 'review', 'review', lane));
  if (wf.phase === 'FINDINGS_PENDING')
    return [requestKey(wf, 'validation', 'review'), requestKey(wf, 'resolution', 'review')];
  return [];
}

/** The role a reply of this kind (and lane) must come from. */
export function awaitedRoleOf(wf: Workflow, kind: string, lane: string | undefined): string {
  if (kind === 'review') return reviewerOfLane(wf, lane);
  if (kind === 'validation') return wf.roles.validator;
  return wf.roles.worker;
}
