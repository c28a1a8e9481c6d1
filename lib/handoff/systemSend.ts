// Handoffs that Baton itself writes (the review stage's requests and results, later the run
// controller's messages): queued from a role's mailbox through the same steps as
// swarm_handoff (sequence number, temp file, fsync, rename into outbox/, folder fsync), but
// with the writer's own headers and body instead of a validated draft. handoffd delivers
// them like any other handoff. Types written here are never accepted in an agent's draft.
//
// Concurrency contract: runs under the sender's outbox lock, like swarm_handoff.
// Crash contract: a kill before the rename leaves only a temp file (swept after 36 h, or
// rewritten by the next send when its counter was not published yet) and nothing queued;
// the caller's recovery (e.g. `baton review resume`) finds the handoff missing and queues
// it again. After the rename it is queued exactly once. Several sent
// together are renamed one after the other and made durable together: a kill between
// leaves some queued, and the caller's recovery queues the rest. outbox/tmp/ is not
// fsync'd after the renames: no recovery here renames a temp (unlike swarm_handoff's
// journal), so a temp name a crash might bring back is only a leftover, never delivered
// and swept after 36 h; the handoff itself is durable once outbox/ is fsync'd.
import * as fs from 'node:fs';
import { join } from 'node:path';
import { crashPoint } from '../fsx/crash.js';
import { type FileToWrite, fsyncDir, type StagedWrite, writeThenPublish } from '../fsx/durable.js';
import {
  ensureMailbox,
  handoffFileName,
  handoffId,
  type Headers,
  serializeEnvelope,
  tsidOf,
} from '../queue/index.js';
import { isoOf } from '../fsx/timestamps.js';
import { withLock } from '../fsx/lock.js';
import { mailboxOf } from '../project/layout.js';
import { lastSequence, stageSequence } from './sequence.js';

/** What a system handoff says: recipients, priority, type, the writer's headers and the body. */
export interface SystemHandoff {
  to: string[];
  priority: string;
  type: string;
  headers: Headers;
  body: string | Buffer;
}

/** Queues a system handoff from `sender`'s mailbox; returns its outbox path. */
export async function queueSystemHandoff(
  root: string,
  sender: string,
  handoff: SystemHandoff,
  now = new Date(),
): Promise<string> {
  return (await queueSystemHandoffs(root, sender, [handoff], now))[0]!;
}

/**
 * Queues system handoffs from `sender`'s mailbox, in order; returns their outbox paths. One
 * outbox lock and one write of the sequence counter for all. The counter's temp and each
 * handoff's temp in outbox/tmp/ are written and fsync'd together; then the counter is published
 * (a number is durable before it is used), then the handoffs are renamed into outbox/, which is
 * fsync'd once: a writer that sends several at once (a review's two requests) pays the
 * counter's and the folder's fsyncs once, and no file's fsync waits for another's.
 */
export async function queueSystemHandoffs(
  root: string,
  sender: string,
  handoffs: readonly SystemHandoff[],
  now = new Date(),
  before: readonly StagedWrite[] = [],
): Promise<string[]> {
  if (handoffs.length === 0) return [];
  const box = mailboxOf(root, sender);
  ensureMailbox(box);
  return withLock(box.outboxLock, async () => {
    const last = await lastSequence(box);
    const first = last + 1;
    const files: FileToWrite[] = [];
    const moves: [string, string][] = [];
    for (const [i, handoff] of handoffs.entries()) {
      const id = handoffId(tsidOf(now), first + i, sender);
      const name = handoffFileName(handoff.priority, id, handoff.to);
      const headers: Headers = {
        ...handoff.headers,
        id,
        from: sender,
        to: handoff.to.join(','),
        priority: handoff.priority,
        type: handoff.type,
        created_at: isoOf(now),
      };
      const temp = join(box.outboxTmp, `${name}.tmp`);
      const data = await serializeEnvelope(headers, Buffer.from(handoff.body));
      // Not exclusive: a temp of this name is left by a send killed before its counter was
      // published (the number is handed out again), never by one whose handoff is queued.
      files.push({ path: temp, data, exclusive: false });
      moves.push([temp, join(box.outbox, name)]);
    }
    await writeThenPublish([
      ...before,
      stageSequence(box, last + handoffs.length),
      {
        files,
        publish: () => {
          for (const _ of moves) crashPoint('system-send:temp-synced');
          for (const [temp, target] of moves) fs.renameSync(temp, target);
          fsyncDir(box.outbox);
        },
      },
    ]);
    crashPoint('system-send:published');
    return moves.map(([, target]) => target);
  });
}
