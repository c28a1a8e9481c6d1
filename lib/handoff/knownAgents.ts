// The agent programs Baton knows by name (the reference launcher's four): how the launcher
// types each one's command line (lib/swarm/agentLaunch.ts), which of them run Baton's hooks
// (lib/swarm/agentHooks.ts, lib/admin/hooklessAgents.ts), and the command that gives each
// a fresh context (reviewer rotation, lib/cli/run/runDrive.ts). A program is known by its file
// name in any case, wherever it lives.
import { basename } from 'node:path';

/** The agents the reference launcher knows, by program name. */
export const KNOWN_AGENTS = ['claude', 'codex', 'copilot', 'grok'] as const;

/** The command typed into a known agent's pane to clear its context (runtime.md §12.3). */
export const CLEAR_COMMANDS: Partial<Record<(typeof KNOWN_AGENTS)[number], string>> = {
  claude: '/clear',
  codex: '/new',
};

/** The clear command of the agent a program is, or undefined (it must be restarted). */
export function clearCommandOf(agent: string): string | undefined {
  const known = knownAgentOf(agent);
  return known === undefined ? undefined : CLEAR_COMMANDS[known];
}

/** The known agent a program is (by its file name, any case), or undefined. */
export function knownAgentOf(agent: string): (typeof KNOWN_AGENTS)[number] | undefined {
  const name = basename(agent).toLowerCase();
  return KNOWN_AGENTS.find((known) => known === name);
}
