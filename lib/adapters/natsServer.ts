// The only module that runs nats-server: a local `nats-server -js` on 127.0.0.1 for trying
// the bridge on one machine and for tests (docs/bridge.md §4). The server is spawned with an
// argument vector (never a shell), its output appended to a log in its store folder.
// Identity: a pid file names the server, and /proc must confirm that this pid runs
// nats-server with this store (`-sd`), so a stale pid file, a reused pid number or a zombie
// is never taken for our server and never signalled. Healthy means: it accepts a TCP
// connection on its port and answers with its `INFO {...}` line (announcing JetStream).
// This module imports nothing of lib/: callers pass the paths (lib/project/layout.ts).
import { readTextIfPresent } from '../fsx/absent.js';
import { endProcess, until } from '../proc/ending.js';
import { identityAlive, processIdentityOf } from '../fsx/processIdentity.js';
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import { connect, createServer } from 'node:net';
import { basename, delimiter, dirname, join, resolve } from 'node:path';

/** The only address a local server listens on. */
export const NATS_HOST = '127.0.0.1';

/** How long start-up may take before it counts as failed. */
const HEALTHY_WITHIN_MS = 15_000;

/**
 * How long a port may stay bound after its server is seen gone. nats-server is a Go program
 * with many threads: its main thread shows as exited (a zombie, an empty /proc cmdline)
 * while the others still close its files, the listening socket among them, a few ms later.
 */
const PORT_RELEASE_MS = 1_000;

/** nats-server is installed nowhere this module looks. */
export class NatsServerMissing extends Error {
  constructor() {
    super('nats-server not found on PATH nor in /usr/sbin: apt-get install nats-server');
  }
}

/** Another program listens on the port (found before spawning, or said by nats-server itself). */
export class NatsPortBusy extends Error {
  constructor(readonly port: number) {
    super(
      `port ${port} on ${NATS_HOST} is busy: another program ` +
        `listens there (choose one with --port)`,
    );
  }
}

/**
 * nats-server exited during start-up or did not become healthy in time; the message ends with its
 * log's last line.
 */
export class NatsServerFailed extends Error {}

/** `nats://127.0.0.1:<port>`. */
export function natsUrlOf(port: number): string {
  return `nats://${NATS_HOST}:${port}`;
}

/** What makes a local server one member of a local JetStream cluster (natsCluster.ts). */
export interface ClusterMember {
  /** Its server_name, unique in the cluster (what stream info names its replicas by). */
  name: string;
  /** The cluster's name, the same for every member. */
  cluster: string;
  /** The port it listens on for the other members' routes (127.0.0.1). */
  routePort: number;
  /** Every member's route port, its own included (nats-server ignores a route to itself). */
  routes: number[];
}

/**
 * The arguments of a local JetStream server on `port` with its store in `storeDir` (absolute),
 * and with `member` those that join it to a local cluster.
 */
export function natsServerArgv(port: number, storeDir: string, member?: ClusterMember): string[] {
  const argv = ['-js', '-a', NATS_HOST, '-p', String(port), '-sd', storeDir];
  if (!member) return argv;
  const route = (p: number) => `nats://${NATS_HOST}:${p}`;
  return [
    ...argv,
    '--server_name',
    member.name,
    '--cluster_name',
    member.cluster,
    '--cluster',
    route(member.routePort),
    '--routes',
    member.routes.map(route).join(','),
  ];
}

/**
 * The nats-server executable: the first on PATH, else the Debian package's /usr/sbin one (not on a
 * user's PATH).
 */
export function findNatsServer(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const dirs = [
    ...(env.PATH ?? '').split(delimiter).filter(Boolean),
    '/usr/sbin',
    '/usr/local/sbin',
    '/usr/local/bin',
  ];
  for (const dir of dirs) {
    const path = resolve(dir, 'nats-server');
    try {
      fs.accessSync(path, fs.constants.X_OK);
      if (fs.statSync(path).isFile()) return path;
    } catch {
      // not here; the next folder
    }
  }
  return undefined;
}

