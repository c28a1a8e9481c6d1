// The bridge's connection (docs/bridge.md §3): handoffd starts fully without a server; the
// link connects in the background, retrying with a backoff capped at the settings' cap,
// and after every (re)connect sets up the stream, the consumers and the KV bucket again
// before it says it is up. Each change of state is logged once (`bridge-connected`,
// `bridge-error`); an error text goes through redactSecrets before anyone sees it.
import {
  jetstream,
  jetstreamManager,
  type JetStreamClient,
  type JetStreamManager,
} from '@nats-io/jetstream';
import { type KV } from '@nats-io/kv';
import { connect, credsAuthenticator, type NatsConnection } from '@nats-io/transport-node';
import { type BridgeSettings } from './bridgeSettings.js';
import { redactSecrets } from './secrets.js';
import { ensureConsumer, ensureStream, openOwners } from './wireSetup.js';
import { streamNameOf } from './wireNames.js';

/**
 * How soon the client gives up on a server that went silent (§5: on a cluster, a handoff
 * queued after a server died is delivered within 20 s). A killed server's socket closes at
 * once and the client moves to the next URL; a machine that vanished sends nothing, and the
 * client's default (a ping every 2 min, two unanswered) would wait it out for minutes: here a
 * ping every 5 s, two unanswered, moves it within about 15 s. A JetStream API request (the
 * set-up's, an acknowledgement's) sent while a stream or consumer elects a new leader gets no
 * answer: it fails after 2 s rather than the client's 5, and the set-up tries again sooner.
 */
export const CLIENT_TIMINGS = { pingIntervalMs: 5_000, maxPingOut: 2, apiTimeoutMs: 2_000 };

/** The longest time between the starts of two set-up tries on a live connection. */
const SET_UP_AGAIN_CAP_MS = 1_000;

/** What the link needs to know. */
export interface LinkConfig {
  urls: string[];
  swarm: string;
  node: string;
  /** The local roles (their consumers are set up at each connect). */
  roles: string[];
  /** The stream's, the consumers' and the owners' bucket's replica count (the roster's). */
  replicas: number;
  /** The credentials file's content, or '' without one. */
  credentials: string;
  settings: BridgeSettings;
  log: (event: 'bridge-connected' | 'bridge-error', details: Record<string, string>) => void;
  /** Called after each completed set-up (first connect and every reconnect). */
  onUp: (wire: Wire) => void;
  /** Called when the connection is lost. */
  onDown: () => void;
}

/** A connection that is set up: the handles the bridge works with. */
export interface Wire {
  nc: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
  owners: KV;
  maxPayload: number;
}

/** The connection and its state. */
export class BridgeLink {
  wire: Wire | undefined;
  lastError: string | null = null;
  private closed = false;
  /** Moves at every lost connection: a set-up begun before it announces nothing. */
  private generation = 0;
  private settingUp = false;
  /** True while repairIfGone asks the server about the stream. */
  private checkingStream = false;
  private nc: NatsConnection | undefined;
  private wake: () => void = () => undefined;

  constructor(private readonly config: LinkConfig) {}

  /** True while connected and set up. */
  get connected(): boolean {
    return this.wire !== undefined;
  }

  /** Connects in the background until close(); never throws. */
  start(): void {
    void this.connectLoop();
  }

  /** Records and logs an error (redacted), once per distinct text in a row. */
  error(err: unknown): void {
    const text = redactSecrets((err as Error)?.message ?? String(err), this.config.credentials);
    if (text === this.lastError) return;
    this.lastError = text;
    this.config.log('bridge-error', { problem: text });
  }

  private async connectLoop(): Promise<void> {
    for (
      let delay = 250;
      !this.closed;
      delay = Math.min(delay * 2, this.config.settings.backoffCapMs)
    ) {
      try {
        const nc = await connect({
          servers: this.config.urls,
          name: `baton-${this.config.node}`,
          // The roster's order, not a shuffle: a node uses the first server that answers, and
          // the log says which (docs/decisions.md, "A cluster").
          noRandomize: true,
          maxReconnectAttempts: -1,
          reconnectTimeWait: Math.min(1000, this.config.settings.backoffCapMs),
          timeout: 5000,
          pingInterval: CLIENT_TIMINGS.pingIntervalMs,
          maxPingOut: CLIENT_TIMINGS.maxPingOut,
          ...(this.config.credentials
            ? {
                authenticator: credsAuthenticator(
                  new TextEncoder().encode(this.config.credentials),
                ),
              }
            : {}),
        });
        this.nc = nc;
        if (this.closed) return await nc.close().catch(() => undefined);
        void this.watch(nc);
        await this.setUp(nc, this.generation);
        return;
      } catch (err) {
        if (this.closed) return;
        this.error(err);
        const failed = this.nc;
        // before the close: watch() must not take it for a lost link and start a second loop
        this.nc = undefined;
        await failed?.close().catch(() => undefined);
      }
      await this.pause(delay);
    }
  }

