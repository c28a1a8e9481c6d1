// handoffd's bridge to other nodes (docs/bridge.md §3), the only part of handoffd that
// loads the NATS client (handoffd imports this module only when the project has a
// roster). It publishes handoffs for remote recipients and hands the daemon the
// messages that arrive for local roles; the daemon writes every copy (the files stay the
// truth) and acknowledges a message only after its copy is durable, then puts its receipt
// (the sender's ledger, lib/daemon/awaitingReceipts.ts, waits for it). Each lease round also
// sweeps orphans (orphanSweep.ts); a check of its own judges each consumed role's consumer
// (stallWatch.ts).
//
// Concurrency contract: one bridge per handoffd (which holds the daemon lock). A role is
// consumed only by the node the roster gives it to, and only while that node holds the
// role's lease (roleLeases.ts); every refusal is logged with the role. The lease rounds and
// the stall checks take turns (one at a time): both start and stop consumes, and a role must
// never be consumed twice. Arrivals are only queued here; the daemon's loop takes them
// between passes, so a copy never races a delivery pass.
import { type ConsumerMessages, type JsMsg } from '@nats-io/jetstream';
import { type KV } from '@nats-io/kv';
import { headers as natsHeaders } from '@nats-io/transport-node';
import { type Roster } from '../handoff/roster.js';
import { BridgeLink, CLIENT_TIMINGS, type Wire } from './bridgeLink.js';
import { writeBridgeReport } from './bridgeReport.js';
import { type BridgeSettings } from './bridgeSettings.js';
import {
  orphansOf,
  orphanStateOf,
  removeOrphan,
  storedAt,
  type OrphanState,
} from './orphanSweep.js';
import { RoleLeases } from './roleLeases.js';
import { StallWatch, unservedOf } from './stallWatch.js';
import { openReceipts, stepDownConsumer } from './wireSetup.js';
import {
  consumerNameOf,
  messageIdOf,
  receiptKeyOf,
  streamNameOf,
  subjectOf,
  wireSizeOf,
} from './wireNames.js';

/**
 * How long one pull waits at the server (its heartbeats come every half of it). A pull sent to
 * a consumer leader that died is answered by nobody: the client notices two missed heartbeats
 * and pulls again, from the new leader once elected. The client's default (30 s) would leave a
 * role without deliveries for up to that long after a server of a cluster died (§5: 20 s).
 */
const PULL_EXPIRES_MS = 3_000;

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
  /**
   * Gives a message back for redelivery after `ms` (its copy cannot be made now, e.g. the role is
   * not yet in roles.tsv).
   */
  retryLater(ms: number): void;
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
  log: (
    event: 'bridge-connected' | 'bridge-error' | 'bridge-refused' | 'bridge-stalled',
    details: Record<string, string>,
  ) => void;
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
 * What became of a publish: stored by the server (a duplicate counts), or refused for good because
 * it is too large.
 */
export type PublishOutcome =
  { kind: 'stored'; seq: number } | { kind: 'too-large'; reason: string };

/**
 * Where a published copy stands for its sender: its receipt is there, its message still waits on
 * the server, or it vanished from the server without a receipt.
 */
export type Confirmation = 'confirmed' | 'waiting' | 'vanished';

