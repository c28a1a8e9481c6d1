// `baton run drive`: the controller on the command line. It prints one line per event on
// stdout (SENT, REPLY, REJECTED, DEADLINE, RESEND, STAGE, ACCEPTANCE, CHECKPOINT, REVIEW,
// RESOLVED, QUESTION, APPROVAL, WAITING, DONE, OBSERVED, agent-dead), warnings on stderr;
// SIGTERM or SIGINT end it after its current step (the lease stays until it expires, or is
// reclaimed). Exit 0 when the run ended.
import { driveRun } from '../../run/controller/controllerLoop.js';
import { type ActionReport, type RunContext } from '../../run/record/runContext.js';
import { withExtra } from '../../run/record/runListing.js';
import { wholeNumber } from './runActionTable.js';
import { type DeadlineKind } from '../../run/controller/replyDeadlines.js';

/** What `baton run drive` was told. */
export interface DriveCliOptions {
  reclaimStale: boolean;
  pollInterval: string | undefined;
  replyAttempts?: number;
  replyTimeouts?: Record<DeadlineKind, number>;
}

/** Drives the run until it ends; returns its final status. */
export async function driveFromCli(
  ctx: RunContext,
  runId: string,
  { reclaimStale, pollInterval, replyAttempts, replyTimeouts }: DriveCliOptions,
): Promise<ActionReport> {
  const pollMs = pollInterval === undefined ? 1000 : Math.round(Number(pollInterval) * 1000);
  if (!Number.isFinite(pollMs) || pollMs <= 0)
    wholeNumber({ 'poll-interval': pollInterval }, 'poll-interval', 'drive', 1, 1);
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
  try {
    const status = await driveRun(ctx, runId, {
      reclaimStale,
      pollMs,
      replyAttempts,
      replyTimeouts,
      signal: stop.signal,
      say: (line) => process.stdout.write(`${line}\n`),
      warn: (line) => process.stderr.write(`baton run drive: warning: ${line}\n`),
    });
    process.stdout.write(`DONE: run ${runId} is ${status}\n`);
    return withExtra(ctx, runId, {});
  } finally {
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
  }
}
