// One step of `baton run drive` for an ACTIVE run (docs/runtime.md §9.2–9.4): what the
// record's phase asks for next, given the replies taken so far. Requests go out once
// (lib/run/controller/controllerMail.ts); a reply is used only when its key is the one awaited for
// the run's current stage, kind, cycle and generation, else it is completed with a logged
// rejection. The gates are the runtime's own actions, called in process with the lease.
import { join } from 'node:path';
import { crashPoint } from '../../fsx/crash.js';
import { type Item } from '../../queue/index.js';
import { type RunPaths } from '../../project/layout.js';
import { awaitedKeys, awaitedRoleOf } from './awaited.js';
import { completeReply, nextReply, requestKey, sendIdOf, sendOnce } from './controllerMail.js';
import { logLine, writePhase, type ControllerPhase } from './controllerPhase.js';
import { DEFAULT_REPLY_ATTEMPTS, takeAwaitedReply } from './replyIntake.js';
import { awaitRequest, restartDeadlinesOf, type DeadlineKind } from './replyDeadlines.js';
import {
  resolvePrompt,
  reviewPrompt,
  stagePrompt,
  STUDENT_PERSONA_OF,
  validatePrompt,
  withPersona,
  type PromptPersona,
} from './controllerPrompts.js';
import { blockStep, checkpointStep, stageStartStep } from '../gates/controllerActions.js';
import { repoChanges, repoSnapshotBeside, repoSnapshotOf } from '../gates/repoState.js';
import { parseValidationFile, validIdsOf } from '../gates/evidence.js';
import { acceptanceStep, resolveReviewStep, reviewStep } from '../gates/gateSteps.js';
import { type RunContext } from '../record/runContext.js';
import { rotateBeforeReview, takeAck } from './rotation.js';
import { nextStageOf } from '../gates/stageActions.js';
import { type Workflow } from '../record/workflow.js';
import * as fs from 'node:fs';
import { isoOf } from '../../fsx/timestamps.js';

/** What the controller works with. */
export interface Driver {
  ctx: RunContext;
  runId: string;
  token: string;
  paths: RunPaths;
  phase: ControllerPhase;
  say: (line: string) => void;
  /** Unusable replies to one request before the run blocks (--reply-attempts). */
  replyAttempts?: number;
  /** The deadline of each kind of reply (--reply-timeout), else the defaults. */
  replyTimeouts?: Record<DeadlineKind, number>;
  /**
   * Gives a reviewer a fresh context between review cycles (runtime.md §12.3): clears or
   * restarts the role's agent and says how; throws when it cannot. None: no rotation.
   */
  rotateSession?: (role: string) => Promise<string>;
  /**
   * Restarts a role's dead agent in its pane (--restart-dead, runtime.md §11.4) and says how;
   * throws when it cannot. None: a dead agent is only reported.
   */
  restartAgent?: (role: string) => Promise<string>;
  /** The roles' personas, by name (runtime.md §12.5); none: requests carry no persona. */
  personas?: ReadonlyMap<string, PromptPersona>;
}

