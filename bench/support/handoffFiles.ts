// Handoff files as swarm_handoff writes them (protocol §3, §4): a name from the priority,
// id and recipients, front matter with id/from/to/priority/type/message/created_at, the
// usual body; written to outbox/tmp/ and renamed into outbox/ for the daemon figures.
import * as fs from 'node:fs';
import { join } from 'node:path';
import { serializeEnvelope } from '../../lib/queue/envelope.js';
import { type Mailbox } from '../../lib/queue/mailbox.js';
import { handoffFileName, handoffId, tsidOf } from '../../lib/queue/names.js';
import { isoOf } from '../../lib/fsx/timestamps.js';
import { rawFsyncDir } from './baselines.js';

/** One handoff file: its name and bytes. */
export interface HandoffFile {
  name: string;
  bytes: Buffer;
}

/** The `seq`th note from `sender` to `recipients`, created now. */
export async function handoffFile(
  seq: number,
  sender: string,
  recipients: string[],
): Promise<HandoffFile> {
  const now = new Date();
  const id = handoffId(tsidOf(now), seq, sender);
  const headers = {
    id,
    from: sender,
    to: recipients.join(','),
    priority: '50',
    type: 'note',
    message: `benchmark note ${seq}`,
    created_at: isoOf(now),
  };
  const body = Buffer.from(`Re-read your role and constitution.\n\nbenchmark note ${seq}\n`);
  return {
    name: handoffFileName('50', id, recipients),
    bytes: await serializeEnvelope(headers, body),
  };
}

/** Writes a handoff to `outbox/tmp/<name>.tmp` and fsyncs it (untimed); returns the function that publishes it. */
export function stageHandoff(box: Mailbox, file: HandoffFile): () => void {
  const temp = join(box.outboxTmp, `${file.name}.tmp`);
  const fd = fs.openSync(temp, 'wx', 0o600);
  try {
    fs.writeFileSync(fd, file.bytes);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  return () => fs.renameSync(temp, join(box.outbox, file.name));
}

/**
 * Writes a backlog to outbox/tmp/ (no fsync per file: callers sync once, untimed) and
 * returns the function that renames every file into outbox/, in order, and syncs outbox/.
 */
export function stageBacklog(box: Mailbox, files: HandoffFile[]): () => void {
  for (const file of files)
    fs.writeFileSync(join(box.outboxTmp, `${file.name}.tmp`), file.bytes, {
      mode: 0o600,
      flag: 'wx',
    });
  return () => {
    for (const file of files)
      fs.renameSync(join(box.outboxTmp, `${file.name}.tmp`), join(box.outbox, file.name));
    rawFsyncDir(box.outboxTmp);
    rawFsyncDir(box.outbox);
  };
}

/** Queues a backlog straight into outbox/ (tmp + rename each), syncing the directories once at the end. */
export function queueBacklog(box: Mailbox, files: HandoffFile[]): void {
  stageBacklog(box, files)();
}
