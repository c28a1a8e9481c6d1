// Session rotation (docs/runtime.md §9 item 7, §12.3): before each generation of a review
// request after the first cycle, the controller gives the reviewer a fresh context. Once the
// reviewer is idle (nothing in process, its hooks do not say `working`) it clears the
// agent's context (the agent's own clear command typed into its pane, or the agent
// restarted: DriveOptions.rotateSession, wired by lib/cli), then queues a nonce-bound
// `run_rotate` handoff (what the new session must know), and sends the review only after
// the new session has run `baton run ack <run-id> --nonce N`. The clear comes before the
// handoff so that handoffd's wake-up for it can never be typed into the line the clear is
// typed on. A wrong nonce is refused where it is given (exit 2); no acknowledgement by the
// review's deadline is silence (§11.4: the next generation rotates again, the last one
// blocks the run). A session that cannot be rotated (no pane, a remote role) is logged and
// the review goes without.
//
// Crash contract: the rotation and its nonce are written to the phase file before anything
// is done; `clearing_at` is written before the clear and `cleared_at` after it. A controller
// killed between the two finds, on restart, whether the agent's SessionStart hook has
// reported since `clearing_at` (a cleared session starts anew): then the clear is not typed
// again. The handoff is queued by its key, once.
import { randomBytes } from 'node:crypto';
import { crashPoint } from '../../fsx/crash.js';
import { fail } from '../../fsx/commandFailure.js';
import { queueSystemHandoff } from '../../handoff/systemSend.js';
import { readAgentReport } from '../../project/agentObservation.js';
import { mailboxOf } from '../../project/layout.js';
import { inProcessOf } from '../../queue/index.js';
import { readWorkflow } from '../record/runStore.js';
import { isTerminal, type Workflow } from '../record/workflow.js';
import { sendOnce } from './controllerMail.js';
import { logLine, readPhase, writePhase, type Rotation } from './controllerPhase.js';
import type { Driver } from './driveStep.js';
import { isoOf } from '../../fsx/timestamps.js';

/** The key of a rotation's `run_rotate` handoff: the review request's, with its generation. */
export function rotateKeyOf(r: Rotation): string {
  return `${r.key}/rotate-${r.generation}`;
}

/** True when the role has nothing in process and its hooks do not say it works. */
function sessionIdle(root: string, role: string): boolean {
  const held = inProcessOf(mailboxOf(root, role));
  if (held.files.length + held.batches.length > 0) return false;
  return readAgentReport(root, role)?.state !== 'working';
}

/** True when the role's agent started a session (its SessionStart hook) since `since`. */
function sessionStartedSince(root: string, role: string, since: string): boolean {
  const report = readAgentReport(root, role);
  return report?.event === 'SessionStart' && Date.parse(report.at) >= Date.parse(since);
}

/** What the new session is told. */
function rotateBody(wf: Workflow, r: Rotation): string {
  return [
    `Run ${wf.run_id}, review cycle ${wf.review_cycle}: your context was cleared before this ` +
      'cycle. Acknowledge with:',
    `baton run ack ${wf.run_id} --nonce ${r.nonce}`,
    `Then wait for the run_review of cycle ${wf.review_cycle}; earlier cycles' findings are ` +
      'named in it.',
  ].join('\n');
}

/**
 * Rotates the reviewer before generation `generation` of review request `key`: true while the
 * review must wait (the rotation is not acknowledged yet), false once it may go.
 */
export async function rotateBeforeReview(
  d: Driver,
  wf: Workflow,
  request: { role: string; key: string; generation: number; lane?: string },
): Promise<boolean> {
  const rotations = (d.phase.rotations ??= []);
  let r = rotations.find((x) => x.key === request.key && x.generation === request.generation);
  if (r === undefined) {
    r = {
      role: request.role,
      key: request.key,
      generation: request.generation,
      nonce: randomBytes(8).toString('hex'),
    };
    rotations.push(r);
    writePhase(d.paths, d.phase);
  }
  if (r.acked_at !== undefined || r.skipped !== undefined) return false;
  if (r.cleared_at === undefined) {
    if (!sessionIdle(d.ctx.root, r.role)) return true;
    if (r.clearing_at !== undefined && sessionStartedSince(d.ctx.root, r.role, r.clearing_at)) {
      r.how ??= 'a new session seen after a restart of the controller';
    } else {
      r.clearing_at = isoOf(new Date());
      writePhase(d.paths, d.phase);
      try {
        r.how = await d.rotateSession!(r.role);
      } catch (err) {
        r.skipped = (err as Error).message.split('\n')[0]!;
        const line = `ROTATION SKIPPED: ${r.role}: ${r.skipped}; the review goes without`;
        d.say(line);
        logLine(d.paths, line);
        return false;
      }
      crashPoint('drive:rotate-cleared');
    }
    r.cleared_at = isoOf(new Date());
    writePhase(d.paths, d.phase);
    d.say(`ROTATING: ${r.role} (${r.how}); waiting for its baton run ack`);
  }
  const headers: Record<string, string> = {
    stage: 'review',
    kind: 'rotate',
    nonce: r.nonce,
    ...(request.lane === undefined ? {} : { lane: request.lane }),
  };
  await sendOnce(
    d.ctx.root,
    wf,
    d.phase,
    { key: rotateKeyOf(r), to: r.role, type: 'run_rotate', headers, body: rotateBody(wf, r) },
    new Date(),
  );
  return true;
}

/**
 * The role's last rotation: only it can be acknowledged (a missed deadline's next generation
 * rotates again, and the older nonce no longer counts).
 */
function latestRotationOf(rotations: Rotation[] | undefined, role: string): Rotation | undefined {
  return rotations?.filter((x) => x.role === role).at(-1);
}

/**
 * A `run_ack` the controller took: the line to say. It counts only from the rotated role
 * (the mailbox the queue took it from) with that rotation's nonce.
 */
export function takeAck(d: Driver, from: string, nonce: string | undefined): string {
  const r = latestRotationOf(d.phase.rotations, from);
  if (r?.cleared_at === undefined || r.acked_at !== undefined || r.nonce !== nonce)
    return `REJECTED: run_ack from ${from}: no rotation of ${from} awaits that acknowledgement`;
  r.acked_at = isoOf(new Date());
  return `ROTATED: ${from} acknowledged its new session`;
}

/**
 * `baton run ack <run-id> --nonce N` (the new session of a rotated reviewer): refuses, before
 * anything is queued, a terminal run, a role with no rotation awaiting its acknowledgement
 * and a wrong nonce; else queues a `run_ack` to the controller. Returns the rotation's key.
 */
export async function ackRotation(
  root: string,
  runId: string,
  role: string,
  nonce: string,
  now: Date,
): Promise<string> {
  const { workflow, paths } = readWorkflow(root, runId);
  if (isTerminal(workflow.status))
    fail('refused', `run ${runId} is ${workflow.status}: it takes no acknowledgement`);
  const r = latestRotationOf(readPhase(paths).rotations, role);
  if (r?.cleared_at === undefined || r.acked_at !== undefined)
    fail('refused', `no rotation of ${role} awaits an acknowledgement in run ${runId}`);
  if (r.nonce !== nonce)
    fail('refused', `wrong nonce for the rotation of ${role}: use the one in its run_rotate`);
  await queueSystemHandoff(
    root,
    role,
    {
      to: [workflow.roles.controller],
      priority: '40',
      type: 'run_ack',
      headers: { run_id: runId, key: rotateKeyOf(r), nonce },
      body: `${role} acknowledges its new session for run ${runId}\n`,
    },
    now,
  );
  return rotateKeyOf(r);
}
