// `baton up` and `baton down`: swarmforge.conf → worktrees, roles.tsv, a tmux server on a
// private socket with one window per role (and a monitor window), handoffd, then the
// agents, started only once every pane's shell is ready. `down` stops the daemon and that
// tmux server and leaves worktrees and roles.tsv in place.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Tmux } from '../adapters/tmux.js';
import { startDaemon, stopDaemon } from '../daemon/control.js';
import { panesFileOf, socketFileOf } from '../daemon/waker.js';
import { parseConfig, sharesRoot, type WindowConfig } from '../handoff/config.js';
import { fail } from '../handoff/errors.js';
import { excludeSwarmDir, initProject, sessionNameOf } from '../handoff/init.js';
import { renameSynced, writeFileSynced } from '../queue/durable.js';
import { findProgram } from './agentPath.js';
import { COMMANDS, installCommandLinks } from './commandLinks.js';
import { ensureWorktree, mainCheckoutOf } from './worktrees.js';

/** What `baton up` needs besides the project. */
export interface UpOptions {
  /** Folder of the built bins (dist/bin). */
  binDir: string;
  /** Extra handoffd arguments (e.g. intervals for the demo). */
  daemonArgs?: string[];
  /** How long to wait for the panes' shells. */
  shellTimeoutMs?: number;
}

/** What `baton up` started. */
export interface SwarmUp {
  root: string;
  session: string;
  socket: string;
  panes: Map<string, string>;
  daemonPid: number;
}

/** A socket path under ROOT/.swarmforge, or under the temp folder when that is too long for a Unix socket. */
export function socketPathFor(root: string): string {
  const local = join(root, '.swarmforge', 'tmux.sock');
  if (Buffer.byteLength(local) < 100) return local;
  return join(tmpdir(), `baton-${createHash('sha256').update(root).digest('hex').slice(0, 16)}.sock`);
}

/** Quotes one word for the interactive shell of a pane. */
export function shellWord(word: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

function readWindows(root: string): WindowConfig[] {
  const confPath = join(root, 'swarmforge', 'swarmforge.conf');
  if (!fs.existsSync(confPath)) fail('environment', `baton: no swarmforge/swarmforge.conf in '${root}'`);
  const parsed = parseConfig(fs.readFileSync(confPath, 'utf8'), confPath);
  if (!parsed.ok) fail('environment', ...parsed.errors);
  return parsed.windows;
}

function writeAtomically(path: string, text: string): void {
  writeFileSynced(`${path}.tmp`, text, false);
  renameSynced(`${path}.tmp`, path);
}

async function waitForShells(tmux: Tmux, panes: string[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (const pane of panes) {
    while ((await tmux.capturePane(pane)).trim() === '') {
      if (Date.now() > deadline) fail('environment', `baton: the shell in pane ${pane} did not show a prompt within ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

/** Starts the swarm of the project containing `cwd`. */
export async function swarmUp(cwd: string, options: UpOptions): Promise<SwarmUp> {
  const root = mainCheckoutOf(cwd);
  const windows = readWindows(root);
  const bad = windows.filter((w) => !COMMANDS[w.agent] && !findProgram(w.agent)).map((w) => `baton: agent '${w.agent}' of role ${w.role} is not on PATH`);
  if (bad.length > 0) fail('environment', ...bad);
  const socket = socketPathFor(root);
  const tmux = new Tmux(socket);
  const session = sessionNameOf(root);
  if (fs.existsSync(socket) && (await tmux.hasSession(session))) {
    fail('refused', `baton: the swarm is already up (tmux session ${session} on ${socket}); run baton down first`);
  }
  initProject(root);
  excludeWorktrees(root);
  const worktreeOf = (w: WindowConfig) => (sharesRoot(w.worktree) ? root : ensureWorktree(root, w.worktree));
  const commandDir = installCommandLinks(root, options.binDir);
  const baseEnv = { SWARMFORGE_ROOT: root, PATH: `${commandDir}:${process.env.PATH ?? ''}` };
  const panes = new Map<string, string>();
  for (const [i, w] of windows.entries()) {
    const start = { name: w.role, cwd: worktreeOf(w), env: { ...baseEnv, SWARMFORGE_ROLE: w.role } };
    panes.set(w.role, i === 0 ? await tmux.newSession({ ...start, name: session, window: w.role }) : await tmux.newWindow(session, start));
  }
  fs.writeFileSync(socketFileOf(root), `${socket}\n`, { mode: 0o600 });
  writeAtomically(panesFileOf(root), [...panes].map(([role, pane]) => `${role}\t${pane}\n`).join(''));
  await tmux.newWindow(session, { name: 'monitor', cwd: root, env: baseEnv, command: [process.execPath, join(options.binDir, 'baton.js'), 'monitor'] });
  const daemonPid = await startDaemon({ root, handoffdPath: join(options.binDir, 'handoffd.js'), extraArgs: options.daemonArgs });
  await waitForShells(tmux, [...panes.values()], options.shellTimeoutMs ?? 15_000);
  for (const w of windows) {
    // Login shells may reset PATH, so the command line itself puts Baton's commands first.
    const pane = panes.get(w.role)!;
    await tmux.sendLiteral(pane, `PATH=${shellWord(commandDir)}:"$PATH" ${[w.agent, ...w.agentArgs].map(shellWord).join(' ')}`);
    await tmux.sendEnter(pane);
  }
  return { root, session, socket, panes, daemonPid };
}

function excludeWorktrees(root: string): void {
  excludeSwarmDir(root, '.worktrees/');
}

/** Stops the daemon and the swarm's tmux server; returns what was stopped. */
export async function swarmDown(cwd: string): Promise<{ daemon?: number; socket?: string }> {
  const root = mainCheckoutOf(cwd);
  const stopped = await stopDaemon(root);
  let socket: string | undefined;
  try {
    socket = fs.readFileSync(socketFileOf(root), 'utf8').trim();
  } catch {
    socket = undefined;
  }
  if (socket) {
    await new Tmux(socket).killServer();
    fs.rmSync(socket, { force: true });
    fs.rmSync(socketFileOf(root), { force: true });
  }
  fs.rmSync(panesFileOf(root), { force: true });
  return { daemon: stopped?.pid, socket };
}

/** The socket and session of a running swarm (for attach), or fails. */
export function swarmAddress(cwd: string): { socket: string; session: string } {
  const root = mainCheckoutOf(cwd);
  let socket = '';
  try {
    socket = fs.readFileSync(socketFileOf(root), 'utf8').trim();
  } catch {
    fail('environment', `baton: the swarm is not up in '${root}' (no .swarmforge/tmux-socket); run baton up`);
  }
  return { socket, session: sessionNameOf(root) };
}

/** The folder of a built bin (the running entry point). */
export function binDirOf(entry: string): string {
  return dirname(fs.realpathSync(entry));
}
