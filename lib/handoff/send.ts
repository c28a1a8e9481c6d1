// swarm_handoff (protocol §6): validate a draft, then queue it in the sender's outbox.
//
// Concurrency contract: validation runs unlocked; taking the sequence number and
// publishing run under the sender's outbox lock.
//
// Crash contract: the handoff is written to outbox/tmp/<name>.tmp and fsync'd, then a
// journal record `outbox/tmp/<name>.draft` names the draft (path and sha256 of its
// bytes); only then is the handoff renamed into outbox/ and the draft deleted. A retry
// after a crash finds the record for the same draft and finishes that send instead of
// queuing a second copy, so a draft is queued at most once and never lost: if it was not
// published, the temp file is published now.
//
// Queuing needs no daemon, but nothing delivers without one: when handoffd is not running
// the send still succeeds and says so in one warning line (a readdir of the daemon's lock
// and a /proc read, cheap enough for every call).
import * as fs from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import {
  ensureMailbox,
  handoffFileName,
  handoffId,
  type Headers,
  type Mailbox,
  serializeEnvelope,
  type SkipReporter,
  tsidOf,
} from '../queue/index.js';
import { isoOf } from '../fsx/timestamps.js';
import { crashPoint } from '../fsx/crash.js';
import { sha256Hex } from '../fsx/digests.js';
import { fsyncDir, renameSynced, unlinkSynced, writeFileSynced } from '../fsx/durable.js';
import { isCode } from '../fsx/absent.js';
import { withLock } from '../fsx/lock.js';
import { printable } from '../fsx/printable.js';
import { bodyOf } from './body.js';
import { commitLookupIn } from './commit.js';
import { actingContext, type Context } from './context.js';
import { DAEMON_NOT_RUNNING, runningDaemon } from '../project/daemonRecord.js';
import { invalidDraftLines, validateDraft, type Draft } from './draft.js';
import { fail, CommandFailure } from '../fsx/commandFailure.js';
import { mailboxOf } from '../project/layout.js';
import { takeSequence } from './sequence.js';

interface DraftIdentity {
  path: string;
  dev: number;
  ino: number;
  size: number;
  mtimeMs: number;
  sha256: string;
}

interface JournalRecord extends DraftIdentity {
  name: string;
}

function identify(path: string, bytes: Buffer, stat: fs.Stats): DraftIdentity {
  return {
    path,
    dev: stat.dev,
    ino: stat.ino,
    size: stat.size,
    mtimeMs: stat.mtimeMs,
    sha256: sha256Hex(bytes),
  };
}

/** Reports a warning line for stderr (a send that succeeded but will not be delivered yet). */
export type WarningReporter = (line: string) => void;

/** The stdout line of a queued handoff; warns when no handoffd runs to deliver it. */
function queuedLine(root: string, queued: string, onWarning: WarningReporter): string {
  if (runningDaemon(root) === undefined) onWarning(DAEMON_NOT_RUNNING);
  return `HANDOFF QUEUED: ${queued}\n`;
}

/** Queues the draft at `draftArg`; returns the stdout line `HANDOFF QUEUED: <path>`. */
export async function sendHandoff(
  draftArg: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
  onSkip: SkipReporter = () => undefined,
  now = new Date(),
  onWarning: WarningReporter = () => undefined,
): Promise<string> {
  const draftPath = resolve(cwd, draftArg);
  let stat: fs.Stats | undefined;
  try {
    stat = fs.statSync(draftPath);
  } catch {
    stat = undefined;
  }
  if (!stat?.isFile()) return finishInterruptedSend(draftArg, draftPath, cwd, env, onWarning);
  const ctx = actingContext(cwd, env, 'sender role');
  const bytes = fs.readFileSync(draftPath);
  const draftId = identify(draftPath, bytes, stat);
  const result = await validateDraft(
    bytes.toString('utf8'),
    new Set(ctx.table.roles.keys()),
    commitLookupIn(ctx.role.worktreePath),
  );
  if (!result.ok) fail('invalid', ...invalidDraftLines(draftArg, result.errors, result.hints));
  const box = mailboxOf(ctx.root, ctx.role.role);
  ensureMailbox(box);
  const queued = await withLock(box.outboxLock, async () => {
    const earlier = journalFor(box, draftId);
    if (earlier) return completeSend(box, earlier);
    if (!sameDraftStill(draftId)) fail('usage', `Draft file not found: ${printable(draftArg)}`);
    discardSupersededSends(box, draftPath);
    return publish(ctx, box, result.draft, draftId, now, onSkip);
  });
  return queuedLine(ctx.root, queued, onWarning);
}

/**
 * With no draft file: finish a send of that path cut short after the draft was deleted, or report
 * it missing.
 */
