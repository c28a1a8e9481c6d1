// The running agents that cannot run Baton's hooks (runtime.md §12.7), for `baton doctor`'s
// warnings: without them an agent's state (working, idle, waiting) is never observed, the
// SessionStart summary never reaches it and Stop never keeps it from idling on waiting mail.
// Only a swarm that is up counts (its tmux socket and panes are recorded): a claude role
// whose launch had no `--settings` file (Baton's settings file is missing), a codex role whose
// worktree `.codex/hooks.json` lacks Baton's hooks, and any other program, which has no hook
// mechanism Baton knows.
import { readTextIfPresent } from '../fsx/absent.js';
import { knownAgentOf } from '../handoff/knownAgents.js';
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
    const kind = hookKindOf(role);
    const path = hookFileOf(root, role, kind);
    const problem = whyHookless(role, kind, path);
    if (problem === undefined) return [];
    const remedy = hooklessAgentRemedy(role.role, kind !== undefined);
    return [{ path, role: role.role, kind: 'agent-without-hooks' as const, problem, remedy }];
  });
}

/** claude or codex, the agents with hooks Baton knows; undefined for any other program. */
function hookKindOf(role: Role): 'claude' | 'codex' | undefined {
  const known = knownAgentOf(role.agent);
  return known === 'claude' || known === 'codex' ? known : undefined;
}

/** Where the role's agent would find Baton's hooks (the worktree itself for other agents). */
function hookFileOf(root: string, role: Role, kind: 'claude' | 'codex' | undefined): string {
  if (kind === 'claude') return claudeHookSettingsOf(root);
  if (kind === 'codex') return agentHooksPathOf(role.worktreePath, 'codex');
  return role.worktreePath;
}

/** Why the role's agent cannot run the hooks (`path`: its hook file), or undefined when it can. */
function whyHookless(
  role: Role,
  kind: 'claude' | 'codex' | undefined,
  path: string,
): string | undefined {
  if (kind === undefined)
    return (
      `${role.role} runs ${role.agent}, which has no hooks Baton knows: its state is not ` +
      `observed (only a dead pane shows)`
    );
  const text = readTextIfPresent(path);
  if (text !== undefined && /hooks\/session-start\b/.test(text)) return undefined;
  return kind === 'claude'
    ? `${role.role} runs claude without Baton's hooks (its launch passed no --settings file)`
    : `${role.role} runs codex without Baton's hooks in its worktree's .codex/hooks.json`;
}
