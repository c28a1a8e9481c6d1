// Silence is bounded (docs/runtime.md §11.4): every reply the controller awaits has a
// deadline by kind (`--reply-timeout KIND=DURATION`). At the deadline the controller looks at
// the role's agent (a dead one is logged `agent-dead role=R`, and restarted once with
// --restart-dead), records `provider --name R
// --failed`, and after the backoff the runtime gives it re-sends the same request as the next
// generation (the pane is woken by handoffd's delivery; a late reply to an older generation
// is rejected as stale). The Nth missed deadline of one request (N: the run's
// retry_policy.max_attempts) blocks the run with a reason naming the role and the fault.
//
// Crash contract: a missed deadline is recorded in the run's history with the request's key
// and generation before the phase file counts it, and a history entry already there for that
// key and generation is not recorded again; so a controller killed between the two counts
// the miss once. The next generation is written to the phase file before it is sent, and
// sendOnce queues each generation once.
import { crashPoint } from '../../fsx/crash.js';
import { blockStep, providerStep } from '../gates/controllerActions.js';
import { type Workflow } from '../record/workflow.js';
import { awaitedKeys } from './awaited.js';
import { logLine, type AwaitedRequest } from './controllerPhase.js';
import type { Driver } from './driveStep.js';
import { durationMs, durationText } from '../../fsx/duration.js';
import { printable } from '../../fsx/printable.js';
import { isoOf } from '../../fsx/timestamps.js';

/** The kinds of request that have a deadline. */
export const DEADLINE_KINDS = ['work', 'review', 'validation', 'resolution'] as const;
/** One of them. */
export type DeadlineKind = (typeof DEADLINE_KINDS)[number];

/** The deadlines when `--reply-timeout` does not say (runtime.md §11.4). */
export const DEFAULT_REPLY_TIMEOUTS_MS: Record<DeadlineKind, number> = {
  work: 60 * 60_000,
  review: 30 * 60_000,
  validation: 20 * 60_000,
  resolution: 60 * 60_000,
};

/**
 * The deadlines of `--reply-timeout KIND=DURATION` (repeatable) over the defaults; a malformed
 * entry is the first problem, as one line.
 */
export function replyTimeoutsOf(entries: string[]): Record<DeadlineKind, number> | string {
  const out = { ...DEFAULT_REPLY_TIMEOUTS_MS };
  for (const entry of entries) {
    const [kind, duration = ''] = entry.split('=', 2);
    if (!(DEADLINE_KINDS as readonly string[]).includes(kind!))
      return (
        `--reply-timeout takes KIND=DURATION with KIND one of ${DEADLINE_KINDS.join(', ')}, ` +
        `not '${entry}'`
      );
    const ms = durationMs(duration);
    if (ms === undefined)
      return `--reply-timeout ${kind}: '${duration}' is not a duration like 90s, 30m or 2h`;
    out[kind as DeadlineKind] = ms;
  }
  return out;
}

/** The deadline of `kind` for this driver. */
function timeoutOf(d: Driver, kind: string): number {
  const timeouts = d.replyTimeouts ?? DEFAULT_REPLY_TIMEOUTS_MS;
  return timeouts[kind as DeadlineKind] ?? DEFAULT_REPLY_TIMEOUTS_MS.work;
}

/**
 * The awaited entry of a request, made (generation 1, its deadline from now) when the phase has
 * none: the first time it is asked for, or after a lost phase file.
 */
export function awaitRequest(
  d: Driver,
  wf: Workflow,
  r: { role: string; kind: string; stage: string; lane?: string; key: string },
  now: Date,
): AwaitedRequest {
  const awaiting = (d.phase.awaiting ??= []);
  const found = awaiting.find((a) => a.key === r.key);
  if (found) return found;
  const entry: AwaitedRequest = {
    ...r,
    cycle: wf.review_cycle,
    generation: 1,
    sent_at: isoOf(now),
    deadline_at: isoOf(new Date(now.getTime() + timeoutOf(d, r.kind))),
    attempts: 0,
  };
  awaiting.push(entry);
  return entry;
}

/** Starts again from `now` the deadlines of what `role` is awaited for (after an answer). */
export function restartDeadlinesOf(d: Driver, role: string, now: Date): void {
  for (const a of d.phase.awaiting ?? [])
    if (a.role === role && a.resend_at === undefined)
      a.deadline_at = isoOf(new Date(now.getTime() + timeoutOf(d, a.kind)));
}

/** Drops the entries the run no longer awaits (answered, or another phase, cycle or retry). */
export function pruneAwaiting(d: Driver, wf: Workflow): void {
  if (!d.phase.awaiting) return;
  const keys = awaitedKeys(wf);
  d.phase.awaiting = d.phase.awaiting.filter(
    (a) => keys.includes(a.key) && !(a.key in d.phase.replies),
  );
}

