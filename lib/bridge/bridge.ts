// handoffd's bridge to other nodes (docs/bridge.md §3), the only part of handoffd that
// loads the NATS client (handoffd imports this module only when the project has a
// roster). It publishes handoffs for remote recipients and hands the daemon the
// messages that arrive for local roles; the daemon writes every copy (the files stay the
// truth) and acknowledges a message only after its copy is durable.
//
// Concurrency contract: one bridge per handoffd (which holds the daemon lock). A role is
// consumed only by the node the roster gives it to, and only while that node holds the
// role's lease (roleLeases.ts); every refusal is logged with the role. Arrivals are only
// queued here; the daemon's loop takes them between passes, so a copy never races a
// delivery pass.
import { type ConsumerMessages, type JsMsg } from '@nats-io/jetstream';
import { headers as natsHeaders } from '@nats-io/transport-node';
import { type Roster } from '../handoff/roster.js';
import { BridgeLink, type Wire } from './bridgeLink.js';
import { writeBridgeReport } from './bridgeReport.js';
import { type BridgeSettings } from './bridgeSettings.js';
import { RoleLeases } from './roleLeases.js';
import { consumerNameOf, messageIdOf, streamNameOf, subjectOf } from './wireNames.js';

/** A message for a local role: its copy is written by the daemon, then it is acknowledged. */
export interface Arrival {
  role: string;
  /** The sender's file name (the Baton-Name header). */
  name: string | undefined;
  bytes: Uint8Array;
  /** Acknowledges, and waits for the server's confirmation (double ack). */
  ack(): Promise<void>;
  /** Refuses a message that can never be delivered (the server will not redeliver it). */
  refuse(reason: string): void;
}

/** One handoff to publish to one remote recipient. */
export interface Outgoing {
  id: string;
  name: string;
  from: string;
  bytes: Uint8Array;
}

/** Where the bridge reports to (handoffd). */
export interface BridgeHost {
  log: (event: 'bridge-connected' | 'bridge-error' | 'bridge-refused', details: Record<string, string>) => void;
  /** A pass should run now (messages arrived, the link came up, a backoff ended). */
  notify: () => void;
}

/** What the bridge needs. */
export interface BridgeConfig {
  roster: Roster;
  node: string;
  /** The credentials file's content ('' without one). */
  credentials: string;
  settings: BridgeSettings;
  /** bridge.json's path. */
  reportPath: string;
}

/**
 * Room kept for the message's headers under the server's max_payload (the limit counts
 * them): the Nats-Msg-Id, Baton-Name and Baton-From of a Baton handoff take a few hundred
 * bytes, so a handoff that fits the check before any copy is made also fits on the wire.
 */
export const HEADER_ROOM = 1024;

/** The .error text of a handoff over the limit. */
function tooLargeReason(bytes: number, limit: number): string {
  return `too large for the bridge: ${bytes} bytes is over its limit of ${limit - HEADER_ROOM} (the server's max_payload of ${limit} less room for the headers)`;
}

/** What became of a publish: stored by the server (a duplicate counts), or refused for good because it is too large. */
export type PublishOutcome = { kind: 'stored' } | { kind: 'too-large'; reason: string };

/** The bridge of one handoffd. */
export class Bridge {
  private readonly link: BridgeLink;
  private readonly consuming = new Map<string, ConsumerMessages>();
  private arrivals: Arrival[] = [];
  private leases: RoleLeases | undefined;
  private leaseTimer: NodeJS.Timeout | undefined;
  private reportTimer: NodeJS.Timeout | undefined;
  /** Per role, the node whose lease refused this one (logged once per holder). */
  private readonly refusedBy = new Map<string, string>();
  /** True while claimRoles runs (a slow server must not start a second run beside it). */
  private claiming = false;
  private backoffUntil = 0;
  private backoffMs = 0;
  private lastMaxPayload: number | undefined;
  readonly localRoles: string[];

  constructor(private readonly config: BridgeConfig, private readonly host: BridgeHost) {
    this.localRoles = config.roster.nodes.get(config.node) ?? [];
    this.link = new BridgeLink({
      urls: config.roster.urls, swarm: config.roster.swarm, node: config.node, roles: this.localRoles,
      credentials: config.credentials, settings: config.settings, log: host.log,
      onUp: (wire) => this.up(wire), onDown: () => this.down(),
    });
  }

  /** Starts connecting in the background and writes the first report. */
  start(): void {
    this.link.start();
    this.reportTimer = setInterval(() => void this.report(), this.config.settings.countsIntervalMs);
    this.reportTimer.unref();
    void this.report();
  }

  /** True when the roster puts `role` on another node. */
  isRemote(role: string): boolean {
    const node = this.config.roster.nodeOfRole.get(role);
    return node !== undefined && node !== this.config.node;
  }

  /** True when a publish may be tried now (connected and not backing off). */
  canPublish(now = Date.now()): boolean {
    return this.link.connected && now >= this.backoffUntil;
  }

  /** The largest handoff file the bridge takes, once the server's limit is known: its max_payload less HEADER_ROOM. */
  maxPayload(): number | undefined {
    const limit = this.link.wire?.maxPayload ?? this.lastMaxPayload;
    return limit === undefined ? undefined : limit - HEADER_ROOM;
  }