/** True when nothing listens on 127.0.0.1:`port` (we could bind it ourselves). */
export function portFree(port: number): Promise<boolean> {
  return new Promise((done, failed) => {
    const probe = createServer();
    probe.once('error', (err: NodeJS.ErrnoException) =>
      err.code === 'EADDRINUSE' ? done(false) : failed(err),
    );
    probe.listen({ port, host: NATS_HOST }, () => probe.close(() => done(true)));
  });
}

/**
 * The parsed `INFO` line the server at 127.0.0.1:`port` sends on connect, or undefined when none
 * came within `timeoutMs`.
 */
export function natsInfoOf(
  port: number,
  timeoutMs = 1000,
): Promise<Record<string, unknown> | undefined> {
  return new Promise((done) => {
    const socket = connect({ port, host: NATS_HOST });
    let seen = '';
    const finish = (info: Record<string, unknown> | undefined) => {
      socket.destroy();
      done(info);
    };
    socket.setTimeout(timeoutMs, () => finish(undefined));
    socket.on('error', () => finish(undefined));
    socket.on('close', () => finish(undefined));
    socket.on('data', (chunk: Buffer) => {
      seen += chunk.toString('utf8');
      const end = seen.indexOf('\r\n');
      if (end >= 0 || seen.length > 64 * 1024)
        finish(parseInfo(end >= 0 ? seen.slice(0, end) : ''));
    });
  });
}

