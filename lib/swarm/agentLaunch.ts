// The command line typed into a role's pane to start its agent: the reference launcher's
// `launch-command` for the four agents it knows (claude, codex, copilot, grok: each gets
// the prompt file its own way, and the prompt as its first message), and for any other
// program the prompt file's path in SWARMFORGE_PROMPT_FILE. The extra arguments of
// swarmforge.conf go in as written, for the pane's shell to split and expand, as the
// reference does. Baton's commands come first on PATH, then the folder where `baton up`
// found the agent (the pane's login shell may have reset PATH to one without it). Claude
// and codex also get Baton's hooks on the line (runtime.md §12.7, lib/swarm/agentHooks.ts).
// This line is the one place where Baton hands text to a shell: every word Baton itself
// adds is quoted.
import { knownAgentOf } from '../handoff/knownAgents.js';

/** What a launch line carries for the agent's hooks (lib/swarm/agentHooks.ts). */
export interface LaunchHooks {
  /** claude: Baton's settings file, passed with `--settings`. */
  claudeSettings?: string;
  /** codex: its worktree's hooks.json holds Baton's hooks; the line turns the feature on. */
  codexHooks?: boolean;
}

/** How one role's agent is started. */
export interface AgentLaunch {
  role: string;
  /** The program, as configured (a name on PATH or a path). */
  agent: string;
  /** Extra arguments as written in swarmforge.conf ('' when none). */
  extraArgs: string;
  worktreePath: string;
  /** The role's prompt file; undefined when the project is not a SwarmForge pack. */
  promptFile?: string;
  /** ROOT/.swarmforge/bin, put first on PATH. */
  commandDir: string;
  /**
   * The folder where `baton up` found the agent program, put next on PATH (none for a path or a
   * Baton command).
   */
  agentDir?: string;
  /** Baton's hooks for this agent; none when absent. */
  hooks?: LaunchHooks;
}

/** Quotes one word for the interactive shell of a pane. */
export function shellWord(word: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * The reference's display name: words split at - and _, each capitalized (`code-reviewer` → `Code
 * Reviewer`).
 */
export function displayNameOf(role: string): string {
  return role
    .split(/[-_\s]+/)
    .filter(Boolean)
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1).toLowerCase())
    .join(' ');
}

function grokPermissionMode(extraArgs: string): string {
  return /--always-approve|--yolo|--permission-mode\s+bypassPermissions/.test(extraArgs)
    ? 'bypassPermissions'
    : 'acceptEdits';
}

/** The words that give the agent Baton's hooks, right after the program ('' for none). */
function hookWords(hooks: LaunchHooks | undefined): string {
  if (hooks?.claudeSettings) return ` --settings ${shellWord(hooks.claudeSettings)}`;
  if (hooks?.codexHooks) return ' -c features.codex_hooks=true';
  return '';
}

/** The agent's own part of the command line: program, prompt options, extra arguments. */
function agentPart(launch: AgentLaunch): string {
  const program = shellWord(launch.agent) + hookWords(launch.hooks);
  const extra = launch.extraArgs ? `${launch.extraArgs} ` : '';
  const prompt = launch.promptFile;
  if (prompt === undefined) return `${program} ${extra}`.trimEnd();
  const file = shellWord(prompt);
  const message = `"$(cat ${file})"`;
  const title = shellWord(`SwarmForge ${displayNameOf(launch.role)}`);
  const cwd = shellWord(launch.worktreePath);
  switch (knownAgentOf(launch.agent)) {
    case 'claude':
      return (
        `${program} --append-system-prompt-file ${file} ` +
        `--permission-mode acceptEdits -n ${title} ${extra}${message}`
      );
    case 'codex':
      return `${program} -C ${cwd} ${extra}${message}`;
    case 'copilot':
      return `${program} -C ${cwd} --name ${title} ${extra}-i ${message}`;
    case 'grok':
      return (
        `${program} --cwd ${cwd} --permission-mode ` +
        `${grokPermissionMode(launch.extraArgs)} ${extra}--rules ` +
        `${message} --verbatim ${message}`
      );
    default:
      return `SWARMFORGE_PROMPT_FILE=${file} ${program} ${extra}`.trimEnd();
  }
}

/** The whole line typed into the pane (without the Enter). */
export function agentCommandLine(launch: AgentLaunch): string {
  const dirs = [launch.commandDir, ...(launch.agentDir ? [launch.agentDir] : [])]
    .map(shellWord)
    .join(':');
  return `PATH=${dirs}:"$PATH" ${agentPart(launch)}`;
}
