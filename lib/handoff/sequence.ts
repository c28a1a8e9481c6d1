// The sender's sequence counter: one file per mailbox holding the last number used.
// Concurrency contract: call under the mailbox's outbox lock. Crash contract: the new
// value is durable (temp file, fsync, rename, directory fsync) before it is used, so a
// number is never handed out twice; a crash after taking one only leaves a gap.
import * as fs from 'node:fs';
import { renameSynced, writeFileSynced, isCode } from '../queue/durable.js';
import { crashPoint } from '../queue/crash.js';
import { fail } from './errors.js';

/** Takes the next sequence number from `seqFile`. */
export function takeSequence(seqFile: string): number {
  let last = 0;
  try {
    const text = fs.readFileSync(seqFile, 'utf8').trim();
    if (!/^\d+$/.test(text)) fail('environment', `swarm_handoff: unreadable sequence file '${seqFile}': ${JSON.stringify(text.slice(0, 20))}`);
    last = Number(text);
  } catch (err) {
    if (!isCode(err, 'ENOENT')) throw err;
  }
  const next = last + 1;
  writeFileSynced(`${seqFile}.tmp`, `${next}\n`, false);
  renameSynced(`${seqFile}.tmp`, seqFile);
  crashPoint('send:sequence-saved');
  return next;
}
