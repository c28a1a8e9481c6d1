// `baton up` and `baton down`: swarmforge.conf → worktrees, roles.tsv, agent prompts, a
// tmux server on a private socket with one window per role (and a monitor window),
// handoffd, then the agents, started only once every pane's shell is ready; up then waits
// until each agent is ready, and handoffd wakes none before (runtime.md §12.1,
// lib/swarm/readiness.ts). With a roster
// (swarmforge/nodes.conf) only the local node's roles get windows, worktrees and agents;
// roles.tsv and the mailboxes still hold every role of the swarm. Everything is checked
// before anything starts (the local node, agents on PATH, the pack's prompt files, a first
// commit when worktrees are needed); if a later step fails, up takes back what it started (the
// tmux server, the daemon it started, the files recording them, the worktrees it created)
// and fails with the original cause. `down` stops the daemon and every tmux server the
// project's socket files name, and leaves worktrees, roles.tsv and mailboxes in place.
// The daemon is started and stopped through the DaemonControl the caller gives (lib/cli
// wires lib/daemon/control): the launcher and the daemon are sibling layers.
import * as fs from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { Tmux } from '../adapters/tmux.js';
import { sharesRoot, type WindowConfig } from '../handoff/config.js';
import { runningDaemon } from '../project/daemonRecord.js';
import { fail } from '../fsx/commandFailure.js';
import { initProject, readWindows, withExtraWindows, type InitResult } from '../admin/init.js';
import { excludeSwarmDir } from '../project/gitExclude.js';
import {
  panesFileOf,
  sessionNameOf,
  socketFileOf,
  tmuxSocketPathFor,
  WORKTREES_DIR_NAME,
} from '../project/layout.js';
import { type Role } from '../handoff/roles.js';
import { localNodeOf, readRoster, rolesOfNode } from '../handoff/roster.js';
import { formatPanes, recordedSocketOf } from '../project/tmuxRecord.js';
import { failPoint } from '../fsx/crash.js';
import { holdWakeups, releaseAllWakeups } from '../project/launchHold.js';
import { publishWhole } from '../fsx/durable.js';
import { shareProject } from '../admin/share.js';
import { agentCommandLine, type LaunchHooks } from './agentLaunch.js';
import { checkAgentsUser, paneCommandAs, recordAgentsUser } from './agentsUser.js';
import { prepareLaunchHooks } from './agentHooks.js';
import { findProgram } from './agentPath.js';
import { checkPackPrompts, writeAgentPrompts } from './agentPrompts.js';
import { COMMANDS, installCommandLinks } from './commandLinks.js';
import {
  awaitReadiness,
  DEFAULT_READY_TIMEOUT_MS,
  promptTailOf,
  type Readiness,
  type ReadinessWatch,
} from './readiness.js';
import { UndoStack } from './undoStack.js';
import { ensureWorktree, mainCheckoutOf, removeWorktree, requireFirstCommit } from './worktrees.js';

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
  /** How long to wait for each agent to be ready after its launch (default 120 s). */
  readyTimeoutMs?: number;
  /**
   * Roles to add to the configured ones, each with its window (e.g. `baton run up`'s controller).
   */
  extraWindows?: WindowConfig[];
  /** The user the configured roles' agents run as (lib/swarm/agentsUser.ts); the owner if none. */
  agentsUser?: string;
}

/** What `baton up` started. */
export interface SwarmUp {
  root: string;
  /** The SwarmForge mail found in the worktrees: imported, or left in place. */
  imports: InitResult['imports'];
  session: string;
  socket: string;
  panes: Map<string, string>;
  daemonPid: number;
  /** Each local role's agent: ready, or not after the ready timeout (and why). */
  readiness: Readiness[];
}

/** What up has checked and decided before it starts anything. */
interface Plan {
  root: string;
  windows: WindowConfig[];
  isPack: boolean;
  socket: string;
  session: string;
  tmux: Tmux;
  shellTimeoutMs: number;
}

