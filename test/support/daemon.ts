// Fixtures for daemon and tmux tests: a handoffd child process, a private tmux server,
// stand-in agent programs, and polling for conditions (never fixed sleeps).
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import { join, resolve } from 'node:path';
import { Tmux } from '../../lib/adapters/tmux.js';
import { DaemonLog } from '../../lib/daemon/log.js';
import { newDaemonState, type DaemonState } from '../../lib/daemon/state.js';
import { mkdirSynced } from '../../lib/fsx/durable.js';
import { daemonPathsOf } from '../../lib/project/layout.js';
import { BIN_DIR } from './project.js';

/**
 * Polls `condition` until it holds; throws with `what` after `timeoutMs`. A cheap condition
 * (a file read) is polled every 10 ms. One that starts a process (`baton run status` takes
 * 150–300 ms of CPU) waits twice its own duration before the next poll: polled back to back,
 * such a condition keeps a whole core busy starting node, which on a 2-core machine starves
 * the very processes the test waits for.
 */
export async function waitFor(
  what: string,
  condition: () => boolean | Promise<boolean>,
  timeoutMs = 15_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const polled = performance.now();
    if (await condition()) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    const spent = performance.now() - polled;
    await new Promise((r) => setTimeout(r, Math.min(1_000, Math.max(10, 2 * spent))));
  }
}

/** A running handoffd child. */
export interface DaemonChild {
  child: ChildProcess;
  stderr: () => string;
  exited: Promise<number | null>;
}

/** Starts `handoffd --root root ...args` and waits until its pid file names it. */
export async function startHandoffd(
  root: string,
  args: string[] = [],
  env: Record<string, string> = {},
): Promise<DaemonChild> {
  const child = spawn(process.execPath, [join(BIN_DIR, 'handoffd.js'), '--root', root, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  child.stderr!.on('data', (b: Buffer) => (err += b.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const pidFile = join(root, '.swarmforge', 'daemon', 'handoffd.pid');
  let gone = false;
  void exited.then(() => (gone = true));
  await waitFor(
    'handoffd to start',
    () =>
      gone ||
      (fs.existsSync(pidFile) && fs.readFileSync(pidFile, 'utf8').trim() === String(child.pid)),
  );
  return { child, stderr: () => err, exited };
}

/** What a daemon test started (ended after each test by endStarted). */
export interface Started {
  daemon?: DaemonChild;
  panes?: { kill: () => Promise<void> };
}

/** Ends what a test started: SIGKILLs the daemon if it still runs and reaps it, kills the tmux server; forgets both. */
export async function endStarted(started: Started): Promise<void> {
  const { daemon, panes } = started;
  delete started.daemon;
  delete started.panes;
  if (daemon && daemon.child.exitCode === null && daemon.child.signalCode === null)
    daemon.child.kill('SIGKILL');
  await daemon?.exited;
  await panes?.kill();
}

/** Stops a daemon with the `stop` sentinel (protocol §8.2); resolves with its exit code. */
export async function stopHandoffd(root: string, daemon: DaemonChild): Promise<number | null> {
  fs.writeFileSync(join(root, '.swarmforge', 'daemon', 'stop'), '');
  return daemon.exited;
}

/** The daemon's log lines. */
export function daemonLog(root: string): string[] {
  const path = join(root, '.swarmforge', 'daemon', 'handoffd.log');
  return fs.existsSync(path) ? fs.readFileSync(path, 'utf8').split('\n').filter(Boolean) : [];
}

/** How many passes the daemon has finished (from health.json). */
export function passesOf(root: string): number {
  try {
    return (
      JSON.parse(fs.readFileSync(join(root, '.swarmforge', 'daemon', 'health.json'), 'utf8')) as {
        passes: number;
      }
    ).passes;
  } catch {
    return 0;
  }
}

/** Waits until the daemon has finished `n` more full passes. */
export async function afterPasses(root: string, n = 2): Promise<void> {
  const start = passesOf(root);
  await waitFor(`${n} daemon passes`, () => passesOf(root) >= start + n);
}

/** What a role's pane runs instead of `cat`: its program and arguments, its folder (default ROOT), extra environment. */
export interface PaneProgram {
  command: string[];
  cwd?: string;
  env?: Record<string, string>;
}

/** A private tmux server (socket in `dir`) with one window per role running `cat` (or the role's program); records tmux-socket and panes.tsv. */
export async function startPanes(
  root: string,
  roles: string[],
  programs: Record<string, PaneProgram> = {},
): Promise<{ tmux: Tmux; panes: Map<string, string>; kill: () => Promise<void> }> {
  const socket = join(root, '.swarmforge', 'test-tmux.sock');
  const tmux = new Tmux(socket);
  const panes = new Map<string, string>();
  for (const [i, role] of roles.entries()) {
    const program = programs[role];
    const options = {
      name: role,
      cwd: program?.cwd ?? root,
      // Two words, so tmux executes cat itself: a lone word goes through $SHELL -c, and the
      // tests' /bin/sh (dash) keeps itself as the pane's process instead of exec'ing it.
      command: program?.command ?? ['cat', '-'],
      env: program?.env,
    };
    panes.set(
      role,
      i === 0
        ? await tmux.newSession({ ...options, name: 'test', window: role })
        : await tmux.newWindow('test', options),
    );
  }
  fs.writeFileSync(join(root, '.swarmforge', 'tmux-socket'), `${socket}\n`);
  fs.writeFileSync(
    join(root, '.swarmforge', 'panes.tsv'),
    [...panes].map(([r, p]) => `${r}\t${p}\n`).join(''),
  );
  return { tmux, panes, kill: async () => void (await tmux.killServer()) };
}

/** What a stand-in agent recorded when it started (test/support/standInAgent.mjs). */
export interface StandInRecord {
  name: string;
  argv: string[];
  cwd: string;
  pid: number;
  env: Record<string, string>;
}

/** A folder of stand-in agent programs named `names` (links to standInAgent.mjs) and the folder they record into. */
export function standInAgents(
  dir: string,
  names: string[],
): {
  bin: string;
  records: string;
  recordOf: (name: string, role: string) => StandInRecord | undefined;
} {
  const script = resolve('test/support/standInAgent.mjs');
  fs.chmodSync(script, 0o755);
  const bin = join(dir, 'stand-in-bin');
  const records = join(dir, 'stand-in-records');
  fs.mkdirSync(bin, { recursive: true });
  fs.mkdirSync(records, { recursive: true });
  for (const name of names) fs.symlinkSync(script, join(bin, name));
  const recordOf = (name: string, role: string) => {
    try {
      return JSON.parse(
        fs.readFileSync(join(records, `${name}.${role}.json`), 'utf8'),
      ) as StandInRecord;
    } catch {
      return undefined;
    }
  };
  return { bin, records, recordOf };
}

/**
 * A daemon's state for in-process tests of ROOT's daemon steps (1 s poll, 60 s re-wake, its
 * temp folder made; no watches and never stopping unless `hooks` say); close its log in
 * `afterEach`.
 */
export function daemonStateFor(
  root: string,
  hooks: { notify?: () => void; stopRequested?: () => boolean } = {},
): DaemonState {
  const paths = daemonPathsOf(root);
  mkdirSynced(paths.tmp);
  return newDaemonState(
    { root, pollIntervalMs: 1000, rewakeIntervalS: 60 },
    paths,
    new DaemonLog(paths.log),
    hooks.notify ?? (() => undefined),
    hooks.stopRequested ?? (() => false),
  );
}
