// `baton nats up [--cluster 3|5] [--port N] [--json]` and `baton nats down [--json]`: a
// local `nats-server -js` on 127.0.0.1 with its store and pid in ROOT/.swarmforge/nats/, or
// a local JetStream cluster of 3 or 5 of them with a store each in nats/<n>/, for trying the
// bridge on one machine and for tests (docs/bridge.md §4-5; production points nodes.conf's
// `nats` at a real cluster). The adapters are imported when the command runs.
// Failures reach reportFailure as they are: a busy port, a missing or failing nats-server
// are environment failures (exit 1) whose one-line message says what and where.
// Concurrency: up and down hold the lock `nats/lock` of the project while they act, so two
// `baton nats up` at once start one server (the second waits, then finds it already up)
// and a `down` never races a start half-way through writing its pid file.
import { join } from 'node:path';
import type { CommandModule } from 'yargs';
import type { MemberDown, NatsClusterUp } from '../adapters/natsCluster.js';
import type { NatsServerUp } from '../adapters/natsServer.js';
import { fail } from '../fsx/commandFailure.js';
import { bridgePathsOf } from '../project/layout.js';
import { findRoot } from '../project/root.js';
import { withLock } from '../fsx/lock.js';
import { commandGroup, json } from './commandShapes.js';

const write = (text: string): void => {
  process.stdout.write(text);
};

/**
 * The report of `baton nats up`: one line, or a JSON object with `started` false when it was
 * already up.
 */
export function upText(server: NatsServerUp, asJson: boolean): string {
  const { started, url, port, pid } = server;
  if (asJson) return `${JSON.stringify({ started, url, port, pid })}\n`;
  return `nats-server ${started ? 'up' : 'already up'} on ${url} (pid ${pid})\n`;
}

/**
 * The report of `baton nats up --cluster`: the members, then the `nats` line for nodes.conf; or a
 * JSON object (`started` false when every member was already up).
 */
export function clusterUpText(cluster: NatsClusterUp, asJson: boolean): string {
  const natsLine = `nats ${cluster.urls.join(',')}`;
  if (asJson) {
    const servers = cluster.members.map(({ name, url, pid, started }) => ({
      name,
      url,
      pid,
      started,
    }));
    const report = { started: cluster.started, urls: cluster.urls, servers, nats_line: natsLine };
    return `${JSON.stringify(report)}\n`;
  }
  const members = cluster.members.map((m) => `${m.name} (pid ${m.pid})`).join(', ');
  return `nats cluster ${cluster.started ? 'up' : 'already up'}: ${members}\n${natsLine}\n`;
}

/**
 * The report of `baton nats down`: a line per server stopped (a cluster's by name), or a JSON
 * object with `stopped` false when none was running (`servers` lists a cluster's members).
 */
export function downText(
  stopped: { pid: number; escalated: boolean } | undefined,
  asJson: boolean,
  members: MemberDown[] = [],
): string {
  if (asJson)
    return `${JSON.stringify(
      stopped || members.length > 0
        ? { stopped: true, ...stopped, ...(members.length > 0 ? { servers: members } : {}) }
        : { stopped: false },
    )}\n`;
  if (!stopped && members.length === 0) return 'nats-server not running\n';
  const line = (name: string, s: { pid: number; escalated: boolean }) => {
    const how = s.escalated ? ' (killed after the timeout)' : '';
    return `nats-server ${name}stopped (pid ${s.pid})${how}\n`;
  };
  return `${stopped ? line('', stopped) : ''}${members.map((m) => line(`${m.name} `, m)).join('')}`;
}

/** `--cluster`: 3 or 5 servers, else a usage failure. */
export function clusterOption(value: unknown): number {
  if (value === 3 || value === 5) return value;
  return fail('usage', `baton: nats up: --cluster must be 3 or 5, not '${String(value)}'`);
}

/** A TCP port from the command line: an integer from 1 to 65535, else a usage failure. */
export function portOption(value: unknown): number {
  if (typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= 65535)
    return value;
  return fail(
    'usage',
    `baton: nats up: --port must be an integer from 1 to 65535, not '${String(value)}'`,
  );
}

const up: CommandModule = {
  command: 'up',
  describe:
    `Start a local nats-server -js on 127.0.0.1 (store and pid in ` +
    `${bridgePathsOf('ROOT').natsDir}/) and wait until it ` +
    `answers; with --cluster N, N servers forming one JetStream cluster (client ports ` +
    `P..P+N-1, route ports P+100.., a store each in nats/<n>/) and the nats line for ` +
    `nodes.conf; already up: says so, exit 0; port busy: exit 1`,
  builder: (y) =>
    json(
      y
        .option('port', {
          type: 'number',
          default: 4222,
          describe: 'The (first) port, on 127.0.0.1 only',
        })
        .option('cluster', {
          type: 'number',
          describe: 'Start a local cluster of this many servers (3 or 5)',
        }),
    ),
  handler: async (args) => {
    const port = portOption(args.port);
    const count = args.cluster === undefined ? undefined : clusterOption(args.cluster);
    const { natsDir, natsPid } = bridgePathsOf(findRoot(process.cwd(), process.env));
    const { natsServerUp, NatsServerFailed } = await import('../adapters/natsServer.js');
    const { natsClusterUp, runningMembers } = await import('../adapters/natsCluster.js');
    if (count !== undefined) {
      const cluster = await withLock(lockOf(natsDir), () =>
        natsClusterUp({ count, port, natsDir, lonePidFile: natsPid }),
      );
      return write(clusterUpText(cluster, args.json as boolean));
    }
    const server = await withLock(lockOf(natsDir), () => {
      if (runningMembers(natsDir).size > 0)
        throw new NatsServerFailed(
          `a local cluster runs '${natsDir}': baton nats down first, or up --cluster`,
        );
      return natsServerUp({ port, storeDir: natsDir, pidFile: natsPid });
    });
    write(upText(server, args.json as boolean));
  },
};

const down: CommandModule = {
  command: 'down',
  describe:
    'Stop the local nats-server (or every server of a local cluster): SIGTERM, wait, then ' +
    'SIGKILL after the timeout; not running: says so, exit 0',
  builder: (y) =>
    json(
      y.option('timeout', {
        type: 'number',
        default: 10,
        describe: 'Seconds to wait after SIGTERM before SIGKILL',
      }),
    ),
  handler: async (args) => {
    const { natsDir, natsPid } = bridgePathsOf(findRoot(process.cwd(), process.env));
    const { natsServerDown } = await import('../adapters/natsServer.js');
    const { natsClusterDown } = await import('../adapters/natsCluster.js');
    const timeoutMs = timeoutOption(args.timeout);
    const [stopped, members] = await withLock(lockOf(natsDir), () =>
      Promise.all([
        natsServerDown({ storeDir: natsDir, pidFile: natsPid, timeoutMs }),
        natsClusterDown({ natsDir, timeoutMs }),
      ]),
    );
    write(downText(stopped, args.json as boolean, members));
  },
};

/**
 * The lock of the local server's start and stop: a lock folder in its store folder (the adapter
 * owns the store's other files).
 */
const lockOf = (natsDir: string): string => join(natsDir, 'lock');

function timeoutOption(value: unknown): number {
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return value * 1000;
  return fail(
    'usage',
    `baton: nats down: --timeout must be a number of seconds, not '${String(value)}'`,
  );
}

/** `baton nats <command>`. */
export const NATS_COMMAND: CommandModule = commandGroup(
  'nats',
  'A local NATS JetStream server (or cluster) for the bridge on one machine: up, down',
  [up, down],
);
