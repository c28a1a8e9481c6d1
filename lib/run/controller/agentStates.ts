// Agents are observed, never believed (docs/runtime.md §11.6). A role's state comes from what
// can be seen of it: its tmux pane (gone or dead: `dead`; back at its shell: the agent's
// program exited, `dead`), then what its own hooks last wrote (.swarmforge/agents/<role>.json:
// `working`, `idle`, `waiting`), else `unknown`. The controller records a role's state in the
// run's `observations.panes` (the lease-fenced `observe` action) only when it changed, at most
// once per poll; status and the monitor read it there, with whom the controller awaits.
import { Tmux, type PaneInfo } from '../../adapters/tmux.js';
import { crashPoint } from '../../fsx/crash.js';
import { readAgentReport, type AgentState } from '../../project/agentObservation.js';
import { readPanes, recordedSocketOf } from '../../project/tmuxRecord.js';
import { observeStep } from '../gates/controllerActions.js';
import { agentRolesOf, type Workflow } from '../record/workflow.js';
import { logLine } from './controllerPhase.js';
import type { Driver } from './driveStep.js';

/** The programs a pane shows when the agent it ran has exited. */
const SHELLS = new Set(['sh', 'bash', 'dash', 'zsh', 'fish', 'ksh']);

/** What is seen of one role's agent. */
export interface Observed {
  state: AgentState;
  pane: string;
}

/** One role's state from its pane (when the swarm records one) and its hooks' file. */
export function stateOf(
  root: string,
  role: string,
  pane: string | undefined,
  listed: PaneInfo[] | undefined,
): AgentState {
  if (pane !== undefined && listed !== undefined) {
    const info = listed.find((p) => p.id === pane);
    if (!info || info.dead || SHELLS.has(info.command)) return 'dead';
  }
  const reported = readAgentReport(root, role)?.state;
  return reported === undefined || reported === 'dead' ? 'unknown' : reported;
}

/** Every agent role's state now (one `tmux list-panes` when the swarm is up). */
export async function observeAgents(root: string, roles: string[]): Promise<Map<string, Observed>> {
  const socket = recordedSocketOf(root);
  const panes = readPanes(root);
  const listed = socket ? await new Tmux(socket).listPanes().catch(() => undefined) : undefined;
  const out = new Map<string, Observed>();
  for (const role of roles) {
    const pane = panes.get(role);
    out.set(role, { state: stateOf(root, role, pane, listed), pane: pane ?? '' });
  }
  return out;
}

/** When each driver last looked (at most once per poll). */
const lastLook = new WeakMap<Driver, number>();

/**
 * Records each role whose state changed since the run's record last said (lease-fenced); a
 * role seen dead is logged `agent-dead role=R` once per change. Returns the lines it said.
 */
export async function recordObservations(
  d: Driver,
  wf: Workflow,
  pollMs: number,
): Promise<string[]> {
  const now = Date.now();
  if (now - (lastLook.get(d) ?? 0) < pollMs) return [];
  lastLook.set(d, now);
  const lines: string[] = [];
  for (const [role, seen] of await observeAgents(d.ctx.root, agentRolesOf(wf))) {
    const before = wf.observations.panes[role];
    if (before?.status === seen.state && before.pane === seen.pane) continue;
    // Nothing seen of a role never seen: nothing to record.
    if (before === undefined && seen.state === 'unknown') continue;
    await observeStep(d.ctx, d.runId, d.token, { role, ...seen });
    crashPoint('drive:observation-recorded');
    const line =
      seen.state === 'dead' ? `agent-dead role=${role}` : `OBSERVED: ${role} is ${seen.state}`;
    logLine(d.paths, line);
    lines.push(line);
  }
  return lines;
}