/** Handles one reply: a question, an answer for the worker, the awaited reply, or a rejection. */
async function handleReply(d: Driver, wf: Workflow, item: Item): Promise<void> {
  const h = item.headers as Record<string, string | undefined>;
  const paths = d.paths;
  const note = (line: string) => {
    d.say(line);
    logLine(paths, line);
  };
  if (h.type === 'run_result' && h.run_id === wf.run_id && h.kind === 'question') {
    d.phase.question = {
      text: item.body.toString('utf8').split('\n').slice(1).join('\n').trim(),
      from: h.from ?? '',
      stage: h.stage ?? '',
      cycle: Number(h.cycle),
      since: isoOf(new Date()),
    };
    d.phase.state = 'WAITING_FOR_HUMAN_INPUT';
    note(
      `QUESTION: from ${h.from}: ` +
        `${d.phase.question.text.split('\n')[0]} (answer with: baton ` +
        `run answer ${wf.run_id} TEXT)`,
    );
  } else if (h.type === 'run_answer' && h.run_id === wf.run_id && d.phase.question) {
    const to = d.phase.question.from || wf.roles.worker;
    await sendOnce(
      d.ctx.root,
      wf,
      d.phase,
      {
        key: `${wf.run_id}/answer/${item.id}`,
        to,
        type: 'run_answer',
        headers: { kind: 'answer' },
        body: item.body.toString('utf8'),
      },
      new Date(),
    );
    note(`ANSWERED: ${to}`);
    // The time a person took to answer is not the worker's: its deadlines start again.
    restartDeadlinesOf(d, to, new Date());
    d.phase.question = null;
    d.phase.state = 'DRIVING';
  } else if (h.type === 'run_ack' && h.run_id === wf.run_id) {
    note(takeAck(d, h.from ?? '', h.nonce));
  } else if (
    h.type === 'run_result' &&
    h.key !== undefined &&
    awaitedKeys(wf).includes(h.key) &&
    !(h.key in d.phase.replies)
  ) {
    note(await takeAwaitedReply(d, wf, item, d.replyAttempts ?? DEFAULT_REPLY_ATTEMPTS));
  } else {
    note(
      `REJECTED: ${h.type ?? 'item'} ${item.id} (run ` +
        `${h.run_id ?? '?'}, ${h.kind ?? '?'} stage ${h.stage ?? '?'} ` +
        `cycle ${h.cycle ?? '?'}): not what run ${wf.run_id} awaits ` +
        `now`,
    );
  }
}

/**
 * Handles every reply waiting in the controller's inbox, in memory: returns them, to be
 * completed once the phase that records them is written (completeTaken). Until then each stays
 * in in_process/, so a controller killed before that handles it again after a restart, with
 * the phase it had before (counted once, used once). Replies in `takenBefore` (taken on an
 * earlier turn, not completed yet) are passed over.
 */
export async function takeReplies(
  d: Driver,
  wf: Workflow,
  takenBefore: readonly Item[] = [],
): Promise<Item[]> {
  const taken: Item[] = [];
  const names = new Set(takenBefore.map((item) => item.name));
  for (
    let item = await nextReply(d.ctx.root, wf.roles.controller, new Date(), names);
    item;
    item = await nextReply(d.ctx.root, wf.roles.controller, new Date(), names)
  ) {
    if (!d.phase.handled.includes(item.id)) {
      await handleReply(d, wf, item);
      d.phase.handled.push(item.id);
    }
    taken.push(item);
    names.add(item.name);
  }
  return taken;
}

/** Writes the phase, then completes the replies it records as handled. */
export async function completeTaken(d: Driver, wf: Workflow, taken: Item[]): Promise<void> {
  if (taken.length === 0) return;
  writePhase(d.paths, d.phase);
  for (const item of taken) await completeReply(d.ctx.root, wf.roles.controller, item, new Date());
}

/** Takes every reply waiting in the controller's inbox, writes the phase, completes them. */
export async function pumpReplies(d: Driver, wf: Workflow): Promise<void> {
  await completeTaken(d, wf, await takeReplies(d, wf));
}

/** The absolute path of a reply's artifact. */
function artifactOf(d: Driver, key: string): string {
  return join(d.paths.dir, d.phase.replies[key]!);
}

/** Whether the last acceptance passed after `since` (ISO). */
function acceptedAfter(wf: Workflow, since: string): boolean {
  return (
    wf.last_acceptance_ok === true &&
    wf.last_acceptance_at !== null &&
    Date.parse(wf.last_acceptance_at) > Date.parse(since)
  );
}

/**
 * Sends a request once and records it in the phase (written at the end of the loop's turn: a
 * controller killed before that finds the request by its key in its mailbox, queuedKeys).
 */
async function request(
  d: Driver,
  wf: Workflow,
  r: Parameters<typeof sendOnce>[3],
): Promise<'waiting'> {
  if (await sendOnce(d.ctx.root, wf, d.phase, r, new Date()))
    d.say(`SENT: ${r.type} to ${r.to} (${r.key})`);
  return 'waiting';
}

/** The type of each kind of request (who answers it: awaitedRoleOf). */
const ASKED = {
  work: 'run_stage',
  review: 'run_review',
  validation: 'run_validate',
  resolution: 'run_resolve',
} as const;

