// `baton run drive <run-id>` (docs/runtime.md §9): the controller, a long-running process
// outside every agent session. It holds the run's lease (heartbeat every TTL/3; a crashed
// predecessor's lease is taken over only with --reclaim-stale), then loops: an ACTIVE run
// takes its next step (lib/run/controller/driveStep.ts); a PAUSED or BLOCKED run is waited on
// (the runtime released the lease; it is taken again when the owner resumes or retries);
// at the approval gate it stays attached until the owner decides; a terminal run ends it.
// Between steps it waits for mail or a change of the record (a watch, and a poll).
import * as fs from 'node:fs';
import { dirname, join } from 'node:path';
import { CommandFailure } from '../../fsx/commandFailure.js';
import { mailboxOf, type RunPaths } from '../../project/layout.js';
import { LockBusy } from '../../fsx/lock.js';
import { crashPoint } from '../../fsx/crash.js';
import { itemNamesIn, type Item } from '../../queue/index.js';
import { logLine, readPhase, writePhase } from './controllerPhase.js';
import { queuedKeys } from './controllerMail.js';
import { STUDENT_PERSONA_OF, type PromptPersona } from './controllerPrompts.js';
import { personaOf } from '../../admin/personas.js';
import { completeTaken, stepActiveRun, takeReplies, type Driver } from './driveStep.js';
import { enforceDeadlines, pruneAwaiting, type DeadlineKind } from './replyDeadlines.js';
import { recordObservations } from './agentStates.js';
import { leaseAcquireStep, leaseTokenStep } from '../gates/controllerActions.js';
import { DEFAULT_LEASE_TTL_S } from '../record/lease.js';
import { type RunContext } from '../record/runContext.js';
import { readWorkflow } from '../record/runStore.js';
import { isTerminal, type Workflow } from '../record/workflow.js';
import { refillSpareFiles, startSpareFiles } from '../../fsx/spareFiles.js';
import { mkdirSynced } from '../../fsx/durable.js';

/** How drive runs. */
export interface DriveOptions {
  reclaimStale: boolean;
  pollMs: number;
  /** Unusable replies to one request before the run blocks (default 3). */
  replyAttempts?: number;
  /** The deadline of each kind of reply (runtime.md §11.4). */
  replyTimeouts?: Record<DeadlineKind, number>;
  say: (line: string) => void;
  warn: (line: string) => void;
  /** Stop (SIGTERM/SIGINT): the loop ends after its current step. */
  signal?: AbortSignal;
  /** Rotates reviewers' sessions between review cycles (runtime.md §12.3); none: no rotation. */
  rotateSession?: (role: string) => Promise<string>;
  /** Restarts a dead agent once at its deadline (--restart-dead); none: it is only reported. */
  restartAgent?: (role: string) => Promise<string>;
}

/**
 * Resolves after a change in one of `dirs`, after `ms`, or on abort, whichever comes first; at once
 * when `ready` already holds once the watches are set (nothing that arrived before them is missed).
 */
function changeIn(
  dirs: string[],
  ms: number,
  ready: () => boolean,
  signal?: AbortSignal,
): Promise<void> {
  return new Promise((done) => {
    const watchers: fs.FSWatcher[] = [];
    const finish = () => {
      clearTimeout(timer);
      for (const w of watchers) w.close();
      signal?.removeEventListener('abort', finish);
      done();
    };
    const timer = setTimeout(finish, ms);
    signal?.addEventListener('abort', finish);
    for (const dir of dirs) {
      try {
        watchers.push(fs.watch(dir, finish));
      } catch {
        // not there yet: the poll covers it
      }
    }
    if (ready() || signal?.aborted) finish();
  });
}

/** Takes the lease for this process; returns its token. */
async function takeLease(
  ctx: RunContext,
  runId: string,
  reclaimStale: boolean,
  say: (l: string) => void,
): Promise<string> {
  const r = await leaseAcquireStep(ctx, runId, { pid: process.pid, reclaimStale });
  const lease = r.extra!.lease as { token: string; expires_at: string };
  say(
    `LEASE: held until ` +
      `${lease.expires_at}${reclaimStale ? ' (a stale lease reclaimed if there was one)' : ''}`,
  );
  return lease.token;
}