  /** Waits `ms` (cut short by close(); never keeps the process alive). */
  private async pause(ms: number): Promise<void> {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      timer.unref();
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    this.wake = () => undefined;
  }

  /**
   * Sets up the server side and announces the link; a failure closes the connection (the
   * loop retries). A set-up overtaken by a disconnect (the generation moved) or by close()
   * announces nothing: the next reconnect sets up again.
   */
  private async setUp(nc: NatsConnection, generation: number): Promise<void> {
    const { swarm, settings, replicas } = this.config;
    const jsm = await jetstreamManager(nc, { timeout: CLIENT_TIMINGS.apiTimeoutMs });
    await ensureStream(jsm, swarm, settings, replicas);
    for (const role of this.config.roles)
      await ensureConsumer(jsm, swarm, role, settings, replicas);
    const owners = await openOwners(nc, swarm, replicas);
    if (this.closed || this.nc !== nc || generation !== this.generation) return;
    this.wire = {
      nc,
      js: jetstream(nc, { timeout: CLIENT_TIMINGS.apiTimeoutMs }),
      jsm,
      owners,
      maxPayload: nc.info?.max_payload ?? 1024 * 1024,
    };
    this.lastError = null;
    this.config.log('bridge-connected', { server: nc.getServer() });
    this.config.onUp(this.wire);
  }

  /**
   * Sets up again after a reconnect (one run at a time), retrying while the link is connected and
   * not set up. The tries start at most SET_UP_AGAIN_CAP_MS apart, not the backoff's 10 s: on a
   * live connection a try fails by timing out while a cluster elects the leaders a server's death
   * took (seconds each), and every second waited beyond the elections is a second without
   * deliveries (§5: 20 s).
   */
  private async setUpAgain(nc: NatsConnection): Promise<void> {
    if (this.settingUp) return;
    this.settingUp = true;
    try {
      for (
        let delay = 250;
        !this.closed && this.nc === nc && !nc.isClosed() && !this.wire;
        delay = Math.min(delay * 2, this.config.settings.backoffCapMs, SET_UP_AGAIN_CAP_MS)
      ) {
        const began = Date.now();
        try {
          await this.setUp(nc, this.generation);
          if (this.wire) return;
        } catch (err) {
          this.error(err);
        }
        await this.pause(delay - (Date.now() - began));
      }
    } finally {
      this.settingUp = false;
    }
  }

  /**
   * After a publish nobody answered: sets everything up again if the server says the stream is
   * gone (or JetStream is off), else keeps the link. On a cluster, a publish finds nobody while
   * the stream elects a leader after a server died: set up again, the link would wait for every
   * consumer's and the bucket's election too, where the publish's backoff needs only the stream's.
   */
  async repairIfGone(): Promise<void> {
    const wire = this.wire;
    if (!wire || this.checkingStream) return;
    this.checkingStream = true;
    try {
      await wire.jsm.streams.info(streamNameOf(this.config.swarm));
    } catch (err) {
      if (/not found|not enabled/i.test((err as Error).message)) this.repair();
    } finally {
      this.checkingStream = false;
    }
  }

  /**
   * Sets everything up again on the live connection (a stream or consumer deleted meanwhile); no-op
   * while down or already repairing.
   */
  repair(): void {
    const nc = this.nc;
    if (!nc || !this.wire || this.settingUp) return;
    this.wire = undefined;
    void this.setUpAgain(nc);
  }

  /** Follows the connection's status: down on a disconnect, set up again on a reconnect. */
  private async watch(nc: NatsConnection): Promise<void> {
    for await (const status of nc.status()) {
      if (this.closed) return;
      if (status.type === 'disconnect') {
        this.generation += 1;
        this.wire = undefined;
        this.error(new Error(`disconnected from ${status.server}`));
        this.config.onDown();
      } else if (status.type === 'reconnect') {
        void this.setUpAgain(nc);
      }
    }
    // The client gave up (closed): connect afresh unless we are closing.
    if (!this.closed && this.nc === nc) {
      this.generation += 1;
      this.wire = undefined;
      this.config.onDown();
      this.nc = undefined;
      void this.connectLoop();
    }
  }

  /**
   * Closes the connection (pending acks are not awaited: unacknowledged messages are redelivered).
   */
  async close(): Promise<void> {
    this.closed = true;
    this.wake();
    this.wire = undefined;
    await this.nc?.close().catch(() => undefined);
  }
}