/**
 * Requests the reply of `kind` in `stage` (from a review `lane`'s reviewer) unless it is in:
 * 'waiting' when it is not in, else undefined. The request's generation is the one its awaited
 * entry names (a missed deadline moves it on, replyDeadlines.ts); each generation is sent once,
 * and none while a missed deadline's backoff runs. The body is made only when it is sent.
 */
async function ask(
  d: Driver,
  wf: Workflow,
  [kind, stage, lane]: [keyof typeof ASKED, string, string?],
  body: () => string,
): Promise<'waiting' | undefined> {
  const key = requestKey(wf, kind, stage, lane);
  if (key in d.phase.replies) return undefined;
  const [to, type] = [awaitedRoleOf(wf, kind, lane), ASKED[kind]];
  const entry = awaitRequest(d, wf, { role: to, kind, stage, lane, key }, new Date());
  const generation = entry.generation;
  if (entry.resend_at !== undefined || d.phase.sent.includes(sendIdOf(key, generation)))
    return 'waiting';
  // A reviewer's fresh context comes before each review after the first cycle (§12.3).
  if (kind === 'review' && wf.review_cycle > 1 && d.rotateSession !== undefined)
    if (await rotateBeforeReview(d, wf, { role: to, key, generation, lane })) return 'waiting';
  const headers: Record<string, string> =
    lane === undefined ? { stage, kind } : { stage, kind, lane };
  const persona = d.personas?.get(STUDENT_PERSONA_OF[kind]);
  return request(d, wf, {
    key,
    to,
    type,
    headers,
    body: withPersona(body(), persona),
    generation,
  });
}

/** The stage's work: request, then acceptance, then checkpoint. */
async function stageStep(d: Driver, wf: Workflow): Promise<'moved' | 'waiting'> {
  const stage = wf.active_stage!;
  const asked = await ask(d, wf, ['work', stage], () => stagePrompt(wf, stage));
  if (asked) return asked;
  const key = requestKey(wf, 'work', stage);
  if (!acceptedAfter(wf, wf.last_checkpoint_at ?? wf.created_at)) {
    const r = await acceptanceStep(d.ctx, d.runId, d.token);
    crashPoint('drive:acceptance-done');
    d.say(r.blocked ? `BLOCKED: ${r.blocked}` : 'ACCEPTANCE: passed');
    return 'moved';
  }
  const work = [`${artifactOf(d, key)}:work`];
  await checkpointStep(d.ctx, d.runId, d.token, stage, work, wf.roles.worker);
  crashPoint('drive:checkpoint-done');
  d.say(`CHECKPOINT: ${stage}`);
  return 'moved';
}

/**
 * The review of the cycle: a fresh acceptance after a resolution, both lanes requested, then
 * recorded.
 */
async function reviewPendingStep(d: Driver, wf: Workflow): Promise<'moved' | 'waiting'> {
  if (wf.last_resolution_at !== null && !acceptedAfter(wf, wf.last_resolution_at)) {
    const r = await acceptanceStep(d.ctx, d.runId, d.token);
    d.say(r.blocked ? `BLOCKED: ${r.blocked}` : 'ACCEPTANCE: passed');
    return 'moved';
  }
  const lanes = ['structured', 'independent'];
  for (const lane of lanes)
    await ask(d, wf, ['review', 'review', lane], () => reviewPrompt(wf, lane, d.paths.dir));
  const keys = lanes.map((lane) => requestKey(wf, 'review', 'review', lane));
  if (!keys.every((k) => k in d.phase.replies)) return 'waiting';
  // The repository as the validator will get it (runtime.md §11.5), read by git while the
  // review is recorded: kept in the phase this turn writes, it is the snapshot findingsStep
  // would otherwise take on its own (one git process and one phase write later).
  const snapshot = repoSnapshotBeside(wf.repo_root);
  snapshot.catch(() => undefined); // awaited only when there are findings to validate
  const r = await reviewStep(
    d.ctx,
    d.runId,
    d.token,
    wf.review_cycle,
    lanes.map((lane, i) => `${lane}=${artifactOf(d, keys[i]!)}`),
  );
  crashPoint('drive:review-done');
  if (r.workflow?.phase === 'FINDINGS_PENDING')
    d.phase.validating = {
      key: requestKey(r.workflow, 'validation', 'review'),
      snapshot: await snapshot,
    };
  d.say(
    `REVIEW: cycle ${wf.review_cycle}: ` +
      `${r.workflow!.blocking_findings} blocking ` +
      `finding(s)${r.blocked ? `; BLOCKED: ${r.blocked}` : ''}`,
  );
  return 'moved';
}