/** The history entry that records a missed deadline: names the request and its generation. */
function missTag(a: AwaitedRequest): string {
  return `(request ${a.key} generation ${a.generation})`;
}

/**
 * With --restart-dead, a dead agent restarted in its pane (baton restart), once per role in a
 * run: the re-sent request then reaches a live session. The role is counted before the restart
 * is tried, so a controller killed meanwhile (its phase not yet written) tries at most once
 * more, and only if the agent is dead again; an agent that dies after its restart is left to
 * the deadlines, which block the run naming it.
 */
async function restartOnce(d: Driver, role: string): Promise<void> {
  const restarted = (d.phase.restarted ??= []);
  if (d.restartAgent === undefined || restarted.includes(role)) return;
  restarted.push(role);
  let line: string;
  try {
    line = `agent-restarted role=${role} (${await d.restartAgent(role)})`;
  } catch (err) {
    const why = printable((err as Error).message.split('\n')[0]!);
    line = `agent-restart-failed role=${role}: ${why}`;
  }
  d.say(line);
  logLine(d.paths, line);
}

/**
 * One missed deadline: recorded as a provider failure (once per generation, found again in the
 * history after a crash), or the blocking outcome when it is the request's last attempt.
 * Returns the line to say.
 */
async function missDeadline(
  d: Driver,
  wf: Workflow,
  a: AwaitedRequest,
  now: Date,
): Promise<string> {
  const within = durationText(timeoutOf(d, a.kind));
  const missed = a.attempts + 1;
  const max = wf.retry_policy.max_attempts;
  // The role as last observed (one poll old at most): a dead agent is said so at its deadline,
  // and restarted (--restart-dead) when a re-send is still to come.
  if (wf.observations.panes[a.role]?.status === 'dead') {
    logLine(d.paths, `agent-dead role=${a.role} (its ${a.kind} for cycle ${a.cycle} is due)`);
    if (missed < max) await restartOnce(d, a.role);
  }
  if (missed >= max) {
    const reason =
      `${a.role} did not answer ${a.kind} for cycle ${a.cycle}: ` +
      `${missed} deadlines of ${within} missed`;
    logLine(d.paths, `BLOCKING: ${reason}`);
    await blockStep(d.ctx, d.runId, d.token, reason);
    return `BLOCKED: ${reason}`;
  }
  const tag = missTag(a);
  const recorded = wf.history.find((h) => h.action === 'provider' && h.detail.includes(tag));
  let retryInMs = 0;
  if (recorded === undefined) {
    const failed = `no ${a.kind} reply for cycle ${a.cycle} within ${within} ${tag}`;
    const r = await providerStep(d.ctx, d.runId, d.token, { name: a.role, failed });
    crashPoint('drive:deadline-recorded');
    if (r.workflow?.status === 'BLOCKED') return `BLOCKED: ${r.workflow.block_reason}`;
    retryInMs = Number(r.extra?.retry_in_ms ?? 0);
  }
  a.attempts = missed;
  a.resend_at = isoOf(new Date(now.getTime() + retryInMs));
  return (
    `DEADLINE: ${a.role} did not answer ${a.kind} for cycle ${a.cycle} within ${within} ` +
    `(${missed} of ${max}); re-sending in ${retryInMs} ms`
  );
}

/**
 * Enforces the deadlines of the awaited replies: records misses, blocks at the last attempt,
 * and moves a request whose backoff is over to its next generation (the step then sends it).
 * Returns the lines to say; a BLOCKED line ends the run's step.
 */
export async function enforceDeadlines(d: Driver, wf: Workflow, now: Date): Promise<string[]> {
  const lines: string[] = [];
  for (const a of d.phase.awaiting ?? []) {
    if (a.key in d.phase.replies) continue;
    if (a.resend_at !== undefined) {
      if (now.getTime() < Date.parse(a.resend_at)) continue;
      a.generation += 1;
      a.sent_at = isoOf(now);
      a.deadline_at = isoOf(new Date(now.getTime() + timeoutOf(d, a.kind)));
      delete a.resend_at;
      lines.push(`RESEND: ${a.kind} to ${a.role} as generation ${a.generation} (${a.key})`);
      continue;
    }
    if (now.getTime() < Date.parse(a.deadline_at)) continue;
    const line = await missDeadline(d, wf, a, now);
    lines.push(line);
    if (line.startsWith('BLOCKED')) break;
  }
  return lines;
}

/** The generation a reply to `key` must answer, when the phase knows it. */
export function awaitedGenerationOf(d: { awaiting?: AwaitedRequest[] }, key: string) {
  return d.awaiting?.find((a) => a.key === key)?.generation;
}
