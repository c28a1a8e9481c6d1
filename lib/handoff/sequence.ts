// The sender's sequence counter `handoffs/<role>/sequence`: the last number used.
// Concurrency contract: call under the mailbox's outbox lock. Crash contract: the new
// value is durable (temp file, fsync, rename, directory fsync) before it is used, so a
// number is never handed out twice; a crash after taking one only leaves a gap. A missing
// or unreadable counter is rebuilt from the highest sequence among the sender's own ids.
import { type Mailbox, readItemsIn, type SkipReporter } from '../queue/index.js';
import { stagePublishWhole, type StagedWrite, writeStaged } from '../fsx/durable.js';
import { readTextIfPresent } from '../fsx/absent.js';

function storedSequence(seqFile: string): number | undefined {
  const text = readTextIfPresent(seqFile)?.trim();
  return text !== undefined && /^\d+$/.test(text) ? Number(text) : undefined;
}

/**
 * The highest sequence among the ids of the sender's handoffs in outbox/, sent/ and failed/ (0 if
 * none).
 */
export async function highestSequenceIn(
  box: Mailbox,
  onSkip: SkipReporter = () => undefined,
): Promise<number> {
  let highest = 0;
  for (const dir of [box.outbox, box.sent, box.failed]) {
    for (const item of await readItemsIn(dir, onSkip)) {
      const seq = /^\d{8}T\d{6}Z_(\d+)_from_/.exec(item.id)?.[1];
      if (seq !== undefined) highest = Math.max(highest, Number(seq));
    }
  }
  return highest;
}

/** The last sequence number the mailbox's sender used (the counter, else rebuilt from its ids). */
export async function lastSequence(box: Mailbox, onSkip?: SkipReporter): Promise<number> {
  return storedSequence(box.seqFile) ?? (await highestSequenceIn(box, onSkip));
}

/**
 * The counter set to `last` as a staged write (durable.ts): its temp file, written with others,
 * then published (renamed, its folder fsync'd) before any of the numbers it takes is used.
 */
export function stageSequence(box: Mailbox, last: number): StagedWrite {
  return stagePublishWhole(box.seqFile, `${last}\n`, { published: 'send:sequence-saved' });
}

/**
 * Takes the next `count` sequence numbers of the mailbox's sender (one write of the counter);
 * returns the first.
 */
export async function takeSequence(
  box: Mailbox,
  onSkip?: SkipReporter,
  count = 1,
): Promise<number> {
  const last = await lastSequence(box, onSkip);
  writeStaged(stageSequence(box, last + count));
  return last + 1;
}