/** The bridge of one handoffd. */
export class Bridge {
  private readonly link: BridgeLink;
  private readonly consuming = new Map<string, ConsumerMessages>();
  private arrivals: Arrival[] = [];
  private leases: RoleLeases | undefined;
  private leaseTimer: NodeJS.Timeout | undefined;
  private stallTimer: NodeJS.Timeout | undefined;
  private reportTimer: NodeJS.Timeout | undefined;
  /** Per role, the node whose lease refused this one (logged once per holder). */
  private readonly refusedBy = new Map<string, string>();
  /** Judges each consumed role's consumer at every stall check (stallWatch.ts). */
  private readonly stalls: StallWatch;
  /** The lease round or stall check running now: the next one waits for it. */
  private turn: Promise<void> = Promise.resolve();
  /** True while a stall check waits for its turn or runs (the timer skips one beside it). */
  private checkingStalls = false;
  /** Per role, the arrivals handed to the daemon and not yet answered (stallWatch.ts). */
  private readonly inHand = new Map<string, number>();
  /** True while claimRoles runs (a slow server must not start a second run beside it). */
  private claiming = false;
  /**
   * The orphans queued and not yet removed (`<role>:<seq>`): a later round does not queue them
   * twice.
   */
  private readonly sweeping = new Set<string>();
  private claimAgain = false;
  /** The receipts' bucket of the current wire, opening or open (receiptsOf). */
  private receipts: { wire: Wire; opening: Promise<KV> } | undefined;
  private claimRetry: NodeJS.Timeout | undefined;
  private closed = false;
  /** The report being written, awaited by close() so that none lands after the last. */
  private reporting: Promise<void> = Promise.resolve();
  private backoffUntil = 0;
  private backoffMs = 0;
  private lastMaxPayload: number | undefined;
  readonly localRoles: string[];