/** The environment of every pane of the swarm: the project root, and Baton's commands on PATH. */
export function swarmEnvOf(root: string, commandDir: string): Record<string, string> {
  return { SWARMFORGE_ROOT: root, PATH: `${commandDir}:${process.env.PATH ?? ''}` };
}

/** How a role's window is started (up, and restart when the pane is gone). */
export function roleWindowOf(
  role: Role,
  swarmEnv: Record<string, string>,
  asUser?: string,
): { name: string; cwd: string; env: Record<string, string>; command?: string[] } {
  const env = { ...swarmEnv, SWARMFORGE_ROLE: role.role };
  return {
    name: role.role,
    cwd: role.worktreePath,
    env,
    ...(asUser === undefined ? {} : { command: paneCommandAs(asUser, env) }),
  };
}

/** Waits until every pane shows its shell's prompt, or fails (environment) at the timeout. */
export async function waitForShells(tmux: Tmux, panes: string[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (const pane of panes) {
    while ((await tmux.capturePane(pane)).trim() === '') {
      if (Date.now() > deadline)
        fail(
          'environment',
          `baton: the shell in pane ${pane} did not show a prompt within ${timeoutMs} ms`,
        );
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

/**
 * The windows this machine starts: every configured one plus the extra ones; with a roster
 * only those of the local node's roles (fails when the local node is unknown), and the extra
 * windows whose role swarmforge.conf does not have (a command adds them on the node it runs on).
 */
function localWindows(root: string, extraWindows: WindowConfig[]): WindowConfig[] {
  const configured = readWindows(root);
  const all = withExtraWindows(configured, extraWindows);
  const roster = readRoster(root);
  if (roster === undefined) return all;
  const local = new Set(rolesOfNode(roster, localNodeOf(root, roster)));
  return all.filter((w) => local.has(w.role) || !configured.some((c) => c.role === w.role));
}

/** Every check that can refuse `baton up`, before anything is created. */
async function planSwarm(
  cwd: string,
  extraWindows: WindowConfig[],
  shellTimeoutMs: number,
): Promise<Plan> {
  const root = mainCheckoutOf(cwd);
  const windows = localWindows(root, extraWindows);
  const missing = windows
    .filter((w) => !COMMANDS[w.agent] && !findProgram(w.agent))
    .map((w) => `baton: agent '${w.agent}' of role ${w.role} is not on PATH`);
  if (missing.length > 0) fail('environment', ...missing);
  const isPack = checkPackPrompts(
    root,
    windows.map((w) => w.role),
  );
  if (windows.some((w) => !sharesRoot(w.worktree))) requireFirstCommit(root);
  const socket = tmuxSocketPathFor(root);
  const tmux = new Tmux(socket);
  const session = sessionNameOf(root);
  if (fs.existsSync(socket) && (await tmux.hasSession(session))) {
    fail(
      'refused',
      `baton: the swarm is already up (tmux session ${session} on ${socket}); run baton down first`,
    );
  }
  return { root, windows, isPack, socket, session, tmux, shellTimeoutMs };
}

/** Creates the worktrees the roles need; each one created is registered for undo. */
function prepareWorktrees(plan: Plan, undo: UndoStack): void {
  excludeSwarmDir(plan.root, `${WORKTREES_DIR_NAME}/`);
  for (const w of plan.windows) {
    if (sharesRoot(w.worktree)) continue;
    const made = ensureWorktree(plan.root, w.worktree);
    if (made.created) undo.push(`worktree ${made.path}`, () => removeWorktree(plan.root, made));
  }
}

/**
 * Starts the tmux server with one window per role and the monitor, and records socket and panes;
 * all registered for undo.
 */
async function startPanes(
  plan: Plan,
  roles: Role[],
  baseEnv: Record<string, string>,
  options: UpOptions,
  undo: UndoStack,
  readyTimeoutMs: number,
): Promise<Map<string, string>> {
  const binDir = options.binDir;
  const baton = new Set((options.extraWindows ?? []).map((w) => w.role));
  const userOf = (role: Role) => (baton.has(role.role) ? undefined : options.agentsUser);
  const { root, tmux, session } = plan;
  undo.push(`tmux server ${plan.socket}`, async () => {
    await tmux.killServer();
    fs.rmSync(plan.socket, { force: true });
    fs.rmSync(socketFileOf(root), { force: true });
    fs.rmSync(panesFileOf(root), { force: true });
  });
  const panes = new Map<string, string>();
  for (const [i, role] of roles.entries()) {
    const start = roleWindowOf(role, baseEnv, userOf(role));
    panes.set(
      role.role,
      i === 0
        ? await tmux.newSession({ ...start, name: session, window: role.role })
        : await tmux.newWindow(session, start),
    );
  }
  publishWhole(socketFileOf(root), `${plan.socket}\n`);
  publishWhole(panesFileOf(root), formatPanes(panes));
  // Held before handoffd can start: no wake-up may reach a pane whose agent is not ready.
  const holdUntil = Date.now() + readyTimeoutMs + plan.shellTimeoutMs + 10_000;
  undo.push('wake-up holds', () => releaseAllWakeups(root));
  for (const role of roles) holdWakeups(root, role.role, holdUntil);
  await tmux.newWindow(session, {
    name: 'monitor',
    cwd: root,
    env: baseEnv,
    command: [process.execPath, join(binDir, 'baton.js'), 'monitor'],
  });
  failPoint('up:panes-started');
  return panes;
}

/** The running daemon of the project, or one started now (registered for undo). */
async function ensureDaemon(root: string, options: UpOptions, undo: UndoStack): Promise<number> {
  const running = runningDaemon(root);
  if (running !== undefined) return running;
  const pid = await options.daemon.start(root, options.daemonArgs ?? []);
  undo.push(`handoffd pid ${pid}`, async () => void (await options.daemon.stop(root)));
  failPoint('up:daemon-started');
  return pid;
}

/** What starts one role's agent in its pane. */
export interface AgentStart {
  role: Role;
  window: WindowConfig;
  /** The pack's prompt file of the role, when the project is a SwarmForge pack. */
  promptFile: string | undefined;
  /** The folder of the agent command links (on the agents' PATH). */
  commandDir: string;
  /** Baton's hooks on the launch line (prepareLaunchHooks). */
  hooks: LaunchHooks;
}

/** Types the role's agent launch line into the pane's shell and submits it (up and restart). */
export async function typeAgentLaunch(tmux: Tmux, pane: string, start: AgentStart): Promise<void> {
  const { role, window: w } = start;
  const agentDir =
    COMMANDS[w.agent] || w.agent.includes('/') ? undefined : dirname(findProgram(w.agent)!);
  await tmux.sendLiteral(
    pane,
    agentCommandLine({
      role: role.role,
      agent: w.agent,
      extraArgs: w.extraArgs,
      worktreePath: role.worktreePath,
      promptFile: start.promptFile,
      commandDir: start.commandDir,
      agentDir,
      hooks: start.hooks,
    }),
  );
  await tmux.sendEnter(pane);
}

/** Starts the swarm of the project containing `cwd`; on failure takes back what it started. */
export async function swarmUp(cwd: string, options: UpOptions): Promise<SwarmUp> {
  const plan = await planSwarm(cwd, options.extraWindows ?? [], options.shellTimeoutMs ?? 15_000);
  const readyTimeoutMs = options.readyTimeoutMs ?? DEFAULT_READY_TIMEOUT_MS;
  const groupId =
    options.agentsUser === undefined ? undefined : checkAgentsUser(plan.root, options.agentsUser);
  const undo = new UndoStack();
  try {
    const { roles: allRoles, imports } = await initProject(plan.root, options.extraWindows ?? []);
    const roles = allRoles.filter((r) => plan.windows.some((w) => w.role === r.role));
    prepareWorktrees(plan, undo);
    const commandDir = installCommandLinks(plan.root, options.binDir);
    const prompts = plan.isPack ? writeAgentPrompts(plan.root, roles) : new Map<string, string>();
    // What up made (worktrees, mailboxes, prompts) shared like the rest.
    if (groupId !== undefined) shareProject(plan.root, String(groupId), false);
    recordAgentsUser(plan.root, options.agentsUser);
    const baseEnv = swarmEnvOf(plan.root, commandDir);
    const panes = await startPanes(plan, roles, baseEnv, options, undo, readyTimeoutMs);
    const daemonPid = await ensureDaemon(plan.root, options, undo);
    const hooks = prepareLaunchHooks(
      plan.root,
      options.binDir,
      roles.map((r, i) => ({ agent: plan.windows[i]!.agent, worktreePath: r.worktreePath })),
    );
    await waitForShells(plan.tmux, [...panes.values()], plan.shellTimeoutMs);
    const shells = new Map((await plan.tmux.listPanes(plan.session)).map((p) => [p.id, p.command]));
    const watches: ReadinessWatch[] = [];
    for (const [i, role] of roles.entries()) {
      const w = plan.windows[i]!;
      const pane = panes.get(role.role)!;
      const promptFile = prompts.get(role.role);
      const launch = { role, window: w, promptFile, commandDir };
      await typeAgentLaunch(plan.tmux, pane, { ...launch, hooks: hooks[i]! });
      watches.push({
        role: role.role,
        pane,
        shell: shells.get(pane) ?? '',
        launchedAt: Date.now(),
        promptTail: promptFile ? promptTailOf(fs.readFileSync(promptFile, 'utf8')) : undefined,
        ownProgram: COMMANDS[w.agent] !== undefined,
      });
    }
    failPoint('up:agents-launched');
    const readiness = await awaitReadiness(plan.root, plan.tmux, watches, readyTimeoutMs);
    return {
      root: plan.root,
      imports,
      session: plan.session,
      socket: plan.socket,
      panes,
      daemonPid,
      readiness,
    };
  } catch (err) {
    const failures = await undo.run();
    for (const line of failures) process.stderr.write(`baton: ${line}\n`);
    throw err;
  }
}

/** What `baton down` stopped. */
export interface SwarmDown {
  /** The daemon's pid, when one was stopped. */
  daemon?: number;
  /** True when a tmux server was running and was stopped. */
  server: boolean;
}

/**
 * Stops the daemon and every tmux server the project's socket files name (the recorded one and the
 * default path).
 */
export async function swarmDown(cwd: string, daemon: DaemonControl): Promise<SwarmDown> {
  const root = mainCheckoutOf(cwd);
  const stopped = await daemon.stop(root);
  releaseAllWakeups(root);
  let server = false;
  for (const socket of new Set([recordedSocketOf(root), tmuxSocketPathFor(root)])) {
    if (!socket || !fs.existsSync(socket)) continue;
    if (await new Tmux(socket).killServer()) server = true;
    fs.rmSync(socket, { force: true });
  }
  fs.rmSync(socketFileOf(root), { force: true });
  fs.rmSync(panesFileOf(root), { force: true });
  return { daemon: stopped, server };
}

/** The socket and session of a running swarm (for attach), or fails. */
export function swarmAddress(cwd: string): { socket: string; session: string } {
  const root = mainCheckoutOf(cwd);
  const socket = recordedSocketOf(root);
  if (socket === undefined)
    fail(
      'environment',
      `baton: the swarm is not up in '${root}' (no ` +
        `${relative(root, socketFileOf(root))}); run baton up`,
    );
  return { socket, session: sessionNameOf(root) };
}
