// ready_for_next and done_with_current in task and batch mode (protocol §7).
//
// Concurrency contract: every call that may write runs entirely under the role's inbox lock,
// so calls on one inbox are serialized and two callers can never claim two items.
// done_with_current completes and claims the next item within one lock hold. A
// ready_for_next that finds in_process/ and new/ without a single entry answers NO_TASK
// without the lock (`nothingAtAll`): there is nothing to claim, resume or repair, and the
// answer is the one a locked call would have given at that moment.
//
// Crash contract: see lib/queue/claim.ts, finish.ts and quarantine.ts; on entry, a batch
// claim cut short is rolled back and a missing `dequeued_at` on resumed work is stamped.
// Refusals are decided before anything is written, so a refusal leaves every file as it
// was. `done_with_current <ID>` repeated after its work was completed (a retry after a
// crash, or a doubled call) says ALREADY_COMPLETED and then hands out the work as ready
// does: the same end as the first call, and never a completion of unseen work.
import * as fs from 'node:fs';
import { join } from 'node:path';
import {
  claimBatch,
  claimItem,
  ensureMailbox,
  findCompleted,
  finishBatch,
  finishItem,
  inProcessOf,
  type Item,
  type Mailbox,
  pathTaken,
  readItemsIn,
  readWaitingItems,
  rollBackStagedBatches,
  type SkipReporter,
  stampIfMissing,
  tsidOf,
  uniqueBatchName,
} from '../queue/index.js';
import { isoOf } from '../fsx/timestamps.js';
import { withLock } from '../fsx/lock.js';
import { printable } from '../fsx/printable.js';
import { actingContext } from './context.js';
import { fail } from '../fsx/commandFailure.js';
import { mailboxOf } from '../project/layout.js';
import { type ReceiveMode } from './roleName.js';
import { batchText, priorityOf, taskText } from './taskText.js';

/** ready_for_next's whole answer when nothing is in process and nothing waits. */
export const NO_TASK = 'NO_TASK\n';

/** What one receive call needs besides the mailbox. */
interface Call {
  box: Mailbox;
  mode: ReceiveMode;
  now: Date;
  onSkip: SkipReporter;
}

/** The work in process, read once per call. */
interface Current {
  /** Usable single items in in_process/. */
  files: Item[];
  /** Batch directory names in in_process/. */
  batches: string[];
  /** Absolute paths of everything in process, sorted (for refusal listings). */
  listing: string[];
}

async function currentOf(call: Call): Promise<Current> {
  // in_process/ listed once for the three (the roll-back lists it again only after one).
  const state = inProcessOf(call.box, rollBackStagedBatches(call.box));
  const files = await readItemsIn(call.box.inProcess, call.onSkip, Infinity, state.files);
  const listing = [...files.map((f) => f.name), ...state.batches]
    .sort()
    .map((n) => join(call.box.inProcess, n));
  return { files, batches: state.batches, listing };
}

function refuse(first: string, current: Current): never {
  fail('refused', first, ...current.listing.map((p) => `- ${printable(p)}`));
}

/** The protocol's refusals (§7) when the work in process does not fit the call: the other
 * mode's work, or more than one piece of this mode's. */
const MISFITS = {
  ready: {
    task: [
      'TASK_IN_PROCESS_IS_BATCH: a batch is in process but this role receives single tasks.',
      'AMBIGUOUS_TASK_STATE: multiple tasks are already in process.',
    ],
    batch: [
      'TASK_IN_PROCESS_IS_SINGLE: a single task is in process but this role receives batches.',
      'AMBIGUOUS_TASK_STATE: multiple batches are already in process.',
    ],
  },
  done: {
    task: [
      'CURRENT_WORK_IS_BATCH: a batch is in process but this role receives single tasks.',
      'AMBIGUOUS_TASK_STATE: multiple tasks are in process.',
    ],
    batch: [
      'CURRENT_WORK_IS_SINGLE_TASK: a single task is in process but this role receives batches.',
      'AMBIGUOUS_TASK_STATE: multiple batches are in process.',
    ],
  },
} as const;

/** Refuses a `verb` call when the work in process does not fit the role's mode (MISFITS). */
function refuseMisfit(call: Call, current: Current, verb: keyof typeof MISFITS): void {
  const [otherMode, several] = MISFITS[verb][call.mode];
  const [mine, other] =
    call.mode === 'task' ? [current.files, current.batches] : [current.batches, current.files];
  if (other.length > 0) refuse(otherMode, current);
  if (mine.length >= 2) refuse(several, current);
}

