// Claim fixtures: a bare mailbox (no project, no roles) whose inbox/new/ holds N waiting
// items and whose inbox/completed/ holds M finished ones, written straight with node:fs.
// Every claim takes the first item in name order. Before each timed claim `placeFirst`
// puts that item in new/ (with the bytes the contender needs) and after it `dropClaimed`
// removes the claimed copy, both synced, so every timed claim sees the same inbox and
// pays for no one else's writes.
import * as fs from 'node:fs';
import { join } from 'node:path';
import { serializeEnvelope, type Headers } from '../../lib/queue/envelope.js';
import { ensureMailbox, mailboxAt, type Mailbox } from '../../lib/queue/mailbox.js';
import { tempDir } from '../../test/support/project.js';
import { rawFsyncDir } from './baselines.js';
import { placeSynced } from './fixtureWrites.js';

/** A mailbox prepared for claim timings. */
export interface ClaimInbox {
  box: Mailbox;
  /** Name of the item every claim takes (first in name order). */
  firstName: string;
  /** Its bytes as delivered (no dequeued_at). */
  firstBytes: Buffer;
  /** Its bytes with dequeued_at already set, so a library claim skips the stamp. */
  firstBytesStamped: Buffer;
  cleanup: () => void;
}

function headersOf(seq: number): { name: string; headers: Headers } {
  const id = `20260101T000000Z_${String(seq).padStart(6, '0')}_from_coder`;
  const headers: Headers = {
    id,
    from: 'coder',
    to: 'reviewer',
    recipient: 'reviewer',
    priority: '50',
    type: 'note',
    message: `item ${seq}`,
    created_at: '2026-01-01T00:00:00.000Z',
    enqueued_at: '2026-01-01T00:00:01.000Z',
  };
  return { name: `50_${id}_to_reviewer.handoff`, headers };
}

const BODY = Buffer.from('Re-read your role and constitution.\n\nitem\n');
const DEQUEUED = { dequeued_at: '2026-01-01T00:00:02.000Z' };

/**
 * A mailbox with `waiting` items in inbox/new/ and `completed` items in inbox/completed/.
 * Completed items are hard links of one finished file: a claim never reads completed/, only
 * the directory's size can matter, and links keep a 10,000-entry fixture cheap to build.
 */
export async function makeClaimInbox(waiting: number, completed = 0): Promise<ClaimInbox> {
  const dir = tempDir('baton-bench-');
  const box = mailboxAt(join(dir, 'reviewer'));
  ensureMailbox(box);
  for (let seq = 1; seq <= waiting; seq++) {
    const { name, headers } = headersOf(seq);
    fs.writeFileSync(join(box.inboxNew, name), await serializeEnvelope(headers, BODY), {
      mode: 0o600,
    });
  }
  if (completed > 0) {
    const original = join(dir, 'finished.handoff');
    const { headers } = headersOf(100_000);
    fs.writeFileSync(
      original,
      await serializeEnvelope(
        { ...headers, ...DEQUEUED, completed_at: '2026-01-01T00:00:03.000Z' },
        BODY,
      ),
      { mode: 0o600 },
    );
    for (let seq = 100_000; seq < 100_000 + completed; seq++)
      fs.linkSync(original, join(box.completed, headersOf(seq).name));
  }
  const first = headersOf(1);
  return {
    box,
    firstName: first.name,
    firstBytes: await serializeEnvelope(first.headers, BODY),
    firstBytesStamped: await serializeEnvelope({ ...first.headers, ...DEQUEUED }, BODY),
    cleanup: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}

/** Puts the first item in new/ with `bytes` (replacing it if there), synced; untimed. */
export function placeFirst(inbox: ClaimInbox, bytes: Buffer): void {
  placeSynced(join(inbox.box.inboxNew, inbox.firstName), bytes);
}

/** Removes the claimed copy from in_process/, synced; untimed. */
export function dropClaimed(inbox: ClaimInbox): void {
  fs.unlinkSync(join(inbox.box.inProcess, inbox.firstName));
  rawFsyncDir(inbox.box.inProcess);
}
