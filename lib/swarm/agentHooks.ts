// Baton's hooks for the agents `baton up` launches (docs/runtime.md §12.7), so that an owner
// need not copy settings into every worktree: a claude agent gets `--settings` naming a file
// of Baton's under .swarmforge/ (Claude Code merges it into the session's own settings: hooks
// are added, nothing of the owner's is replaced); a codex agent gets Baton's hooks merged
// into its worktree's `.codex/hooks.json` and the feature flag that makes Codex run hooks on
// its launch line. Other agents get nothing: they have no hook mechanism Baton knows.
import { claudeHookSettingsOf } from '../project/layout.js';
import { replaceFile } from '../fsx/records.js';
import { installHooks, packageHookCommands } from '../admin/installHooks.js';
import { mergeHookSettings, type HookCommands } from '../admin/hookSettings.js';
import { knownAgentOf } from '../handoff/knownAgents.js';
import { type LaunchHooks } from './agentLaunch.js';

/** The agent of one launch, as far as its hooks go. */
export interface HookedAgent {
  agent: string;
  worktreePath: string;
}

/**
 * Writes what the agents' hooks need (the claude settings file; each codex worktree's
 * hooks.json, merged) and returns what each launch line carries, in the order given. The
 * hook scripts are the package's own (`hooks/` above `binDir`).
 */
export function prepareLaunchHooks(
  root: string,
  binDir: string,
  agents: readonly HookedAgent[],
): LaunchHooks[] {
  const kinds = agents.map((a) => knownAgentOf(a.agent));
  if (!kinds.some((k) => k === 'claude' || k === 'codex')) return agents.map(() => ({}));
  const commands = packageHookCommands(binDir);
  let claudeSettings: string | undefined;
  return agents.map((a, i) => {
    if (kinds[i] === 'claude') {
      claudeSettings ??= writeClaudeSettings(root, commands);
      return { claudeSettings };
    }
    if (kinds[i] === 'codex') {
      // The launch line turns the feature on: the worktree's config.toml stays as it is.
      installHooks(a.worktreePath, 'codex', commands, false, false);
      return { codexHooks: true };
    }
    return {};
  });
}

/** Writes Baton's claude settings file (0600, replaced whole); returns its path. */
function writeClaudeSettings(root: string, commands: HookCommands): string {
  const path = claudeHookSettingsOf(root);
  const { text } = mergeHookSettings(undefined, commands);
  replaceFile(path, text);
  return path;
}
