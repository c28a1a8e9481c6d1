// `baton up` and `baton down`: swarmforge.conf → worktrees, roles.tsv, a tmux server on a
// private socket with one window per role (and a monitor window), handoffd, then the
// agents, started only once every pane's shell is ready. `down` stops the daemon and that
// tmux server and leaves worktrees and roles.tsv in place. The daemon is started and
// stopped through the DaemonControl the caller gives (lib/cli wires lib/daemon/control):
// the launcher and the daemon are sibling layers and never import each other.
import * as fs from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { Tmux } from '../adapters/tmux.js';
import { sharesRoot, type WindowConfig } from '../handoff/config.js';
import { fail } from '../handoff/errors.js';
import { excludeSwarmDir, initProject, readWindows } from '../handoff/init.js';
import { panesFileOf, sessionNameOf, socketFileOf, tmuxSocketPathFor, WORKTREES_DIR_NAME } from '../handoff/layout.js';
import { formatPanes, recordedSocketOf } from '../handoff/tmuxRecord.js';
import { renameSynced, writeFileSynced } from '../queue/durable.js';
import { findProgram } from './agentPath.js';
import { COMMANDS, installCommandLinks } from './commandLinks.js';
import { ensureWorktree, mainCheckoutOf } from './worktrees.js';

/** Starting and stopping handoffd for a project. */
export interface DaemonControl {
  /** Starts the daemon in the background with extra handoffd arguments; resolves with its pid. */
  start: (root: string, extraArgs: string[]) => Promise<number>;
  /** Stops the daemon; resolves with the pid stopped, or undefined when none ran. */
  stop: (root: string) => Promise<number | undefined>;
}

/** What `baton up` needs besides the project. */
export interface UpOptions {
  /** Folder of the built bins (dist/bin). */
  binDir: string;
  daemon: DaemonControl;
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

/** Quotes one word for the interactive shell of a pane. */
export function shellWord(word: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
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
  const socket = tmuxSocketPathFor(root);
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
  writeAtomically(panesFileOf(root), formatPanes(panes));
  await tmux.newWindow(session, { name: 'monitor', cwd: root, env: baseEnv, command: [process.execPath, join(options.binDir, 'baton.js'), 'monitor'] });
  const daemonPid = await options.daemon.start(root, options.daemonArgs ?? []);
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
  excludeSwarmDir(root, `${WORKTREES_DIR_NAME}/`);
}

/** Stops the daemon and the swarm's tmux server; returns what was stopped. */
export async function swarmDown(cwd: string, daemon: DaemonControl): Promise<{ daemon?: number; socket?: string }> {
  const root = mainCheckoutOf(cwd);
  const stopped = await daemon.stop(root);
  const socket = recordedSocketOf(root) || undefined;
  if (socket) {
    await new Tmux(socket).killServer();
    fs.rmSync(socket, { force: true });
    fs.rmSync(socketFileOf(root), { force: true });
  }
  fs.rmSync(panesFileOf(root), { force: true });
  return { daemon: stopped, socket };
}

/** The socket and session of a running swarm (for attach), or fails. */
export function swarmAddress(cwd: string): { socket: string; session: string } {
  const root = mainCheckoutOf(cwd);
  const socket = recordedSocketOf(root);
  if (socket === undefined) fail('environment', `baton: the swarm is not up in '${root}' (no ${relative(root, socketFileOf(root))}); run baton up`);
  return { socket, session: sessionNameOf(root) };
}

/** The folder of a built bin (the running entry point). */
export function binDirOf(entry: string): string {
  return dirname(fs.realpathSync(entry));
}
