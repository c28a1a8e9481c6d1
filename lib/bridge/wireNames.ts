// The names the bridge uses on the NATS server (docs/bridge.md §2): one stream per swarm,
// one subject and one durable consumer per role, one KV bucket of role owners, and the
// message id that makes a repeated publish of the same (handoff, recipient) a duplicate.
// Pure functions: nothing here loads the NATS client.

/** The stream of a swarm: `BATON_<SWARM>` (upper-cased, `-` → `_`). */
export function streamNameOf(swarm: string): string {
  return `BATON_${swarm.toUpperCase().replace(/-/g, '_')}`;
}

/** Every role's subject of a swarm, as the stream's subject filter. */
export function streamSubjectsOf(swarm: string): string {
  return `baton.${swarm}.inbox.*`;
}

/** The subject a handoff for `role` is published to. */
export function subjectOf(swarm: string, role: string): string {
  return `baton.${swarm}.inbox.${role}`;
}

/** The durable pull consumer of `role`. */
export function consumerNameOf(role: string): string {
  return `baton_${role}`;
}

/** The KV bucket that holds each role's owner lease. */
export function ownersBucketOf(swarm: string): string {
  return `baton_${swarm}_owners`;
}

/**
 * The KV bucket of receipts: a node puts one per copy it made (or found held) from the wire, and
 * the sending node reads them to know which of its publishes arrived.
 */
export function receiptsBucketOf(swarm: string): string {
  return `baton_${swarm}_receipts`;
}

/** The receipt key of one (handoff, recipient) pair (roles and ids are subject-safe). */
export function receiptKeyOf(id: string, role: string): string {
  return `${role}.${id}`;
}

/**
 * The `Nats-Msg-Id` of one (handoff, recipient) pair; the `resend`th publish again of a pair whose
 * message vanished from the server carries a new one (the server's duplicate window must not drop
 * it).
 */
export function messageIdOf(id: string, role: string, resend = 0): string {
  return resend === 0 ? `${id}:${role}` : `${id}:${role}:${resend}`;
}

/**
 * The bytes one handoff takes against the server's max_payload when published to `role`:
 * the file's bytes and the header block the client sends with them (NATS/1.0, then
 * Nats-Msg-Id, Baton-Name and Baton-From lines, then a blank line).
 */
export function wireSizeOf(
  role: string,
  handoff: { id: string; name: string; from: string; bytes: Uint8Array },
): number {
  const headers =
    `NATS/1.0\r\nNats-Msg-Id: ` +
    `${messageIdOf(handoff.id, role)}\r\nBaton-Name: ` +
    `${handoff.name}\r\nBaton-From: ${handoff.from}\r\n\r\n`;
  return Buffer.byteLength(headers) + handoff.bytes.length;
}