/** Refuses a completion whose name is already taken in completed/ (`what`: file or batch). */
function refuseTakenCompletion(call: Call, current: Current, name: string, what: string): void {
  const target = join(call.box.completed, name);
  if (pathTaken(target))
    refuse(`AMBIGUOUS_TASK_STATE: completed ${what} already exists: ${printable(target)}`, current);
}

/**
 * done_with_current ID when ID is not the work in process: a repeated call for work already
 * completed says `ALREADY_COMPLETED: <path>` and changes nothing (then, as after any
 * completion, ready's output follows); otherwise `nothingInProcess` when there is no work
 * in process, else the NOT_CURRENT_TASK refusal listing what is.
 */
async function notInProcess(
  call: Call,
  current: Current,
  id: string,
  nothingInProcess?: string,
): Promise<Buffer> {
  const completed = await findCompleted(call.box, id);
  if (completed !== undefined) return Buffer.from(`ALREADY_COMPLETED: ${completed}\n`);
  if (nothingInProcess !== undefined) fail('state', nothingInProcess);
  refuse(`NOT_CURRENT_TASK: ${printable(id)} is not in process.`, current);
}

async function readyTask(call: Call, current: Current): Promise<Buffer> {
  refuseMisfit(call, current, 'ready');
  const resumed = current.files[0];
  if (resumed) return taskText(await stampIfMissing(resumed, 'dequeued_at', isoOf(call.now)));
  const [next] = await readWaitingItems(call.box, call.onSkip, 1);
  if (!next) return Buffer.from(NO_TASK);
  return taskText(await claimItem(call.box, next, call.now));
}

async function batchItems(call: Call, batchName: string, current: Current): Promise<Item[]> {
  const dir = join(call.box.inProcess, batchName);
  const items = await readItemsIn(dir, call.onSkip);
  if (items.length === 0)
    refuse(`AMBIGUOUS_TASK_STATE: batch contains no tasks: ${printable(dir)}`, current);
  return items;
}

async function readyBatch(call: Call, current: Current): Promise<Buffer> {
  refuseMisfit(call, current, 'ready');
  const resumed = current.batches[0];
  if (resumed) {
    const items = await batchItems(call, resumed, current);
    const dequeuedAt = items.map((i) => i.headers.dequeued_at).find(Boolean) ?? isoOf(call.now);
    const stamped: Item[] = [];
    for (const item of items) stamped.push(await stampIfMissing(item, 'dequeued_at', dequeuedAt));
    return batchText(join(call.box.inProcess, resumed), priorityOf(stamped[0]!), stamped);
  }
  const waiting = await readWaitingItems(call.box, call.onSkip);
  if (waiting.length === 0) return Buffer.from(NO_TASK);
  const priority = priorityOf(waiting[0]!);
  const chosen = waiting.filter((item) => priorityOf(item) === priority);
  const batch = await claimBatch(
    call.box,
    chosen,
    uniqueBatchName(call.box, tsidOf(call.now)),
    call.now,
  );
  return batchText(batch.dir, priority, batch.items);
}

async function doneTask(call: Call, current: Current, id: string | undefined): Promise<Buffer> {
  refuseMisfit(call, current, 'done');
  const item = current.files[0];
  if (id !== undefined && id !== item?.id && id !== item?.name)
    return notInProcess(call, current, id, item ? undefined : 'NO_CURRENT_TASK');
  if (!item) fail('state', 'NO_CURRENT_TASK');
  refuseTakenCompletion(call, current, item.name, 'file');
  const completed = await finishItem(call.box, item, call.now);
  return Buffer.from(`COMPLETED: ${completed}\n`);
}

