// `baton nats up [--port N] [--json]` and `baton nats down [--json]`: a local
// `nats-server -js` on 127.0.0.1 with its store and pid in ROOT/.swarmforge/nats/, for
// trying the bridge on one machine and for tests (docs/bridge.md §4; production points
// nodes.conf's `nats` at a real cluster). The adapter is imported when the command runs.
// Failures reach reportFailure as they are: a busy port, a missing or failing nats-server
// are environment failures (exit 1) whose one-line message says what and where.
// Concurrency: up and down hold the lock `nats/lock` of the project while they act, so two
// `baton nats up` at once start one server (the second waits, then finds it already up)
// and a `down` never races a start half-way through writing its pid file.
import { join } from 'node:path';
import type { CommandModule } from 'yargs';
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
 * The report of `baton nats down`: one line, or a JSON object with `stopped` false when none was
 * running.
 */
export function downText(
  stopped: { pid: number; escalated: boolean } | undefined,
  asJson: boolean,
): string {
  if (asJson)
    return `${JSON.stringify(stopped ? { stopped: true, ...stopped } : { stopped: false })}\n`;
  if (!stopped) return 'nats-server not running\n';
  return (
    `nats-server stopped (pid ` +
    `${stopped.pid})${stopped.escalated ? ' (killed after the timeout)' : ''}\n`
  );
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
    `answers; already up: says so, exit 0; port busy: exit 1`,
  builder: (y) =>
    json(
      y.option('port', {
        type: 'number',
        default: 4222,
        describe: 'The port to listen on (127.0.0.1 only)',
      }),
    ),
  handler: async (args) => {
    const port = portOption(args.port);
    const { natsDir, natsPid } = bridgePathsOf(findRoot(process.cwd(), process.env));
    const { natsServerUp } = await import('../adapters/natsServer.js');
    const server = await withLock(lockOf(natsDir), () =>
      natsServerUp({ port, storeDir: natsDir, pidFile: natsPid }),
    );
    write(upText(server, args.json as boolean));
  },
};

const down: CommandModule = {
  command: 'down',
  describe:
    'Stop the local nats-server: SIGTERM, wait, then SIGKILL ' +
    'after the timeout; not running: says so, exit 0',
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
    const timeoutMs = timeoutOption(args.timeout);
    const stopped = await withLock(lockOf(natsDir), () =>
      natsServerDown({ storeDir: natsDir, pidFile: natsPid, timeoutMs }),
    );
    write(downText(stopped, args.json as boolean));
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
  'A local NATS JetStream server for the bridge on one machine: up, down',
  [up, down],
);