/** A line for a state the controller waits in, once per state. */
function waitingLine(wf: Workflow): string {
  if (wf.status === 'WAITING_FOR_HUMAN_APPROVAL')
    return (
      `APPROVAL: run ${wf.run_id} waits for its owner: baton run ` +
      `approve ${wf.run_id}, or baton run request-changes ` +
      `${wf.run_id} --note TEXT`
    );
  return (
    `WAITING: run ${wf.run_id} is ` + `${wf.status}${wf.block_reason ? `: ${wf.block_reason}` : ''}`
  );
}

/**
 * The run roles' personas, resolved once as the controller starts (review.md §7 order: the
 * project's, this machine's, Baton's shipped file, a default); a persona file passed over (a
 * symlink) is said once.
 */
async function studentPersonasOf(
  root: string,
  warn: (line: string) => void,
): Promise<Map<string, PromptPersona>> {
  const personas = new Map<string, PromptPersona>();
  for (const name of new Set(Object.values(STUDENT_PERSONA_OF))) {
    const p = await personaOf(root, name);
    for (const line of p.ignored) warn(line);
    personas.set(name, { name, path: p.path, text: p.text });
  }
  return personas;
}

/** The driver of a run: its phase file, completed with the requests its mailbox shows sent. */
async function driverOf(ctx: RunContext, runId: string, o: DriveOptions): Promise<Driver> {
  const { paths, workflow } = readWorkflow(ctx.root, runId);
  const d: Driver = {
    ctx,
    runId,
    token: '',
    paths,
    phase: readPhase(paths),
    say: o.say,
    replyAttempts: o.replyAttempts,
    replyTimeouts: o.replyTimeouts,
    personas: await studentPersonasOf(ctx.root, o.warn),
    rotateSession: o.rotateSession,
    restartAgent: o.restartAgent,
  };
  d.phase.sent = [
    ...new Set([...d.phase.sent, ...queuedKeys(ctx.root, workflow.roles.controller)]),
  ];
  return d;
}

/** Renews the driver's lease every TTL/3 while it holds one. */
function heartbeatOf(d: Driver, o: DriveOptions): NodeJS.Timeout {
  return setInterval(
    () => {
      if (d.token)
        leaseTokenStep(d.ctx, d.runId, 'heartbeat', d.token).catch((err: Error) =>
          o.warn(`heartbeat failed: ${err.message}`),
        );
    },
    (DEFAULT_LEASE_TTL_S * 1000) / 3,
  );
}

/**
 * The controller's spare files (lib/fsx/spareFiles.ts), in `controller/spares/` of the run: its
 * records, stamps and requests are written into files made while it waits, enough for a turn
 * (a reply's claim, the evidence, the record, the phase, two requests with their counters).
 */
const SPARES_PER_TURN = 16;

/** Starts the controller's spares; returns their stop. */
function startControllerSpares(paths: RunPaths): () => void {
  // The controller's folder keeps its phase: made durably before the spares go in it.
  mkdirSynced(dirname(paths.phase));
  return startSpareFiles(join(dirname(paths.phase), 'spares'), SPARES_PER_TURN);
}

/**
 * Waits for mail in the controller's inbox or a change of the record (`current` as read), with
 * its spares made first.
 */
async function waitForChange(
  d: Driver,
  current: { workflow: Workflow; bytes: Buffer },
  o: DriveOptions,
): Promise<void> {
  const inbox = mailboxOf(d.ctx.root, current.workflow.roles.controller).inboxNew;
  refillSpareFiles();
  await changeIn(
    [inbox, d.paths.dir],
    o.pollMs,
    () =>
      itemNamesIn(inbox).length > 0 ||
      !readWorkflow(d.ctx.root, d.runId).bytes.equals(current.bytes),
    o.signal,
  );
}

