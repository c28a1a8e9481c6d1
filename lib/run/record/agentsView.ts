// Each agent role of a run as status and the monitor show it (docs/runtime.md §11.6): its
// observed state and since when (the run's `observations.panes`, recorded by the controller),
// and, when the controller awaits its reply, `awaiting <kind> cycle <n> since <t>, deadline
// <t>` (from the controller's phase file: coordination, read only here).
import { readPhase } from '../controller/controllerPhase.js';
import { type RunPaths } from '../../project/layout.js';
import { agentRolesOf, type Workflow } from './workflow.js';

/** One role's view. */
export interface AgentView {
  role: string;
  state: string;
  since: string | null;
  pane: string | null;
  awaiting: null | {
    kind: string;
    cycle: number;
    generation: number;
    attempts: number;
    since: string;
    deadline: string;
  };
  /** The same as one line: `worker: working since T; awaiting work cycle 1 since T, deadline T`. */
  line: string;
}

/** The agent roles of the run, each with its state and what is awaited of it. */
export function agentsViewOf(wf: Workflow, paths: RunPaths, now = new Date()): AgentView[] {
  const awaiting = wf.status === 'ACTIVE' ? (readPhase(paths, now).awaiting ?? []) : [];
  return agentRolesOf(wf).map((role) => {
    const seen = wf.observations.panes[role];
    const asked = awaiting.find((a) => a.role === role);
    const view: AgentView = {
      role,
      state: seen?.status ?? 'unknown',
      since: seen?.seen_at ?? null,
      pane: seen?.pane || null,
      awaiting: asked
        ? {
            kind: asked.kind,
            cycle: asked.cycle,
            generation: asked.generation,
            attempts: asked.attempts,
            since: asked.sent_at,
            deadline: asked.deadline_at,
          }
        : null,
      line: '',
    };
    const a = view.awaiting;
    view.line =
      `${role}: ${view.state}${view.since ? ` since ${view.since}` : ''}` +
      (a ? `; awaiting ${a.kind} cycle ${a.cycle} since ${a.since}, deadline ${a.deadline}` : '');
    return view;
  });
}
