// `baton restart <role>` (runtime.md §12.2): one agent stopped and started again while the
// rest of the swarm works on. The agent is the foreground job of its pane's shell: its
// process group gets SIGTERM, then SIGKILL after the grace (lib/proc/ending.ts), and once the
// shell is back in the foreground the role's launch line is typed again, as `baton up` types
// it (same worktree, window, prompt and environment). A pane that is gone is made again in
// the role's window and recorded in panes.tsv. The mailbox is not touched: an item in
// process stays, and the new session's SessionStart hook says so. Every refusal (an unknown
// role, one of another node, a swarm that is not up) is decided before anything is signalled.
//
// A rerun after a crash at any step ends with one agent: killed after the stop, the rerun
// finds the shell idle and starts it; killed after the launch, the rerun restarts that one.
import * as fs from 'node:fs';
import { Tmux } from '../adapters/tmux.js';
import { readWindows } from '../admin/init.js';
import { type WindowConfig } from '../handoff/config.js';
import { readRoles, type Role } from '../handoff/roles.js';
import { localNodeOf, readRoster } from '../handoff/roster.js';
import { processStatOf } from '../fsx/processIdentity.js';
import { fail } from '../fsx/commandFailure.js';
import { crashPoint } from '../fsx/crash.js';
import { publishWhole } from '../fsx/durable.js';
import { printable } from '../fsx/printable.js';
import { endGroupAs, readAgentsUser } from './agentsUser.js';
import { endGroup, until } from '../proc/ending.js';
import { panesFileOf, sessionNameOf } from '../project/layout.js';
import { formatPanes, readPanes, recordedSocketOf } from '../project/tmuxRecord.js';
import { checkPackPrompts, writeAgentPrompts } from './agentPrompts.js';
import { installCommandLinks } from './commandLinks.js';
import { roleWindowOf, swarmEnvOf, typeAgentLaunch, waitForShells } from './up.js';
import { prepareLaunchHooks } from './agentHooks.js';
import { mainCheckoutOf } from './worktrees.js';

/** What `baton restart` did: the role, its pane and the new agent's process. */
export interface RoleRestart {
  role: string;
  pane: string;
  pid: number;
}

/** How `baton restart` runs. */
export interface RestartOptions {
  /** Folder of the built bins (dist/bin), for the agent command links. */
  binDir: string;
  /** How long the agent has between SIGTERM and SIGKILL (runtime.md §12.2: 5 s). */
  graceMs?: number;
  /** How long the new agent may take to become the pane's foreground job. */
  startTimeoutMs?: number;
}

/** The shell of a pane and its terminal's foreground process group, from /proc. */
interface PaneJob {
  shellGroup: number;
  foreground: number;
}

function paneJobOf(shellPid: number): PaneJob | undefined {
  const fields = processStatOf(shellPid);
  return fields && { shellGroup: Number(fields[2]), foreground: Number(fields[5]) };
}

/** A child process of `pid` (the first found in /proc), if it has one. */
function childOf(pid: number): number | undefined {
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    if (processStatOf(Number(name))?.[1] === String(pid)) return Number(name);
  }
  return undefined;
}

/** The process group of the agent running in the pane's shell, if one runs. */
function agentGroupOf(shellPid: number): number | undefined {
  const job = paneJobOf(shellPid);
  if (job === undefined || job.foreground <= 0 || job.foreground === job.shellGroup) return;
  return job.foreground;
}

/** The role's window of swarmforge.conf, or a refusal naming why it cannot be restarted here. */
function roleToRestart(root: string, role: string): WindowConfig {
  const windows = readWindows(root);
  const window = windows.find((w) => w.role === role);
  if (window === undefined)
    fail(
      'refused',
      `baton restart: unknown role '${printable(role)}'; the roles of swarmforge.conf are ` +
        windows.map((w) => w.role).join(', '),
    );
  const roster = readRoster(root);
  const node = roster?.nodeOfRole.get(role);
  if (roster !== undefined && node !== undefined && node !== localNodeOf(root, roster))
    fail(
      'refused',
      `baton restart: role ${role} runs on node ${node} (swarmforge/nodes.conf); restart it there`,
    );
  return window;
}

