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

/** What a request key names. */
export interface RequestKeyParts {
  runId: string;
  kind: string;
  stage: string;
  cycle: number;
  lane?: string;
}

/** The parts of a request key (requestKey's inverse), or undefined when it is not one. */
export function requestKeyParts(key: string): RequestKeyParts | undefined {
  const m =
    /^(run-[^/]+)\/([a-z]+)\/([a-z][a-z0-9_-]*)\/c([1-9][0-9]*)\/g[0-9]+(?:\/([a-z]+))?$/.exec(key);
  if (!m) return undefined;
  return {
    runId: m[1]!,
    kind: m[2]!,
    stage: m[3]!,
    cycle: Number(m[4]),
    ...(m[5] === undefined ? {} : { lane: m[5] }),
  };
}

/** What a request says. */
export interface Request {
  key: string;
  to: string;
  type:
    | 'run_stage'
    | 'run_review'
    | 'run_validate'
    | 'run_resolve'
    | 'run_answer'
    | 'run_rejected'
    | 'run_rotate';
  headers: Record<string, string>;
  body: string;
  /** The request's generation (runtime.md §11.4): 1, then one more per re-send. */
  generation?: number;
}

/**
 * What tells one sending of a request from another: its key, and for a re-send its generation
 * (`<key>/generation-<n>`), so each generation is queued once.
 */
export function sendIdOf(key: string, generation = 1): string {
  return generation > 1 ? `${key}/generation-${generation}` : key;
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
      const text = fs.readFileSync(join(dir, name), 'utf8');
      const key = /\nkey: (\S+)\n/.exec(text)?.[1];
      const generation = Number(/\ngeneration: ([0-9]+)\n/.exec(text)?.[1] ?? 1);
      if (key !== undefined) keys.push(sendIdOf(key, generation));
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
  const id = sendIdOf(request.key, request.generation);
  if (phase.sent.includes(id)) return false;
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
        ...(request.generation === undefined ? {} : { generation: String(request.generation) }),
      },
      body: request.body,
    },
    now,
  );
  crashPoint('drive:request-queued');
  if ((request.generation ?? 1) > 1) crashPoint('drive:resend-queued');
  phase.sent.push(id);
  return true;
}

/**
 * The next reply to look at: one left in process first (by a crash, or taken this turn and not
 * completed yet: its name in `taken` is passed over), else the next waiting one, claimed.
 */
export async function nextReply(
  root: string,
  controller: string,
  now: Date,
  taken: ReadonlySet<string> = new Set(),
): Promise<Item | undefined> {
  const box = mailboxOf(root, controller);
  ensureMailbox(box);
  // The controller is its inbox's only reader: with nothing waiting and nothing in process but
  // what it took this turn, there is nothing to take, and seeing so needs no lock (a reply
  // arriving meanwhile wakes the loop again).
  const untaken = (name: string) => !taken.has(name);
  if (itemNamesIn(box.inboxNew).length === 0 && !itemNamesIn(box.inProcess).some(untaken))
    return undefined;
  return withLock(box.inboxLock, async () => {
    const inProcess = await readItemsIn(box.inProcess, () => undefined);
    const left = inProcess.find((i) => !taken.has(i.name));
    if (left) return left;
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
