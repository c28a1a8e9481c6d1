// `baton run drive`: the controller on the command line. It prints one line per event on
// stdout (SENT, REPLY, REJECTED, DEADLINE, RESEND, STAGE, ACCEPTANCE, CHECKPOINT, REVIEW,
// RESOLVED, QUESTION, APPROVAL, WAITING, DONE, OBSERVED, agent-dead, agent-restarted,
// agent-restart-failed, ROTATING, ROTATED, ROTATION SKIPPED), warnings on stderr;
// SIGTERM or SIGINT end it after its current step (the lease stays until it expires, or is
// reclaimed). Exit 0 when the run ended.
import { driveRun } from '../../run/controller/controllerLoop.js';
import { type ActionReport, type RunContext } from '../../run/record/runContext.js';
import { withExtra } from '../../run/record/runListing.js';
import { wholeNumber } from './runActionTable.js';
import { type DeadlineKind } from '../../run/controller/replyDeadlines.js';
import { readWorkflow } from '../../run/record/runStore.js';
import { readWindows } from '../../admin/init.js';
import { clearCommandOf } from '../../handoff/knownAgents.js';
import { readPanes, recordedSocketOf } from '../../project/tmuxRecord.js';
import { Tmux } from '../../adapters/tmux.js';
import { binDir } from '../swarmCommands.js';

/** What `baton run drive` was told. */
export interface DriveCliOptions {
  reclaimStale: boolean;
  pollInterval: string | undefined;
  replyAttempts?: number;
  replyTimeouts?: Record<DeadlineKind, number>;
  /** --rotate-reviewers (true), --no-rotate-reviewers (false), or the default (undefined). */
  rotateReviewers?: boolean;
  /** --restart-dead: a dead agent is restarted once at its deadline (runtime.md §11.4). */
  restartDead?: boolean;
}

/**
 * Whether reviewers are rotated: as --rotate-reviewers / --no-rotate-reviewers say, else by
 * default only when every reviewer role's agent in swarmforge.conf is claude or codex, whose
 * clear commands Baton knows (runtime.md §12.3).
 */
export function rotationOn(
  root: string,
  reviewers: readonly string[],
  flag: boolean | undefined,
): boolean {
  return flag ?? rotationByDefault(root, reviewers);
}

/** Rotation's default: every reviewer role's agent has a clear command Baton knows. */
function rotationByDefault(root: string, reviewers: readonly string[]): boolean {
  let windows: { role: string; agent: string }[];
  try {
    windows = readWindows(root);
  } catch {
    return false;
  }
  return reviewers.every((role) => {
    const agent = windows.find((w) => w.role === role)?.agent;
    return agent !== undefined && clearCommandOf(agent) !== undefined;
  });
}

/**
 * Gives a reviewer a fresh context: its agent's clear command typed into its pane (one
 * Enter), or, for any other program, the agent restarted in its pane (baton restart).
 */
async function rotateSessionOf(root: string, role: string): Promise<string> {
  const agent = readWindows(root).find((w) => w.role === role)?.agent;
  const clear = agent === undefined ? undefined : clearCommandOf(agent);
  if (clear === undefined) return restartAgentOf(root, role);
  const socket = recordedSocketOf(root);
  const pane = readPanes(root).get(role);
  if (!socket || pane === undefined) throw new Error(`${role} has no pane (is the swarm up?)`);
  const tmux = new Tmux(socket);
  await tmux.sendLiteral(pane, clear);
  await tmux.sendEnter(pane);
  return `${clear} typed`;
}

/** Restarts a role's agent in its pane, as `baton restart` does; says with which process. */
async function restartAgentOf(root: string, role: string): Promise<string> {
  const { restartRole } = await import('../../swarm/restart.js');
  const done = await restartRole(root, role, { binDir: binDir(), graceMs: 5_000 });
  return `restarted, pid ${done.pid}`;
}

/** Drives the run until it ends; returns its final status. */
export async function driveFromCli(
  ctx: RunContext,
  runId: string,
  o: DriveCliOptions,
): Promise<ActionReport> {
  const { reclaimStale, pollInterval, replyAttempts, replyTimeouts, rotateReviewers } = o;
  const { workflow } = readWorkflow(ctx.root, runId);
  const rotate = rotationOn(ctx.root, workflow.roles.reviewers, rotateReviewers);
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
      rotateSession: rotate ? (role) => rotateSessionOf(ctx.root, role) : undefined,
      restartAgent: o.restartDead ? (role) => restartAgentOf(ctx.root, role) : undefined,
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