async function doneBatch(call: Call, current: Current, id: string | undefined): Promise<Buffer> {
  refuseMisfit(call, current, 'done');
  const batchName = current.batches[0];
  if (!batchName) {
    if (id === undefined) fail('state', 'NO_CURRENT_BATCH');
    return notInProcess(call, current, id, 'NO_CURRENT_BATCH');
  }
  const items = await batchItems(call, batchName, current);
  if (id !== undefined && id !== batchName && !items.some((i) => i.id === id || i.name === id))
    return notInProcess(call, current, id);
  refuseTakenCompletion(call, current, batchName, 'batch');
  const completed = await finishBatch(
    call.box,
    join(call.box.inProcess, batchName),
    batchName,
    items,
    call.now,
  );
  const lines = items.map((i) => `COMPLETED: ${join(completed, i.name)}\n`).join('');
  return Buffer.from(`${lines}COMPLETED_BATCH: ${completed}\n`);
}

/**
 * The call of the acting role, its mailbox made where missing and a folder of it that is a
 * symlink refused, before anything is read through it.
 */
function receiveCall(cwd: string, env: NodeJS.ProcessEnv, now: Date, onSkip: SkipReporter): Call {
  const ctx = actingContext(cwd, env);
  const mode = ctx.role.mode;
  if (mode !== 'task' && mode !== 'batch')
    fail('refused', `INVALID_RECEIVE_MODE: ${mode} for role ${ctx.role.role}`);
  const box = mailboxOf(ctx.root, ctx.role.role);
  ensureMailbox(box);
  return { box, mode, now, onSkip };
}

async function locked<T>(call: Call, fn: () => Promise<T>): Promise<T> {
  return withLock(call.box.inboxLock, fn);
}

async function ready(call: Call): Promise<Buffer> {
  const current = await currentOf(call);
  return call.mode === 'task' ? readyTask(call, current) : readyBatch(call, current);
}

/**
 * True when `dir` exists and holds no entry. A folder whose own size is past one block (4 KiB on
 * ext4, where a folder that held many entries keeps its size) is not listed: this check must not
 * cost a full listing of a long inbox that the locked claim lists again.
 */
function emptyFolder(dir: string): boolean {
  try {
    return fs.statSync(dir).size <= 4096 && fs.readdirSync(dir).length === 0;
  } catch {
    return false;
  }
}

/**
 * True when nothing is in process and nothing waits, seen without the lock: in_process/, then
 * new/, then in_process/ again, each without an entry (the lock was about 1 ms of a call an
 * idle agent makes again and again: issue 22). Items only move new/ → in_process/ → completed/;
 * a claim racing these reads shows in the second read of in_process/, so NO_TASK is never said
 * of an item a concurrent call had just claimed. A batch being staged or an unusable entry to
 * quarantine is an entry here, and takes the locked path. receiveCall has refused a mailbox
 * folder that is a symlink (ensureMailbox), so nothing is read through one.
 */
function nothingAtAll(box: Mailbox): boolean {
  return emptyFolder(box.inProcess) && emptyFolder(box.inboxNew) && emptyFolder(box.inProcess);
}

/** ready_for_next: the stdout bytes for the acting role. */
export async function readyForNext(
  cwd: string,
  env: NodeJS.ProcessEnv,
  onSkip: SkipReporter,
  now = new Date(),
): Promise<Buffer> {
  const call = receiveCall(cwd, env, now, onSkip);
  if (nothingAtAll(call.box)) return Buffer.from(NO_TASK);
  return locked(call, () => ready(call));
}

async function done(call: Call, id: string | undefined): Promise<Buffer> {
  const current = await currentOf(call);
  return call.mode === 'task' ? doneTask(call, current, id) : doneBatch(call, current, id);
}

/** What a done_with_current call names: the work (ID, or undefined for the one in process). */
type DoneCall = [cwd: string, env: NodeJS.ProcessEnv, id: string | undefined];

/**
 * done_with_current [ID]: completes the work in process, then claims the next; the stdout bytes.
 */
export async function doneWithCurrent(
  ...[cwd, env, id, onSkip, now]: [...DoneCall, SkipReporter, Date?]
) {
  const call = receiveCall(cwd, env, now ?? new Date(), onSkip);
  return locked(call, async () => Buffer.concat([await done(call, id), await ready(call)]));
}

/**
 * done_with_current [ID] without claiming the next item (an agent that stops after this one, e.g.
 * `baton review teacher --once`); the COMPLETED lines.
 */
export async function completeCurrent(
  ...[cwd, env, id, onSkip, now]: [...DoneCall, SkipReporter, Date?]
) {
  const call = receiveCall(cwd, env, now ?? new Date(), onSkip);
  return locked(call, () => done(call, id));
}