/** The role's roles.tsv entry (its worktree), which `baton up` wrote. */
function roleEntryOf(root: string, role: string): Role {
  const entry = readRoles(root).roles.get(role);
  if (entry === undefined) fail('environment', `baton restart: role ${role} is not in roles.tsv`);
  return entry;
}

/** The swarm's tmux server and session, or an environment failure saying to run `baton up`. */
async function runningSwarm(root: string): Promise<{ tmux: Tmux; session: string }> {
  const socket = recordedSocketOf(root);
  const session = sessionNameOf(root);
  const tmux = socket ? new Tmux(socket) : undefined;
  if (tmux === undefined || !fs.existsSync(socket!) || !(await tmux.hasSession(session)))
    fail('environment', `baton restart: the swarm is not up in '${root}'; run baton up`);
  return { tmux, session };
}

/** The role's live pane: the recorded one, else a new window of the role (recorded). */
async function paneOf(
  tmux: Tmux,
  session: string,
  root: string,
  role: Role,
  commandDir: string,
  asUser: string | undefined,
): Promise<string> {
  const panes = readPanes(root);
  const recorded = panes.get(role.role);
  const live = await tmux.listPanes(session);
  if (recorded !== undefined && live.some((p) => p.id === recorded && !p.dead)) return recorded;
  const pane = await tmux.newWindow(
    session,
    roleWindowOf(role, swarmEnvOf(root, commandDir), asUser),
  );
  await waitForShells(tmux, [pane], 15_000);
  panes.set(role.role, pane);
  publishWhole(panesFileOf(root), formatPanes(panes));
  return pane;
}

/** Restarts the agent of `role` in the swarm of the project containing `cwd`. */
export async function restartRole(
  cwd: string,
  role: string,
  options: RestartOptions,
): Promise<RoleRestart> {
  const root = mainCheckoutOf(cwd);
  const window = roleToRestart(root, role);
  const { tmux, session } = await runningSwarm(root);
  const entry = roleEntryOf(root, role);
  const commandDir = installCommandLinks(root, options.binDir);
  // Baton's own window (a run's controller) is the owner's; an agent's may be another user's.
  const asUser = window.agent === 'baton' ? undefined : readAgentsUser(root);
  const pane = await paneOf(tmux, session, root, entry, commandDir, asUser);
  const panePid = Number(await tmux.display(pane, '#{pane_pid}'));
  // In a pane of another user's agent the pane's process is sudo; the shell is its child.
  const shellPid = asUser === undefined ? panePid : (childOf(panePid) ?? panePid);
  const running = agentGroupOf(shellPid);
  if (running !== undefined) {
    const graceMs = options.graceMs ?? 5_000;
    if (asUser === undefined) await endGroup(running, graceMs);
    else await endGroupAs(asUser, running, graceMs, () => agentGroupOf(shellPid) === undefined);
    const back = await until(() => agentGroupOf(shellPid) === undefined, 5_000);
    if (!back)
      fail('temporary', `baton restart: the agent of ${role} (group ${running}) did not end`);
  }
  crashPoint('restart:agent-stopped');
  const isPack = checkPackPrompts(root, [role]);
  const promptFile = isPack ? writeAgentPrompts(root, [entry]).get(role) : undefined;
  const [hooks] = prepareLaunchHooks(root, options.binDir, [
    { agent: window.agent, worktreePath: entry.worktreePath },
  ]);
  await typeAgentLaunch(tmux, pane, { role: entry, window, promptFile, commandDir, hooks: hooks! });
  crashPoint('restart:agent-launched');
  let pid: number | undefined;
  const started = await until(
    () => (pid = agentGroupOf(shellPid)) !== undefined,
    options.startTimeoutMs ?? 15_000,
  );
  if (!started)
    fail(
      'temporary',
      `baton restart: the agent of ${role} was typed into pane ${pane} but is not running ` +
        'there; see the pane (baton attach)',
    );
  return { role, pane, pid: pid! };
}
