// Owner actions are the owner's (docs/runtime.md §11.7): start, new, pause, resume, retry,
// request-changes, approve, cancel, fail and answer are refused from inside the swarm, before
// anything else about the action is looked at. Inside means any one of three signals:
//   1. $SWARMFORGE_ROLE is set (every agent's pane has it);
//   2. $TMUX names the swarm's tmux socket and $TMUX_PANE is a role's pane in panes.tsv;
//   3. an ancestor of this process is the process of a role's pane (a program that cleared
//      its environment is still a child of the pane).
// A window the owner opens in the swarm's tmux server is no role's pane, so it passes.
// Agents run as the owner's OS user: this stops an agent that strays, not one set on getting
// around it (running the agents as another user is the wall; docs/runtime.md says how).
import * as fs from 'node:fs';
import { resolve } from 'node:path';
import { Tmux } from '../../adapters/tmux.js';
import { fail } from '../../fsx/commandFailure.js';
import { processStatOf } from '../../fsx/processIdentity.js';
import { readPanes, recordedSocketOf } from '../../project/tmuxRecord.js';
import { runRootOf } from '../record/runRoot.js';

/** The parent pid of `pid` from /proc (undefined where there is no /proc entry). */
function parentOf(pid: number): number | undefined {
  try {
    const ppid = Number(processStatOf(pid)?.[1]);
    return Number.isInteger(ppid) && ppid > 0 ? ppid : undefined;
  } catch {
    return undefined;
  }
}

/** This process's ancestors, nearest first (up to init). */
function ancestorsOf(pid: number): number[] {
  const chain: number[] = [];
  for (let p = parentOf(pid); p !== undefined && p > 1 && chain.length < 64; p = parentOf(p))
    chain.push(p);
  return chain;
}

/** The role whose pane `pane` is, by panes.tsv. */
function roleOfPane(panes: Map<string, string>, pane: string | undefined): string | undefined {
  return [...panes].find(([, id]) => id === pane)?.[0];
}

/** Signal 2: $TMUX on the swarm's socket, $TMUX_PANE a role's pane. */
function roleByTmuxEnv(
  env: NodeJS.ProcessEnv,
  socket: string,
  panes: Map<string, string>,
): string | undefined {
  const socketOfEnv = env.TMUX?.split(',')[0];
  if (!socketOfEnv || resolve(socketOfEnv) !== resolve(socket)) return undefined;
  return roleOfPane(panes, env.TMUX_PANE);
}

/** Signal 3: a role's pane process among this process's ancestors. */
async function roleByAncestry(
  socket: string,
  panes: Map<string, string>,
): Promise<string | undefined> {
  if (!fs.existsSync(socket)) return undefined;
  const listed = await new Tmux(socket).listPanes().catch(() => []);
  const ancestors = new Set(ancestorsOf(process.pid));
  const pane = listed.find((p) => ancestors.has(p.pid));
  return pane === undefined ? undefined : roleOfPane(panes, pane.id);
}

/** The swarm role this process acts from (any of the three signals), or undefined. */
export async function swarmRoleOfCaller(
  root: string,
  env: NodeJS.ProcessEnv,
): Promise<string | undefined> {
  const role = env.SWARMFORGE_ROLE?.trim();
  if (role) return role;
  const socket = recordedSocketOf(root);
  if (!socket) return undefined;
  const panes = readPanes(root);
  if (panes.size === 0) return undefined;
  return roleByTmuxEnv(env, socket, panes) ?? (await roleByAncestry(socket, panes));
}

/** ROOT for `cwd`, or undefined outside a project (then only $SWARMFORGE_ROLE can tell). */
function projectRootOf(cwd: string, env: NodeJS.ProcessEnv): string | undefined {
  try {
    return runRootOf(cwd, env);
  } catch {
    return undefined;
  }
}

/** Refuses (exit 2) an owner action run in `cwd` from inside the swarm, naming the role. */
export async function requireOwnerChannel(
  cwd: string,
  env: NodeJS.ProcessEnv,
  action: string,
): Promise<void> {
  const root = projectRootOf(cwd, env);
  const role =
    root === undefined
      ? env.SWARMFORGE_ROLE?.trim() || undefined
      : await swarmRoleOfCaller(root, env);
  if (role !== undefined)
    fail(
      'refused',
      `${action} is the owner's decision and cannot be made from an agent's pane (role ${role})`,
    );
}