function parseInfo(line: string): Record<string, unknown> | undefined {
  if (!line.startsWith('INFO ')) return undefined;
  try {
    return JSON.parse(line.slice(5)) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

/** A local nats-server found through its pid file. */
export interface RunningNatsServer {
  pid: number;
  /** Its port, from its command line (undefined where there is no /proc to read it). */
  port: number | undefined;
  /** A cluster member's `--routes`, from its command line (undefined for a lone server). */
  routes?: string;
}

/**
 * The nats-server the pid file names, when that pid runs nats-server with `storeDir` as its
 * store; else undefined (no file, a dead pid, a zombie, a reused pid running something else).
 * Without /proc (not Linux) a live pid is trusted.
 */
export function runningNatsServer(
  pidFile: string,
  storeDir: string,
): RunningNatsServer | undefined {
  const pid = pidIn(pidFile);
  if (pid === undefined) return undefined;
  if (!fs.existsSync('/proc/self/cmdline'))
    return signalable(pid) ? { pid, port: undefined } : undefined;
  const argv = commandLineOf(pid);
  if (argv.length === 0 || basename(argv[0]!) !== 'nats-server') return undefined;
  const option = (name: string) => argv[argv.indexOf(name) + 1];
  if (!argv.includes('-sd') || resolve(option('-sd') ?? '') !== resolve(storeDir)) return undefined;
  const port = Number(option('-p'));
  return {
    pid,
    port: argv.includes('-p') && Number.isInteger(port) ? port : undefined,
    ...(argv.includes('--routes') ? { routes: option('--routes') } : {}),
  };
}

function pidIn(pidFile: string): number | undefined {
  const text = readTextIfPresent(pidFile);
  if (text === undefined) return undefined;
  const pid = Number(text.trim());
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

/** The argument vector of a process (empty when it is gone or a zombie, whose cmdline is empty). */
function commandLineOf(pid: number): string[] {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
  } catch {
    return [];
  }
}

function signalable(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Writes `pid` to `pidFile` whole (temp file, then rename), so a reader never sees half a number.
 */
export function writePidFile(pidFile: string, pid: number): void {
  const temp = join(dirname(pidFile), `.${basename(pidFile)}.${process.pid}.tmp`);
  fs.writeFileSync(temp, `${pid}\n`, { mode: 0o600 });
  fs.renameSync(temp, pidFile);
}

/** A server being waited for: its port, whether it has ended, and why (once it has). */
export interface WatchedNatsServer {
  port: number;
  ended: () => boolean;
  failure: () => Error;
}

/** What spawnNatsServer started. */
export interface SpawnedNatsServer extends WatchedNatsServer {
  child: ChildProcess;
  logFile: string;
}

/** Options of one nats-server process. */
export interface SpawnOptions {
  port: number;
  storeDir: string;
  /** Where its stdout and stderr are appended; `<storeDir>/nats-server.log` by default. */
  logFile?: string;
  /**
   * Detached: its own session, outliving the caller (`baton nats up`); else the caller's process
   * group (tests).
   */
  detached: boolean;
  /** Joins it to a local cluster (natsCluster.ts); a lone server without. */
  member?: ClusterMember;
}

/**
 * Spawns nats-server (argv, no shell) without waiting for it; throws NatsServerMissing when it is
 * not installed.
 */
export function spawnNatsServer(options: SpawnOptions): SpawnedNatsServer {
  const binary = findNatsServer();
  if (binary === undefined) throw new NatsServerMissing();
  const storeDir = resolve(options.storeDir);
  const logFile = options.logFile ?? join(storeDir, 'nats-server.log');
  fs.mkdirSync(storeDir, { recursive: true, mode: 0o700 });
  const log = fs.openSync(logFile, 'a', 0o600);
  let child: ChildProcess;
  let logOffset: number;
  try {
    logOffset = fs.fstatSync(log).size;
    child = spawn(binary, natsServerArgv(options.port, storeDir, options.member), {
      detached: options.detached,
      stdio: ['ignore', log, log],
    });
  } finally {
    fs.closeSync(log);
  }
  let spawnError: Error | undefined;
  child.on('error', (err) => (spawnError = err));
  return {
    child,
    port: options.port,
    logFile,
    ended: () => spawnError !== undefined || child.exitCode !== null || child.signalCode !== null,
    failure: () =>
      startFailure(
        options.port,
        logFile,
        logOffset,
        spawnError ?? `exit ${child.exitCode ?? child.signalCode}`,
      ),
  };
}

/**
 * Why a spawned server ended during start-up: its own "address already in use" is a busy
 * port (another program took it between our check and its bind); anything else is a
 * failure that names the log and quotes the last line this server wrote there.
 */
function startFailure(
  port: number,
  logFile: string,
  logOffset: number,
  how: Error | string,
): Error {
  const last = lastLogLine(logFile, logOffset);
  if (/address already in use/i.test(last)) return new NatsPortBusy(port);
  if (how instanceof Error)
    return new NatsServerFailed(`nats-server could not be started: ${how.message}`);
  return new NatsServerFailed(
    `nats-server ended during start-up (${how}) '${logFile}': ${last || 'nothing logged'}`,
  );
}

/** The last non-empty line written to the log from `offset` on ('' when none). */
function lastLogLine(logFile: string, offset: number): string {
  try {
    const lines = fs
      .readFileSync(logFile)
      .subarray(offset)
      .toString('utf8')
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean);
    return lines[lines.length - 1] ?? '';
  } catch {
    return '';
  }
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Waits until the server answers on its port with an INFO line announcing JetStream (polled,
 * bounded by `timeoutMs`); throws its failure when it ends first, NatsServerFailed when it
 * stays silent. The INFO's port must be the one asked for: a server elsewhere never counts.
 */
export async function waitUntilHealthy(
  server: WatchedNatsServer,
  timeoutMs = HEALTHY_WITHIN_MS,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (server.ended()) throw server.failure();
    const info = await natsInfoOf(
      server.port,
      Math.min(1000, Math.max(100, deadline - Date.now())),
    );
    if (info?.port === server.port && info.jetstream === true && !server.ended()) return;
    if (Date.now() > deadline)
      throw new NatsServerFailed(
        `nats-server did not answer on ${natsUrlOf(server.port)} within ${timeoutMs} ms`,
      );
    await pause(25);
  }
}

/** Options of `baton nats up`. */
export interface UpOptions {
  port: number;
  storeDir: string;
  pidFile: string;
  logFile?: string;
  /** How long start-up may take (15 s by default). */
  timeoutMs?: number;
  /** Joins it to a local cluster (natsCluster.ts). */
  member?: ClusterMember;
}

/** What `baton nats up` found or started. */
export interface NatsServerUp {
  pid: number;
  port: number;
  url: string;
  /** False when a server of this store was already up. */
  started: boolean;
}

/**
 * Starts a detached nats-server for `storeDir`, writes its pid file and waits until it is
 * healthy. A server of this store already running is reported (once it answers), never
 * doubled; a stale pid file is removed; a busy port is refused before spawning. Callers
 * serialise calls for one store (`baton nats up` holds a lock): two at once could both
 * find no server and both spawn one.
 */
export async function natsServerUp(options: UpOptions): Promise<NatsServerUp> {
  const running = runningNatsServer(options.pidFile, options.storeDir);
  if (running) return alreadyUp(running, options);
  fs.rmSync(options.pidFile, { force: true });
  if (!(await until(() => portFree(options.port), PORT_RELEASE_MS)))
    throw new NatsPortBusy(options.port);
  const server = spawnNatsServer({ ...options, detached: true });
  const pid = server.child.pid;
  try {
    if (pid !== undefined) {
      fs.mkdirSync(dirname(options.pidFile), { recursive: true, mode: 0o700 });
      writePidFile(options.pidFile, pid);
    }
    await waitUntilHealthy(server, options.timeoutMs);
  } catch (err) {
    if (!server.ended()) server.child.kill('SIGKILL');
    if (pid !== undefined && pidIn(options.pidFile) === pid)
      fs.rmSync(options.pidFile, { force: true });
    throw err;
  }
  // Detached and unref'd: the caller may exit now and the server keeps running.
  server.child.unref();
  return { pid: pid!, port: options.port, url: natsUrlOf(options.port), started: true };
}

async function alreadyUp(running: RunningNatsServer, options: UpOptions): Promise<NatsServerUp> {
  const port = running.port ?? options.port;
  const ended = () => runningNatsServer(options.pidFile, options.storeDir)?.pid !== running.pid;
  const failure = () =>
    new NatsServerFailed(
      `nats-server pid ${running.pid} ended while starting '${options.pidFile}'`,
    );
  await waitUntilHealthy({ port, ended, failure }, options.timeoutMs);
  return { pid: running.pid, port, url: natsUrlOf(port), started: false };
}

/** Options of `baton nats down`. */
export interface DownOptions {
  storeDir: string;
  pidFile: string;
  /** How long SIGTERM may take before SIGKILL (10 s by default). */
  timeoutMs?: number;
}

/**
 * Stops the server of `storeDir`: SIGTERM (JetStream flushes its store and exits), wait,
 * then SIGKILL after the bound. Resolves with its pid, or undefined when none was running
 * (a stale pid file is removed). Only a pid /proc confirms as this store's server is signalled.
 */
export async function natsServerDown(
  options: DownOptions,
): Promise<{ pid: number; escalated: boolean } | undefined> {
  const running = runningNatsServer(options.pidFile, options.storeDir);
  if (!running) {
    fs.rmSync(options.pidFile, { force: true });
    return undefined;
  }
  const { pid } = running;
  // Gone once no process of that pid and start time runs (a zombie or a reused pid does not
  // count). Not by its command line: an exiting server's is empty while the kernel still closes
  // its files and sockets, and `down` returned before the process had ended.
  const identity = processIdentityOf(pid);
  const gone = () => identity === undefined || !identityAlive(identity);
  const ended = await endProcess(pid, {
    graceMs: options.timeoutMs ?? 10_000,
    gone,
    stillOurs: () => !gone(),
    killWaitMs: 5_000,
  });
  if (!ended.gone) throw new NatsServerFailed(`nats-server pid ${pid} did not exit after SIGKILL`);
  const escalated = ended.escalated;
  if (pidIn(options.pidFile) === pid) fs.rmSync(options.pidFile, { force: true });
  if (running.port !== undefined) await until(() => portFree(running.port!), PORT_RELEASE_MS);
  return { pid, escalated };
}
