// How the controller takes an awaited reply (docs/runtime.md §11.2–11.3). A reply is used only
// when it comes from the role asked (its `from` header: the mailbox the queue took it from),
// its artifact is a regular file of the run whose bytes still have the digest the reply
// named, and the file parses for its kind. Otherwise the reply is completed, the sender gets a
// `run_rejected` handoff (the problem, the expected format, the exact command), and the same
// request stays awaited. Unusable replies count per request; the Nth (--reply-attempts,
// default 3) blocks the run with a reason naming the role and the fault. A reply from the
// wrong role is not counted: it was never the awaited role's attempt.
import * as fs from 'node:fs';
import { resolve, sep } from 'node:path';
import { crashPoint } from '../../fsx/crash.js';
import { sha256Hex } from '../../fsx/digests.js';
import { type Item } from '../../queue/index.js';
import { blockStep, providerStep } from '../gates/controllerActions.js';
import { type Workflow } from '../record/workflow.js';
import { awaitedRoleOf } from './awaited.js';
import { sendOnce } from './controllerMail.js';
import { logLine } from './controllerPhase.js';
import { awaitedGenerationOf } from './replyDeadlines.js';
import type { Driver } from './driveStep.js';
import { replyFileProblem, type ReplyKind } from './runReply.js';

/** Unusable replies to one request before the run blocks, unless --reply-attempts says. */
export const DEFAULT_REPLY_ATTEMPTS = 3;

/** The headers of a run_result. */
type Headers = Record<string, string | undefined>;

/** What each kind of reply holds (runtime.md §6), for the rejection's reader. */
const FORMATS: Record<ReplyKind, string> = {
  work: 'a non-empty report of the work',
  question: 'a non-empty question',
  review:
    'JSON {lane, cycle, findings: [{id, severity, title, detail?, location?}]} or lines ' +
    '`FINDING <id> <Severity> <title>`; severity one of Critical, Important, Minor, Nit',
  validation: 'JSON {cycle, findings: [{id, valid: true|false, reason}]}',
  resolution: 'JSON {cycle, resolved: [{id, change, tests}]}',
};

/** Why the reply cannot be used (stale, or its artifact), or undefined. */
async function problemOf(d: Driver, h: Headers): Promise<string | undefined> {
  const awaited = awaitedGenerationOf(d.phase, h.key ?? '');
  const generation = Number(h.generation ?? awaited);
  if (awaited !== undefined && generation < awaited)
    return (
      `it answers generation ${h.generation} of the request, and generation ${awaited} ` +
      `is awaited (a stale reply; answer the newest request)`
    );
  const artifact = h.artifact ?? '';
  const path = resolve(d.paths.dir, artifact);
  if (!artifact.startsWith('artifacts/') || !path.startsWith(`${d.paths.artifacts}${sep}`))
    return `its artifact '${artifact}' is not a file of the run's artifacts/`;
  const stat = fs.lstatSync(path, { throwIfNoEntry: false });
  if (!stat?.isFile()) return `its artifact ${artifact} is missing or not a regular file`;
  const bytes = fs.readFileSync(path);
  if (h.sha256 !== sha256Hex(bytes))
    return `its artifact ${artifact} changed since the reply (sha256 differs)`;
  const text = bytes.toString('utf8');
  return replyFileProblem(h.kind as ReplyKind, text, Number(h.cycle), h.lane);
}

/** The command that answers this request. */
function replyCommand(wf: Workflow, h: Headers): string {
  const lane = h.lane ? ` --lane ${h.lane}` : '';
  return (
    `baton run reply ${wf.run_id} --kind ${h.kind} --stage ${h.stage} --cycle ${h.cycle}` +
    `${lane} --file FILE`
  );
}

/** Completes nothing itself: tells the sender why its reply was not used. */
async function sendRejection(
  d: Driver,
  wf: Workflow,
  [item, h]: [Item, Headers],
  problem: string,
): Promise<void> {
  const kind = h.kind as ReplyKind;
  const body =
    `Your ${kind} reply ${item.id} for run ${wf.run_id}, stage ${h.stage}, cycle ${h.cycle} ` +
    `was not used: ${problem}.\n\nExpected: ${FORMATS[kind] ?? 'see docs/runtime.md §6'}.\n` +
    `Write the file in your worktree, then reply with:\n  ${replyCommand(wf, h)}\n`;
  await sendOnce(
    d.ctx.root,
    wf,
    d.phase,
    {
      key: `${h.key}/rejected/${item.id}`,
      to: h.from ?? '',
      type: 'run_rejected',
      headers: { stage: h.stage ?? '', kind, rejected: item.id, reply_key: h.key ?? '' },
      body,
    },
    new Date(),
  );
}

/**
 * Takes an awaited reply into the phase, or rejects it (run_rejected to the sender; the Nth
 * unusable reply to one request blocks the run). Returns what it logged.
 */
export async function takeAwaitedReply(
  d: Driver,
  wf: Workflow,
  item: Item,
  attempts: number,
): Promise<string> {
  const h = item.headers as Headers;
  const key = h.key!;
  const role = awaitedRoleOf(wf, h.kind ?? '', h.lane);
  const what = `${h.kind}${h.lane ? ` ${h.lane}` : ''} of ${h.from} for cycle ${h.cycle}`;
  if (h.from !== role) {
    await sendRejection(d, wf, [item, h], `${h.from} is not asked for it: ${role} is`);
    return `REJECTED wrong-role: ${what}: ${role} is asked for it`;
  }
  const problem = await problemOf(d, h);
  if (problem === undefined) {
    d.phase.replies[key] = h.artifact!;
    d.phase.awaiting = d.phase.awaiting?.filter((a) => a.key !== key);
    // A role that answered after missed deadlines has its provider failures cleared.
    if (wf.provider_attempts > 0)
      await providerStep(d.ctx, d.runId, d.token, { name: role }).catch(() => undefined);
    const kind = `${h.kind}${h.lane ? ` ${h.lane}` : ''}`;
    return `REPLY: ${kind} of ${h.from} for stage ${h.stage}, cycle ${h.cycle}: ${h.artifact}`;
  }
  const rejections = (d.phase.rejections ??= {});
  rejections[key] = (rejections[key] ?? 0) + 1;
  await sendRejection(d, wf, [item, h], problem);
  crashPoint('drive:rejection-sent');
  if (rejections[key] !== attempts)
    return `REJECTED unusable (${rejections[key]} of ${attempts}): ${what}: ${problem}`;
  const reason =
    `${role}'s ${h.kind} for cycle ${h.cycle} was unusable ${attempts} times: ` + problem;
  logLine(d.paths, `BLOCKING: ${reason}`);
  await blockStep(d.ctx, d.runId, d.token, reason);
  return `BLOCKED: ${reason}`;
}
