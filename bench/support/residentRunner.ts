// What a call handed to a process already running would cost its caller: the client side of a
// resident runner, a design Baton does not have (docs/decisions.md, "What the run goals would
// need"). A server child answers at once, so a client's time is the hand-off alone, no action's
// work. It has two ways in:
// - a FIFO, node:fs only: the client writes its request as one line (atomic up to PIPE_BUF), then
//   waits with Atomics.wait until the server has renamed its answer file into place;
// - a Unix socket through node:net: one request written, one answer read.
// Each client gives up after CLIENT_DEADLINE_MS (exit 75), so a dead server fails a sample
// instead of hanging the bench.
import { execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { type Contender } from './interleave.js';
import { expectRun, timedNode } from './spawnNode.js';

/** How long a client waits for its answer. */
export const CLIENT_DEADLINE_MS = 5_000;
/** What the server answers every request with. */
export const ANSWER = '{"ok":true}\n';

// The server: argv[1] is its folder (holding the FIFO `requests`, the socket `runner.sock` and
// the answers in `answers/`). A FIFO opened read-write never reads end-of-file when a client
// closes. Prints `ready` once both are open.
const SERVER = `
const fs = require('node:fs'), net = require('node:net'), dir = process.argv[1];
const answer = ${JSON.stringify(ANSWER)};
let pending = '';
fs.createReadStream(dir + '/requests', { flags: 'r+' }).on('data', (chunk) => {
  pending += chunk;
  for (let nl = pending.indexOf('\\n'); nl >= 0; nl = pending.indexOf('\\n')) {
    const { id } = JSON.parse(pending.slice(0, nl));
    pending = pending.slice(nl + 1);
    const file = dir + '/answers/' + id;
    fs.writeFileSync(file + '.tmp', answer);
    fs.renameSync(file + '.tmp', file);
  }
});
net.createServer((c) => c.once('data', () => c.end(answer))).listen(dir + '/runner.sock', () =>
  fs.writeSync(1, 'ready\\n'),
);
`;

// A FIFO client: argv[1] is the server's folder.
const FIFO_CLIENT = `
const fs = require('node:fs'), dir = process.argv[1], id = process.pid + '-' + Date.now();
const fd = fs.openSync(dir + '/requests', fs.constants.O_WRONLY | fs.constants.O_NONBLOCK);
fs.writeSync(fd, JSON.stringify({ id, argv: process.argv, cwd: process.cwd() }) + '\\n');
fs.closeSync(fd);
const answer = dir + '/answers/' + id, pause = new Int32Array(new SharedArrayBuffer(4));
const deadline = Date.now() + ${CLIENT_DEADLINE_MS};
for (;;) {
  let bytes;
  try {
    bytes = fs.readFileSync(answer);
  } catch {
    if (Date.now() > deadline) process.exit(75);
    Atomics.wait(pause, 0, 0, 0.05);
    continue;
  }
  fs.unlinkSync(answer);
  fs.writeSync(1, bytes);
  break;
}
`;

// A socket client: argv[1] is the server's folder.
const SOCKET_CLIENT = `
const socket = require('node:net').connect(process.argv[1] + '/runner.sock');
socket.setTimeout(${CLIENT_DEADLINE_MS}, () => process.exit(75));
socket.end(JSON.stringify({ argv: process.argv, cwd: process.cwd() }));
socket.on('data', (answer) => require('node:fs').writeSync(1, answer));
socket.on('error', () => process.exit(75));
`;

/** A running probe server and the two clients that call it, as bench contenders. */
export interface ResidentRunner {
  fifoClient: Contender;
  socketClient: Contender;
  stop: () => Promise<void>;
}

/**
 * Starts the probe server in `dir` (made here, removed by the caller) and waits until it
 * listens.
 */
export async function startResidentRunner(
  dir: string,
  env: NodeJS.ProcessEnv,
): Promise<ResidentRunner> {
  fs.mkdirSync(join(dir, 'answers'), { recursive: true, mode: 0o700 });
  execFileSync('mkfifo', ['-m', '600', join(dir, 'requests')]);
  const server = spawn(process.execPath, ['-e', SERVER, dir], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env,
  });
  let stderr = '';
  server.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((resolve) => server.once('exit', () => resolve()));
  await Promise.race([
    new Promise<void>((resolve) => server.stdout!.once('data', () => resolve())),
    exited.then(() => Promise.reject(new Error(`the probe server exited: ${stderr}`))),
  ]);
  const client = (name: string, script: string): Contender => ({
    name,
    run: async () => expectRun(name, await timedNode(['-e', script, dir], dir, env), ANSWER),
  });
  return {
    fifoClient: client('a FIFO client (node:fs)', FIFO_CLIENT),
    socketClient: client('a socket client (node:net)', SOCKET_CLIENT),
    stop: async () => {
      if (server.exitCode === null && server.signalCode === null) server.kill('SIGKILL');
      await exited;
    },
  };
}