  /** Publishes one handoff to one remote role; resolves when the server has stored it; throws on a temporary failure. */
  async publish(role: string, handoff: Outgoing): Promise<PublishOutcome> {
    const wire = this.link.wire;
    if (!wire) throw new Error('not connected');
    const limit = wire.maxPayload;
    if (handoff.bytes.length > limit - HEADER_ROOM) return { kind: 'too-large', reason: tooLargeReason(handoff.bytes.length, limit) };
    const h = natsHeaders();
    h.set('Baton-Name', handoff.name);
    h.set('Baton-From', handoff.from);
    try {
      await wire.js.publish(subjectOf(this.config.roster.swarm, role), handoff.bytes, { msgID: messageIdOf(handoff.id, role), headers: h, timeout: 5000 });
      this.backoffMs = 0;
      return { kind: 'stored' };
    } catch (err) {
      // The limit counts the headers too: the client refuses what our check let through.
      if (/max_payload/.test((err as Error).message)) return { kind: 'too-large', reason: `too large for the bridge: ${handoff.bytes.length} bytes and the headers are over the server's max_payload of ${limit}` };
      this.failed(err);
      throw err;
    }
  }

  /** Backs off after a failed publish (doubling, capped); a pass runs again when it ends. */
  private failed(err: unknown): void {
    this.link.error(err);
    this.backoffMs = Math.min(Math.max(250, this.backoffMs * 2), this.config.settings.backoffCapMs);
    this.backoffUntil = Date.now() + this.backoffMs;
    setTimeout(() => this.host.notify(), this.backoffMs).unref();
  }

  /** The arrivals queued since the last call (the daemon copies, then acknowledges them). */
  takeArrivals(): Arrival[] {
    const taken = this.arrivals;
    this.arrivals = [];
    return taken;
  }

  /** The link's state for reports. */
  linkState(): { connected: boolean; last_error: string | null } {
    return { connected: this.link.connected, last_error: this.link.lastError };
  }

  private up(wire: Wire): void {
    this.lastMaxPayload = wire.maxPayload;
    this.backoffUntil = 0;
    // Set up afresh (the server may have restarted on a new store): consumers restart after their lease.
    this.leases = new RoleLeases(wire.owners, this.config.node, this.config.settings);
    for (const role of [...this.consuming.keys()]) this.stopConsuming(role);
    clearInterval(this.leaseTimer);
    this.leaseTimer = setInterval(() => void this.claimRoles(), this.config.settings.leaseRenewMs);
    this.leaseTimer.unref();
    void this.claimRoles();
    this.host.notify();
    void this.report();
  }

  private down(): void {
    void this.report();
  }

  /** Takes or renews each local role's lease; consumes the roles held, stops the ones lost. */
  private async claimRoles(): Promise<void> {
    const wire = this.link.wire;
    if (!wire || !this.leases || this.claiming) return;
    this.claiming = true;
    try {
      for (const role of this.localRoles) await this.claimRole(wire, this.leases, role);
    } finally {
      this.claiming = false;
    }
  }

  private async claimRole(wire: Wire, leases: RoleLeases, role: string): Promise<void> {
    try {
      const refusal = await leases.claim(role);
      if (refusal) {
        this.stopConsuming(role);
        if (this.refusedBy.get(role) !== refusal.holder) this.host.log('bridge-refused', { role, problem: `its lease is held by node ${refusal.holder}` });
        this.refusedBy.set(role, refusal.holder);
      } else {
        this.refusedBy.delete(role);
        if (!this.consuming.has(role)) await this.consume(wire, role);
      }
    } catch (err) {
      this.link.error(err);
    }
  }

  /** Consumes `role` (the roster gives it to this node and this node holds its lease). */
  private async consume(wire: Wire, role: string): Promise<void> {
    if (!this.localRoles.includes(role)) {
      this.host.log('bridge-refused', { role, problem: `the roster gives it to node ${this.config.roster.nodeOfRole.get(role) ?? 'none'}` });
      return;
    }
    const consumer = await wire.js.consumers.get(streamNameOf(this.config.roster.swarm), consumerNameOf(role));
    const messages = await consumer.consume({ max_messages: 256, callback: (m) => this.arrived(role, m) });
    this.consuming.set(role, messages);
    // A consume the client ends by itself (the consumer vanished, an error) is started again
    // by the next lease round; one this bridge stopped is already out of the map.
    void messages.closed().then((reason) => {
      if (this.consuming.get(role) !== messages) return;
      this.consuming.delete(role);
      if (reason instanceof Error) this.link.error(reason);
    });
  }

  private arrived(role: string, m: JsMsg): void {
    this.arrivals.push({
      role, name: m.headers?.get('Baton-Name') || undefined, bytes: m.data,
      ack: async () => {
        if (!(await m.ackAck())) throw new Error('the server did not confirm the acknowledgement');
      },
      refuse: () => m.term(), // no reason: nats-server before 2.10 ignores a "+TERM <reason>" and redelivers forever
    });
    this.host.notify();
  }

  private stopConsuming(role: string): void {
    this.consuming.get(role)?.stop();
    this.consuming.delete(role);
  }

  /** Refreshes bridge.json (advisory: what status, monitor and doctor show). */
  async report(): Promise<void> {
    await writeBridgeReport(this.config.reportPath, { ...this.linkState(), node: this.config.node, roster: this.config.roster, wire: this.link.wire });
  }

  /**
   * Stops consuming, closes the link, and writes the last report. The leases are kept
   * (they expire): this node takes them back at once when it restarts, and no other node
   * can take them meanwhile.
   */
  async close(): Promise<void> {
    clearInterval(this.leaseTimer);
    clearInterval(this.reportTimer);
    for (const role of [...this.consuming.keys()]) this.stopConsuming(role);
    await this.link.close();
    await this.report();
  }
}
