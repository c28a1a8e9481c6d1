// What an agent's own hooks say of it (docs/runtime.md §11.6): `.swarmforge/agents/<role>.json`,
// `{state, at, session_id, event}`, written by the SessionStart and Stop hooks in the agent's
// session (the one file any hook writes) and read by the controller, status and the monitor.
// It is what the agent reports, never believed alone: a pane that is gone or whose program
// exited is dead whatever the file says. Written atomically (a reader sees the old file or
// the new one) but not durably: a crash may lose the last report, which the next hook call
// writes again; a missing, unreadable or malformed file reads as nothing said.
import * as fs from 'node:fs';
import { join } from 'node:path';
import { jsonText, replaceFileAtomically } from '../fsx/records.js';
import { agentsDirOf } from './layout.js';

/** An agent's observed state. */
export const AGENT_STATES = ['working', 'idle', 'waiting', 'dead', 'unknown'] as const;
/** One of them. */
export type AgentState = (typeof AGENT_STATES)[number];

/** The file a role's hooks write. */
export interface AgentReport {
  state: AgentState;
  at: string;
  session_id: string;
  event: string;
}

/** `ROOT/.swarmforge/agents/<role>.json`. */
export function agentReportPathOf(root: string, role: string): string {
  return join(agentsDirOf(root), `${role}.json`);
}

/** Writes what a role's hook says of its agent. */
export function writeAgentReport(root: string, role: string, report: AgentReport): void {
  replaceFileAtomically(agentReportPathOf(root, role), jsonText(report));
}

/** What a role's hooks said last, or undefined (no file, or not one of ours). */
export function readAgentReport(root: string, role: string): AgentReport | undefined {
  try {
    const data = JSON.parse(fs.readFileSync(agentReportPathOf(root, role), 'utf8')) as unknown;
    if (typeof data !== 'object' || data === null) return undefined;
    const r = data as Record<string, unknown>;
    if (!(AGENT_STATES as readonly unknown[]).includes(r.state)) return undefined;
    if (typeof r.at !== 'string' || Number.isNaN(Date.parse(r.at))) return undefined;
    return {
      state: r.state as AgentState,
      at: r.at,
      session_id: typeof r.session_id === 'string' ? r.session_id : '',
      event: typeof r.event === 'string' ? r.event : '',
    };
  } catch {
    return undefined;
  }
}