/** Drives the run until it is terminal (or the signal aborts); returns its final status. */
export async function driveRun(ctx: RunContext, runId: string, o: DriveOptions): Promise<string> {
  const d = await driverOf(ctx, runId, o);
  const paths = d.paths;
  const stopSpares = startControllerSpares(paths);
  const first = readWorkflow(ctx.root, runId).workflow;
  const heartbeat = heartbeatOf(d, o);
  let shown = '';
  // Replies taken and not completed yet: completed once the loop is about to wait (or ends),
  // after every step their answers allow, so the next request is on its way sooner. The phase
  // written at the end of each turn records them as handled; a restart completes them unused.
  let taken: Item[] = [];
  try {
    if (!isTerminal(first.status) && first.status !== 'PAUSED')
      d.token = await takeLease(ctx, runId, o.reclaimStale, o.say);
    for (;;) {
      const read = readWorkflow(ctx.root, runId);
      const wf = read.workflow;
      if (isTerminal(wf.status) || o.signal?.aborted) {
        await completeTaken(d, wf, taken);
        return wf.status;
      }
      const leased = d.token;
      if (wf.status === 'PAUSED' || wf.status === 'BLOCKED') d.token = '';
      else if (!d.token) d.token = await takeLease(ctx, runId, false, o.say);
      const fresh =
        wf.status === 'ACTIVE' || wf.status === 'WAITING_FOR_HUMAN_APPROVAL'
          ? await takeReplies(d, wf, taken)
          : [];
      taken = [...taken, ...fresh];
      // A reply handled or a lease taken changes the record; with neither, it is the one read.
      const unchanged = fresh.length === 0 && d.token === leased;
      const current = unchanged ? read : readWorkflow(ctx.root, runId);
      const now = current.workflow;
      let moved: 'moved' | 'waiting' = 'waiting';
      pruneAwaiting(d, now);
      if (now.status === 'ACTIVE' && d.phase.question === null)
        moved = await stepTolerantly(d, now, o, () => deadlineStep(d, now, o.pollMs));
      else if (now.status !== 'ACTIVE') {
        const line = waitingLine(now);
        if (line !== shown) report(o, line);
        shown = line;
        if (now.status === 'WAITING_FOR_HUMAN_APPROVAL') crashPoint('drive:approval-wait');
      }
      writePhase(paths, d.phase);
      if (moved === 'moved') continue;
      await completeTaken(d, now, taken);
      taken = [];
      await waitForChange(d, current, o);
    }
  } finally {
    clearInterval(heartbeat);
    stopSpares();
  }
}

/**
 * Observes the agents (at most once per poll), then enforces the awaited replies' deadlines:
 * 'moved' when it blocked the run or re-sent.
 */
async function deadlineStep(d: Driver, wf: Workflow, pollMs: number): Promise<'moved' | 'waiting'> {
  const observed = await recordObservations(d, wf, pollMs);
  for (const line of observed) d.say(line);
  // An observation changed the record: the deadlines are checked against the new one.
  const current = observed.length > 0 ? readWorkflow(d.ctx.root, d.runId).workflow : wf;
  const lines = await enforceDeadlines(d, current, new Date());
  for (const line of lines) {
    d.say(line);
    logLine(d.paths, line);
  }
  // The phase file is written once per loop, after the step (driveRun).
  return lines.length > 0 ? 'moved' : 'waiting';
}

/** The last refusal each drive warned of. */
const lastRefusal = new WeakMap<DriveOptions, string>();

/**
 * One step; a step the runtime refuses because the record moved meanwhile (the owner paused
 * or cancelled between the controller's read and its action) or whose lock stayed busy is a
 * warning, and the loop reads the record again. Anything else ends the controller.
 */
async function stepTolerantly(
  d: Driver,
  wf: Workflow,
  o: DriveOptions,
  deadlines: () => Promise<'moved' | 'waiting'>,
): Promise<'moved' | 'waiting'> {
  try {
    if ((await deadlines()) === 'moved') return 'moved';
    return await stepActiveRun(d, wf);
  } catch (err) {
    if (!(err instanceof LockBusy) && !(err instanceof CommandFailure && err.kind === 'refused'))
      throw err;
    const line = `${err instanceof CommandFailure ? err.lines[0] : (err as Error).message}`;
    // Once per distinct refusal, never once per poll (runtime.md §11.3).
    if (line !== lastRefusal.get(o)) o.warn(`${line}; reading the run again`);
    lastRefusal.set(o, line);
    return 'waiting';
  }
}

/**
 * Reports to the owner; a report that cannot be written is a warning, and the controller keeps
 * waiting.
 */
function report(o: DriveOptions, line: string): void {
  try {
    o.say(line);
  } catch (err) {
    o.warn(`could not report to the owner: ${(err as Error).message}`);
  }
}