async function finishInterruptedSend(
  draftArg: string,
  draftPath: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
  onWarning: WarningReporter,
): Promise<string> {
  const missing = new CommandFailure('usage', [`Draft file not found: ${printable(draftArg)}`]);
  let ctx: Context;
  try {
    ctx = actingContext(cwd, env, 'sender role');
  } catch {
    throw missing;
  }
  const box = mailboxOf(ctx.root, ctx.role.role);
  if (!fs.existsSync(box.outboxTmp)) throw missing;
  const queued = await withLock(box.outboxLock, async () => {
    const record = readJournal(box).find((r) => r.path === draftPath);
    return record ? completeSend(box, record) : undefined;
  });
  if (queued === undefined) throw missing;
  return queuedLine(ctx.root, queued, onWarning);
}

/**
 * True when the draft on disk is still the one validated (a doubled call may have sent and deleted
 * it).
 */
function sameDraftStill(draft: DraftIdentity): boolean {
  try {
    const stat = fs.statSync(draft.path);
    return (
      stat.isFile() &&
      identify(draft.path, fs.readFileSync(draft.path), stat).sha256 === draft.sha256 &&
      stat.ino === draft.ino &&
      stat.mtimeMs === draft.mtimeMs
    );
  } catch {
    return false;
  }
}

function journalPathOf(box: Mailbox, name: string): string {
  return join(box.outboxTmp, `${name}.draft`);
}

function readJournal(box: Mailbox): JournalRecord[] {
  const records: JournalRecord[] = [];
  for (const name of fs.readdirSync(box.outboxTmp)) {
    if (!name.endsWith('.handoff.draft')) continue;
    try {
      records.push(JSON.parse(fs.readFileSync(join(box.outboxTmp, name), 'utf8')) as JournalRecord);
    } catch {
      // a record torn by a crash before its fsync was never acted on: ignore it
    }
  }
  return records;
}

/**
 * The record of an interrupted send of this draft: same path and same bytes. Content, not
 * inode, decides: an agent that rewrites the same draft after a crash is retrying, and a
 * record only outlives its send when that send was cut short.
 */
function journalFor(box: Mailbox, draft: DraftIdentity): JournalRecord | undefined {
  return readJournal(box).find((r) => r.path === draft.path && r.sha256 === draft.sha256);
}

/**
 * Drops records of earlier sends of this draft path whose draft has since been replaced:
 * the agent never saw them queued and is sending anew, so publishing the old one would
 * duplicate it. A record whose handoff was already published only lost its clean-up.
 */
function discardSupersededSends(box: Mailbox, draftPath: string): void {
  for (const record of readJournal(box)) {
    if (record.path !== draftPath) continue;
    unlinkSynced(join(box.outboxTmp, `${record.name}.tmp`));
    unlinkSynced(journalPathOf(box, record.name));
  }
}

/**
 * Publishes the handoff of a journal record if it is still a temp file, then removes the draft and
 * the record.
 */
function completeSend(box: Mailbox, record: JournalRecord): string {
  const temp = join(box.outboxTmp, `${record.name}.tmp`);
  const target = join(box.outbox, record.name);
  if (fs.existsSync(temp)) renameSynced(temp, target);
  removeDraft(record.path);
  unlinkSynced(journalPathOf(box, record.name));
  return target;
}

function removeDraft(path: string): void {
  try {
    fs.unlinkSync(path);
    fsyncDir(dirname(path));
  } catch (err) {
    if (!isCode(err, 'ENOENT')) throw err;
  }
}

async function publish(
  ctx: Context,
  box: Mailbox,
  draft: Draft,
  draftId: DraftIdentity,
  now: Date,
  onSkip: SkipReporter,
): Promise<string> {
  const sender = ctx.role.role;
  const seq = await takeSequence(box, onSkip);
  const id = handoffId(tsidOf(now), seq, sender);
  const name = handoffFileName(draft.priority, id, draft.to);
  const headers: Headers = {
    id,
    from: sender,
    to: draft.to.join(','),
    priority: draft.priority,
    type: draft.type,
    ...(draft.type === 'git_handoff'
      ? { role: sender, task: draft.task!, commit: draft.commit! }
      : { message: draft.message! }),
    created_at: isoOf(now),
  };
  const temp = join(box.outboxTmp, `${name}.tmp`);
  writeFileSynced(temp, await serializeEnvelope(headers, bodyOf(ctx.root, sender, draft)), true);
  crashPoint('send:temp-synced');
  const record: JournalRecord = { ...draftId, name };
  writeFileSynced(journalPathOf(box, name), JSON.stringify(record), true);
  fsyncDir(box.outboxTmp);
  crashPoint('send:journal-synced');
  const target = join(box.outbox, name);
  fs.renameSync(temp, target);
  crashPoint('send:published');
  fsyncDir(box.outbox);
  // outbox/tmp/ is fsync'd once, with the journal's removal below: a crash before that may
  // bring the temp back beside its journal, and recovery (completeSend) renames it again.
  removeDraft(draftId.path);
  crashPoint('send:draft-removed');
  unlinkSynced(journalPathOf(box, name));
  return target;
}
