// Role ownership across nodes (docs/bridge.md §3): before a node consumes a role it holds
// that role's lease in the owners' KV bucket, so two handoffds never consume one role
// (two consumers of one role on two machines would put copies in two inboxes).
//
// Concurrency contract: every change is a compare-and-set on the key's revision: `create`
// succeeds for one node only, `update(rev)` only if nobody wrote since `rev`. The value is
// the node's name, so a restarted handoffd takes its own node's lease back at once. A
// lease held by another node is taken over only when its revision has not moved for the
// expiry, measured on this node's own clock (no comparison of two machines' clocks).
import { type KV } from '@nats-io/kv';
import { type BridgeSettings } from './bridgeSettings.js';

/** True when a create failed because the key exists (the server's "wrong last sequence"). */
function isTaken(err: unknown): boolean {
  const { code, message } = err as { code?: unknown; message?: unknown };
  return code === 10071 || code === 10164 || /wrong last sequence/i.test(String(message));
}

/** Why a lease was not taken, or undefined when it is held. */
export type LeaseRefusal = { holder: string } | undefined;

/** The owner leases of one node. */
export class RoleLeases {
  /** The revision this node holds, per role. */
  private readonly held = new Map<string, number>();
  /** Another node's revision and when this node first saw it, per role. */
  private readonly seen = new Map<string, { revision: number; since: number }>();

  constructor(
    private readonly kv: KV,
    private readonly node: string,
    private readonly settings: BridgeSettings,
  ) {}

  /** True while this node holds `role`'s lease (as of its last take or renewal). */
  holds(role: string): boolean {
    return this.held.has(role);
  }

  /** Takes or renews `role`'s lease; returns the holder when another node keeps it. */
  async claim(role: string, now = Date.now()): Promise<LeaseRefusal> {
    const revision = this.held.get(role);
    if (revision !== undefined) {
      try {
        this.held.set(role, await this.kv.update(role, this.node, revision));
        return undefined;
      } catch {
        this.held.delete(role);
      }
    }
    return this.take(role, now);
  }

  private async take(role: string, now: number): Promise<LeaseRefusal> {
    try {
      this.held.set(role, await this.kv.create(role, this.node));
      return undefined;
    } catch (err) {
      // Taken (the key has a revision): look at the holder below. Any other failure (a
      // timeout while the bucket elects a leader) says nothing about a holder: the claim fails
      // and is tried again, rather than refused as held by nobody known.
      if (!isTaken(err)) throw err;
    }
    const entry = await this.kv.get(role);
    // Gone between the create and the get (a release): the next claim creates it.
    if (!entry) return { holder: 'unknown' };
    if (entry.operation !== 'PUT') {
      this.held.set(role, await this.kv.update(role, this.node, entry.revision));
      return undefined;
    }
    const holder = entry.string();
    const seen = this.seen.get(role);
    if (seen?.revision !== entry.revision)
      this.seen.set(role, { revision: entry.revision, since: now });
    const stale =
      seen?.revision === entry.revision && now - seen.since >= this.settings.leaseExpiryMs;
    if (holder !== this.node && !stale) return { holder };
    this.held.set(role, await this.kv.update(role, this.node, entry.revision));
    this.seen.delete(role);
    return undefined;
  }
}
