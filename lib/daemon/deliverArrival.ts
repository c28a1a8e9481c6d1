// The copy of a handoff that arrived over the bridge (docs/bridge.md §3, Receive): written
// exactly as a local delivery writes one (recipient and enqueued_at added, body bytes
// unchanged; temp, fsync, link), unless the recipient already holds that id in new/,
// in_process/ (batches included) or completed/: the wire is at-least-once, and this check,
// not the server's duplicate window, is what keeps one copy per (id, recipient). The
// caller fsyncs new/ before it acknowledges the message.
//
// Concurrency contract: called by handoffd's pass only (one at a time, under the daemon
// lock); for a batch-mode recipient the deep search holds its inbox lock, as a local
// repeat delivery does (deliver.ts).
import { join } from 'node:path';
import {
  deliverCopy,
  type Envelope,
  EnvelopeError,
  isItemName,
  MAX_NAME_BYTES,
  parseEnvelope,
  serializeEnvelope,
} from '../queue/index.js';
import { isoOf } from '../fsx/timestamps.js';
import { type Release } from '../fsx/lock.js';
import {
  ensureMailboxesOf,
  lockInboxes,
  recipientsToCopy,
  Refused,
  type DeliveryScope,
} from './deliver.js';

/**
 * What became of an arrival: copied into new/ (not yet fsync'd there); already held (its
 * new/ to fsync too: the earlier copy may not be durable yet); refused for good (content
 * that can never be a handoff); or deferred (this node cannot take it now: the role is not
 * in its roles.tsv yet, or the name is taken by another id; redelivered later).
 */
export type ArrivalOutcome =
  | { kind: 'copied'; id: string; newDir: string }
  | { kind: 'already'; id: string; newDir: string }
  | { kind: 'refused'; reason: string }
  | { kind: 'deferred'; reason: string };

/**
 * Copies the handoff `bytes` named `name` into `role`'s inbox/new/ unless that id is already there.
 */
export async function copyArrival(
  scope: DeliveryScope,
  role: string,
  name: string | undefined,
  bytes: Uint8Array,
  now = new Date(),
): Promise<ArrivalOutcome> {
  if (
    name === undefined ||
    !isItemName(name) ||
    name.includes('/') ||
    Buffer.byteLength(name) > MAX_NAME_BYTES
  )
    return { kind: 'refused', reason: `bad Baton-Name header '${name ?? ''}'` };
  if (!scope.roles.has(role))
    return { kind: 'deferred', reason: `${role} is not in roles.tsv (run baton init)` };
  let envelope: Envelope;
  try {
    envelope = await parseEnvelope(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  } catch (err) {
    if (err instanceof EnvelopeError) return { kind: 'refused', reason: err.message };
    throw err;
  }
  const { headers, body } = envelope;
  const id = headers.id;
  if (!id) return { kind: 'refused', reason: 'no id header' };
  const copy = await serializeEnvelope(
    { ...headers, recipient: role, enqueued_at: isoOf(now) },
    body,
  );
  const box = scope.boxOf?.(role);
  if (!box) throw new Error("copyArrival needs the scope's boxOf");
  let releases: Release[] = [];
  try {
    if (scope.roles.get(role)?.mode !== 'task') releases = lockInboxes(scope, [role]);
    ensureMailboxesOf(scope, [role]);
    const pending = await recipientsToCopy(
      scope,
      { ...envelope, id, name, path: '' },
      [role],
      true,
    );
    if (pending.length === 0) return { kind: 'already', id, newDir: box.inboxNew };
    deliverCopy(join(scope.tmp, `${role}.${name}`), copy, box.inboxNew, name);
    return { kind: 'copied', id, newDir: box.inboxNew };
  } catch (err) {
    if (err instanceof Refused) return { kind: 'deferred', reason: err.message };
    throw err;
  } finally {
    for (const release of releases.reverse()) release();
  }
}
