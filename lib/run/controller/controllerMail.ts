// The controller's mail (docs/runtime.md §9): requests to the agents, each with a
// deterministic key (run, kind, stage, cycle, generation, lane) so a restarted controller
// never sends one twice, and the replies it claims from its own inbox.
//
// Concurrency contract: the controller is the only reader of its role's inbox (one
// controller per run, fenced by the lease); claims and completions hold the inbox lock like
// ready_for_next and done_with_current.
// Crash contract: a request is recorded in the phase file after it is queued; a kill
// between the two is found when the next controller starts, by one scan of the
// controller's outbox, sent/ and failed/ for the keys (queuedKeys). A claimed reply stays in
// in_process/ until it is completed; a restart looks there
// first, and a reply already handled (its id in the phase file) is completed, never used
// twice.
import * as fs from 'node:fs';
import { join } from 'node:path';
import { mailboxOf } from '../../project/layout.js';
import { queueSystemHandoff } from '../../handoff/systemSend.js';
import {
  claimItem,
  ensureMailbox,
  finishItem,
  type Item,
  itemNamesIn,
  readItemsIn,
  readWaitingItems,
} from '../../queue/index.js';
import { crashPoint } from '../../fsx/crash.js';
import { withLock } from '../../fsx/lock.js';
import { type ControllerPhase } from './controllerPhase.js';
import { type Workflow } from '../record/workflow.js';

/**
 * The generation of the current cycle: how many times the owner retried the run (each retry may
 * need the same request again).
 */
export function generationOf(wf: Workflow): number {
  return wf.history.filter((h) => h.action === 'retry').length;
}

/** The key of a request (and of the reply it awaits). */
export function requestKey(wf: Workflow, kind: string, stage: string, lane?: string): string {
  const cycle = `c${wf.review_cycle}/g${generationOf(wf)}`;
  return `${wf.run_id}/${kind}/${stage}/${cycle}${lane ? `/${lane}` : ''}`;
}

/** What a request says. */
export interface Request {
  key: string;
  to: string;
  type: 'run_stage' | 'run_review' | 'run_validate' | 'run_resolve' | 'run_answer' | 'run_rejected';
  headers: Record<string, string>;
  body: string;
}

/**
 * The keys of every request in the controller's outbox, sent/ and failed/: read once when a
 * controller starts, so one killed between queueing a request and recording it never queues it
 * again.
 */
export function queuedKeys(root: string, controller: string): string[] {
  const box = mailboxOf(root, controller);
  const keys: string[] = [];
  for (const dir of [box.outbox, box.sent, box.failed]) {
    for (const name of fs.existsSync(dir) ? itemNamesIn(dir) : []) {
      const key = /\nkey: (\S+)\n/.exec(fs.readFileSync(join(dir, name), 'utf8'))?.[1];
      if (key !== undefined) keys.push(key);
    }
  }
  return keys;
}

/**
 * Queues a request once: not again when the phase file (completed at start from the mailbox,
 * queuedKeys) shows it was sent. Returns true when it queued it now.
 */
export async function sendOnce(
  root: string,
  wf: Workflow,
  phase: ControllerPhase,
  request: Request,
  now: Date,
): Promise<boolean> {
  if (phase.sent.includes(request.key)) return false;
  await queueSystemHandoff(
    root,
    wf.roles.controller,
    {
      to: [request.to],
      priority: '40',
      type: request.type,
      headers: {
        run_id: wf.run_id,
        cycle: String(wf.review_cycle),
        ...request.headers,
        key: request.key,
      },
      body: request.body,
    },
    now,
  );
  crashPoint('drive:request-queued');
  phase.sent.push(request.key);
  return true;
}

/**
 * The next reply to look at: one left in process by a crash first, else the next waiting one,
 * claimed.
 */
export async function nextReply(
  root: string,
  controller: string,
  now: Date,
): Promise<Item | undefined> {
  const box = mailboxOf(root, controller);
  ensureMailbox(box);
  return withLock(box.inboxLock, async () => {
    const inProcess = await readItemsIn(box.inProcess, () => undefined, 1);
    if (inProcess[0]) return inProcess[0];
    const [waiting] = await readWaitingItems(box, () => undefined, 1);
    if (!waiting) return undefined;
    const claimed = await claimItem(box, waiting, now);
    crashPoint('drive:reply-claimed');
    return claimed;
  });
}

/** Completes a reply the controller handled. */
export async function completeReply(
  root: string,
  controller: string,
  item: Item,
  now: Date,
): Promise<void> {
  const box = mailboxOf(root, controller);
  await withLock(box.inboxLock, () => finishItem(box, item, now));
}