  constructor(
    private readonly config: BridgeConfig,
    private readonly host: BridgeHost,
  ) {
    this.localRoles = config.roster.nodes.get(config.node) ?? [];
    this.stalls = new StallWatch(config.settings.stallAfterMs);
    this.link = new BridgeLink({
      urls: config.roster.urls,
      swarm: config.roster.swarm,
      node: config.node,
      roles: this.localRoles,
      replicas: config.roster.replicas,
      credentials: config.credentials,
      settings: config.settings,
      log: host.log,
      onUp: (wire) => this.up(wire),
      onDown: () => this.down(),
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

  /** The server's size limit for a message (it counts the headers), once known. */
  maxPayload(): number | undefined {
    return this.link.wire?.maxPayload ?? this.lastMaxPayload;
  }

  /**
   * Why `handoff` cannot travel to one of `roles` (its bytes and headers over max_payload);
   * undefined when it fits or the limit is not known yet.
   */
  tooLarge(handoff: Outgoing, roles: string[]): string | undefined {
    const limit = this.maxPayload();
    if (limit === undefined) return undefined;
    const size = Math.max(...roles.map((role) => wireSizeOf(role, handoff)));
    return size > limit
      ? `too large for the bridge: ${size} bytes with its headers is ` +
          `over the server's max_payload of ${limit}`
      : undefined;
  }

  /** The bridge's timings. */
  get settings(): BridgeSettings {
    return this.config.settings;
  }

  /**
   * Publishes one handoff to one remote role (the `resend`th time again under a new message id);
   * resolves when the server has stored it; throws on a temporary failure.
   */
  async publish(role: string, handoff: Outgoing, resend = 0): Promise<PublishOutcome> {
    const wire = this.link.wire;
    if (!wire) throw new Error('not connected');
    const tooLarge = this.tooLarge(handoff, [role]);
    if (tooLarge) return { kind: 'too-large', reason: tooLarge };
    const h = natsHeaders();
    h.set('Baton-Name', handoff.name);
    h.set('Baton-From', handoff.from);
    try {
      const ack = await wire.js.publish(subjectOf(this.config.roster.swarm, role), handoff.bytes, {
        msgID: messageIdOf(handoff.id, role, resend),
        headers: h,
        timeout: 5000,
      });
      this.backoffMs = 0;
      return { kind: 'stored', seq: ack.seq };
    } catch (err) {
      // A safety net: the client's own size check (should its header encoding ever grow).
      if (/max_payload/.test((err as Error).message))
        return {
          kind: 'too-large',
          reason:
            `too large for the bridge: ${handoff.bytes.length} bytes and ` +
            `the headers are over the server's max_payload of ` +
            `${wire.maxPayload}`,
        };
      // The stream vanished under a live connection (deleted by hand; the client then says
      // "no responders" or, in v3, "jetstream is not enabled"), or a cluster elects its leader:
      // set it up again if the server says it is gone.
      if (/no responders|stream not found|jetstream is not enabled/i.test((err as Error).message))
        void this.link.repairIfGone();
      this.failed(err);
      throw err;
    }
  }

  /**
   * Backs off after a failed publish (doubling once per backoff, capped: a group's many failures
   * count once); a pass runs again when it ends.
   */
  private failed(err: unknown): void {
    this.link.error(err);
    if (Date.now() < this.backoffUntil) return;
    this.backoffMs = Math.min(Math.max(250, this.backoffMs * 2), this.config.settings.backoffCapMs);
    this.backoffUntil = Date.now() + this.backoffMs;
    setTimeout(() => this.host.notify(), this.backoffMs).unref();
  }

  /**
   * Puts the receipt of a copy of `id` that `role` holds (made or found): the sender stops
   * waiting for it. In the background; one that fails is put again when the sender publishes the
   * handoff anew.
   */
  confirm(role: string, id: string): void {
    const wire = this.link.wire;
    if (!wire) return;
    this.receiptsOf(wire)
      .then((receipts) => receipts.put(receiptKeyOf(id, role), this.config.node))
      .catch((err: unknown) => this.link.error(err));
  }

  /**
   * The receipts' bucket on `wire`, opened at its first use rather than in the link's set-up:
   * a node's link is up without it (a receipt not put costs one publish again), and its
   * election after a server's death must not hold the link down. A failed open is tried again
   * at the next use.
   */
  private receiptsOf(wire: Wire): Promise<KV> {
    if (this.receipts?.wire !== wire) {
      const opening = openReceipts(wire.nc, this.config.roster.swarm, this.config.roster.replicas);
      this.receipts = { wire, opening };
      opening.catch(() => {
        if (this.receipts?.opening === opening) this.receipts = undefined;
      });
    }
    return this.receipts.opening;
  }

  /**
   * Where the copy of `id` for `role`, stored at `seq`, stands (Confirmation); throws when the
   * server cannot say now.
   */
  async confirmationOf(role: string, id: string, seq: number): Promise<Confirmation> {
    const wire = this.link.wire;
    if (!wire) throw new Error('not connected');
    const receipt = await (await this.receiptsOf(wire)).get(receiptKeyOf(id, role));
    if (receipt?.operation === 'PUT') return 'confirmed';
    const there = await storedAt(wire.jsm, this.config.roster.swarm, seq);
    const msgId = there?.header?.get('Nats-Msg-Id') ?? '';
    return msgId.startsWith(messageIdOf(id, role)) ? 'waiting' : 'vanished';
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
    // Set up afresh (the server may have restarted on a new store): consumers restart after their
    // lease, and their stall watch with them.
    this.leases = new RoleLeases(wire.owners, this.config.node, this.config.settings);
    for (const role of [...this.consuming.keys()]) this.stopConsuming(role);
    for (const role of this.localRoles) this.stalls.forget(role);
    clearInterval(this.leaseTimer);
    this.leaseTimer = setInterval(() => void this.claimRoles(), this.config.settings.leaseRenewMs);
    this.leaseTimer.unref();
    clearInterval(this.stallTimer);
    this.stallTimer = setInterval(() => void this.checkStalls(), this.stalls.sampleEveryMs);
    this.stallTimer.unref();
    void this.claimRoles();
    this.host.notify();
    void this.report();
  }

  private down(): void {
    void this.report();
  }

  /** Takes or renews each local role's lease; consumes the roles held, stops the ones lost. */
  private async claimRoles(): Promise<void> {
    if (this.claiming) {
      // After a reconnect the consumers were stopped: run again as soon as this round ends.
      this.claimAgain = true;
      return;
    }
    this.claiming = true;
    try {
      await this.inTurn(async () => {
        do {
          this.claimAgain = false;
          const wire = this.link.wire;
          if (!wire || !this.leases) return;
          for (const role of this.localRoles) await this.claimRole(wire, this.leases, role);
        } while (this.claimAgain);
      });
    } finally {
      this.claiming = false;
    }
  }

  /** Runs `step` once the lease round or stall check before it has ended. */
  private inTurn(step: () => Promise<void>): Promise<void> {
    const run = this.turn.then(step);
    this.turn = run.catch(() => undefined);
    return run;
  }

  /**
   * Samples each consumed role's consumer and answers a stall (stallWatch.ts): every quarter of
   * `stallAfterMs`, so that a stall is answered soon after it, not up to two lease rounds later.
   * The first failure ends the check: a server that does not answer for one role now would
   * hold the lease round back by a timeout per role.
   */
  private async checkStalls(): Promise<void> {
    if (this.checkingStalls || this.closed) return;
    this.checkingStalls = true;
    try {
      await this.inTurn(async () => {
        const wire = this.link.wire;
        if (!wire) return;
        for (const role of [...this.consuming.keys()]) await this.watchStall(wire, role);
      }).catch((err: unknown) => this.link.error(err));
    } finally {
      this.checkingStalls = false;
    }
  }

  private async claimRole(wire: Wire, leases: RoleLeases, role: string): Promise<void> {
    try {
      const refusal = await leases.claim(role);
      if (refusal) {
        this.stopConsuming(role);
        this.stalls.forget(role);
        if (this.refusedBy.get(role) !== refusal.holder)
          this.host.log('bridge-refused', {
            role,
            problem: `its lease is held by node ${refusal.holder}`,
          });
        this.refusedBy.set(role, refusal.holder);
      } else {
        this.refusedBy.delete(role);
        if (!this.consuming.has(role)) await this.consume(wire, role);
        const state = await orphanStateOf(wire.jsm, this.config.roster.swarm, role);
        await this.sweep(wire, role, state);
      }
    } catch (err) {
      this.link.error(err);
      // The consumer or the stream vanished under a live connection: set them up again.
      if (/not found/i.test((err as Error).message)) this.link.repair();
      this.claimSoon();
    }
  }

  /**
   * Runs the lease round again in a second after a failed claim (a timeout while a cluster
   * elects a leader): a role must not wait the whole renewal interval for its consumer.
   */
  private claimSoon(): void {
    if (this.claimRetry || this.closed) return;
    this.claimRetry = setTimeout(
      () => {
        this.claimRetry = undefined;
        void this.claimRoles();
      },
      Math.min(1_000, this.config.settings.leaseRenewMs),
    );
    this.claimRetry.unref();
  }

  /** Consumes `role` (the roster gives it to this node and this node holds its lease). */
  private async consume(wire: Wire, role: string): Promise<void> {
    if (!this.localRoles.includes(role)) {
      this.host.log('bridge-refused', {
        role,
        problem: `the roster gives it to node ${this.config.roster.nodeOfRole.get(role) ?? 'none'}`,
      });
      return;
    }
    const consumer = await wire.js.consumers.get(
      streamNameOf(this.config.roster.swarm),
      consumerNameOf(role),
    );
    const messages = await consumer.consume({
      max_messages: 256,
      expires: PULL_EXPIRES_MS,
      callback: (m) => this.arrived(role, m),
    });
    this.consuming.set(role, messages);
    // A consume the client ends by itself (the consumer vanished, an error) is started again
    // by the next lease round; one this bridge stopped is already out of the map.
    void messages.closed().then((reason) => {
      if (this.consuming.get(role) !== messages) return;
      this.consuming.delete(role);
      if (reason instanceof Error) this.link.error(reason);
    });
  }

  /**
   * Queues the role's orphans (orphanSweep.ts) as arrivals whose acknowledgement removes them from
   * the stream.
   */
  private async sweep(wire: Wire, role: string, state: OrphanState): Promise<void> {
    let queued = 0;
    for (const m of await orphansOf(wire.jsm, this.config.roster.swarm, role, state)) {
      const key = `${role}:${m.seq}`;
      if (this.sweeping.has(key)) continue;
      this.sweeping.add(key);
      const remove = async () => {
        await removeOrphan(wire.jsm, this.config.roster.swarm, m);
        this.sweeping.delete(key);
      };
      this.arrivals.push({
        role,
        name: m.header?.get('Baton-Name') || undefined,
        bytes: m.data,
        ack: remove,
        refuse: () => void remove(),
        retryLater: () => this.sweeping.delete(key),
      });
      queued += 1;
    }
    if (queued > 0) this.host.notify();
  }

  /**
   * Answers a stalled consumer (stallWatch.ts): logs it with the role, asks its leader to step
   * down when consuming afresh did not help, and consumes the role afresh.
   */
  private async watchStall(wire: Wire, role: string): Promise<void> {
    const consumer = await wire.jsm.consumers.info(
      streamNameOf(this.config.roster.swarm),
      consumerNameOf(role),
    );
    const inHand = this.inHand.get(role) ?? 0;
    const sample = {
      pending: consumer.num_pending,
      ackPending: consumer.num_ack_pending,
      inHand,
      ackFloor: consumer.ack_floor.consumer_seq,
    };
    const remedy = this.stalls.judge(role, sample, Date.now());
    if (remedy === 'none') return;
    const stepDown = remedy === 'step-down';
    this.host.log('bridge-stalled', {
      role,
      problem:
        `${unservedOf(sample)} waiting and nothing delivered for ` +
        `${this.config.settings.stallAfterMs / 1000} s: ` +
        (stepDown ? 'its consumer leader asked to step down, and ' : '') +
        'consumed afresh',
    });
    if (stepDown)
      await stepDownConsumer(
        wire.nc,
        this.config.roster.swarm,
        role,
        CLIENT_TIMINGS.apiTimeoutMs,
      ).catch((err: unknown) => this.link.error(err));
    this.stopConsuming(role);
    await this.consume(wire, role);
  }

  private arrived(role: string, m: JsMsg): void {
    this.stalls.arrived(role);
    this.inHand.set(role, (this.inHand.get(role) ?? 0) + 1);
    let answered = false;
    const answer = () => {
      if (answered) return;
      answered = true;
      this.inHand.set(role, (this.inHand.get(role) ?? 1) - 1);
    };
    this.arrivals.push({
      role,
      name: m.headers?.get('Baton-Name') || undefined,
      bytes: m.data,
      ack: async () => {
        answer();
        if (!(await m.ackAck())) throw new Error('the server did not confirm the acknowledgement');
      },
      // No reason: nats-server before 2.10 ignores a "+TERM <reason>" and redelivers forever.
      refuse: () => {
        answer();
        m.term();
      },
      retryLater: (ms) => {
        answer();
        m.nak(ms);
      },
    });
    this.host.notify();
  }

  private stopConsuming(role: string): void {
    this.consuming.get(role)?.stop();
    this.consuming.delete(role);
  }

  /** Refreshes bridge.json (advisory: what status, monitor and doctor show). */
  async report(): Promise<void> {
    const input = {
      ...this.linkState(),
      node: this.config.node,
      roster: this.config.roster,
      wire: this.link.wire,
    };
    this.reporting = this.reporting.then(() => writeBridgeReport(this.config.reportPath, input));
    await this.reporting;
  }

  /**
   * Stops consuming, closes the link, and writes the last report. The leases are kept
   * (they expire): this node takes them back at once when it restarts, and no other node
   * can take them meanwhile.
   */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.claimRetry);
    clearInterval(this.leaseTimer);
    clearInterval(this.stallTimer);
    clearInterval(this.reportTimer);
    for (const role of [...this.consuming.keys()]) this.stopConsuming(role);
    await this.link.close();
    await this.report();
  }
}
