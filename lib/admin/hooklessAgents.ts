// The running agents that cannot run Baton's hooks (runtime.md §12.7), for `baton doctor`'s
// warnings: without them an agent's state (working, idle, waiting) is never observed, the
// SessionStart summary never reaches it and Stop never keeps it from idling on waiting mail.
// Only a swarm that is up counts (its tmux socket and panes are recorded): a claude role
// whose launch had no `--settings` file (Baton's settings file is missing), a codex role whose
// worktree `.codex/hooks.json` lacks Baton's hooks, and any other program, which has no hook
// mechanism Baton knows.
import { basename } from 'node:path';
import { readTextIfPresent } from '../fsx/absent.js';
import { readRoles, type Role } from '../handoff/roles.js';
import { agentHooksPathOf, claudeHookSettingsOf } from '../project/layout.js';
import { readPanes, recordedSocketOf } from '../project/tmuxRecord.js';
import { hooklessAgentRemedy } from './remedies.js';

/** One agent without Baton's hooks, as doctor reports it. */
export interface HooklessAgent {
  path: string;
  role: string;
  kind: 'agent-without-hooks';
  problem: string;
  remedy: string;
}

/** The running roles whose agents cannot run Baton's hooks (none when no swarm is up). */
export function hooklessAgents(root: string): HooklessAgent[] {
  if (recordedSocketOf(root) === undefined) return [];
  const panes = readPanes(root);
  const roles = [...readRoles(root).roles.values()].filter((r) => panes.has(r.role));
  return roles.flatMap((role) => {
    const problem = whyHookless(root, role);
    if (problem === undefined) return [];
    const path = hookFileOf(root, role);
    const remedy = hooklessAgentRemedy(role.role, agentKindOf(role) !== undefined);
    return [{ path, role: role.role, kind: 'agent-without-hooks' as const, problem, remedy }];
  });
}

function agentKindOf(role: Role): 'claude' | 'codex' | undefined {
  const name = basename(role.agent).toLowerCase();
  return name === 'claude' || name === 'codex' ? name : undefined;
}

/** Where the role's agent would find Baton's hooks (the worktree itself for other agents). */
function hookFileOf(root: string, role: Role): string {
  const kind = agentKindOf(role);
  if (kind === 'claude') return claudeHookSettingsOf(root);
  if (kind === 'codex') return agentHooksPathOf(role.worktreePath, 'codex');
  return role.worktreePath;
}

/** Why the role's agent cannot run the hooks, or undefined when it can. */
function whyHookless(root: string, role: Role): string | undefined {
  const kind = agentKindOf(role);
  if (kind === undefined)
    return (
      `${role.role} runs ${role.agent}, which has no hooks Baton knows: its state is not ` +
      `observed (only a dead pane shows)`
    );
  const text = readTextIfPresent(hookFileOf(root, role));
  const holdsHooks = text !== undefined && /hooks\/session-start\b/.test(text);
  if (kind === 'claude' && !holdsHooks)
    return `${role.role} runs claude without Baton's hooks (its launch passed no --settings file)`;
  if (kind === 'codex' && !holdsHooks)
    return `${role.role} runs codex without Baton's hooks in its worktree's .codex/hooks.json`;
  return undefined;
}