/**
 * The findings of the cycle: validation (read-only), then resolution of the valid ones, then
 * recorded.
 */
async function findingsStep(d: Driver, wf: Workflow): Promise<'moved' | 'waiting'> {
  const blocking = wf.findings.filter((f) => f.cycle === wf.review_cycle && f.blocking);
  const vkey = requestKey(wf, 'validation', 'review');
  // The repository as the validator gets it, taken before it is asked (runtime.md §11.5).
  if (d.phase.validating?.key !== vkey && !(vkey in d.phase.replies)) {
    d.phase.validating = { key: vkey, snapshot: repoSnapshotOf(wf.repo_root) };
    // Kept before the validator is asked, so a restarted controller still has it to compare.
    writePhase(d.paths, d.phase);
  }
  const toValidate = await ask(d, wf, ['validation', 'review'], () =>
    validatePrompt(wf, blocking, d.paths.dir),
  );
  if (toValidate) return toValidate;
  if (await blockedByValidatorWrites(d, wf, vkey)) return 'moved';
  const validation = await parseValidationFile(
    fs.readFileSync(artifactOf(d, vkey), 'utf8'),
    wf.review_cycle,
  ).catch(() => undefined);
  const valid = validation ? validIdsOf(validation) : [];
  const toResolve = await ask(d, wf, ['resolution', 'review'], () =>
    resolvePrompt(
      wf,
      blocking.filter((f) => valid.includes(f.id)),
    ),
  );
  if (toResolve) return toResolve;
  const rkey = requestKey(wf, 'resolution', 'review');
  const r = await resolveReviewStep(d.ctx, d.runId, d.token, wf.review_cycle, {
    validation: artifactOf(d, vkey),
    resolution: artifactOf(d, rkey),
  });
  d.say(r.blocked ? `BLOCKED: ${r.blocked}` : `RESOLVED: cycle ${wf.review_cycle}`);
  return 'moved';
}

/**
 * Blocks the run when the validator changed the repository while validating (runtime.md §11.5):
 * checked once its reply is in and before the worker is asked to resolve (who changes it then).
 */
async function blockedByValidatorWrites(d: Driver, wf: Workflow, vkey: string): Promise<boolean> {
  const taken = d.phase.validating;
  if (taken?.key !== vkey || d.phase.sent.includes(requestKey(wf, 'resolution', 'review')))
    return false;
  const changed = repoChanges(taken.snapshot, repoSnapshotOf(wf.repo_root));
  if (changed === undefined) return false;
  const reason = `the validator changed the repository while validating: ${changed}`;
  await blockStep(d.ctx, d.runId, d.token, reason);
  d.say(`BLOCKED: ${reason}`);
  logLine(d.paths, `BLOCKED: ${reason}`);
  return true;
}

/** One step of an ACTIVE run; 'waiting' when it waits for a reply. */
export async function stepActiveRun(d: Driver, wf: Workflow): Promise<'moved' | 'waiting'> {
  if (wf.phase === 'IDLE') {
    const stage = nextStageOf(wf)!;
    await stageStartStep(d.ctx, d.runId, d.token, stage);
    d.say(`STAGE: ${stage} (cycle ${wf.review_cycle})`);
    return 'moved';
  }
  if ((wf.phase === 'STAGE_ACTIVE' || wf.phase === 'PAUSE_REQUESTED') && wf.active_stage !== null)
    return stageStep(d, wf);
  if (wf.phase === 'REVIEW_PENDING') return reviewPendingStep(d, wf);
  if (wf.phase === 'FINDINGS_PENDING') return findingsStep(d, wf);
  return 'waiting';
}
