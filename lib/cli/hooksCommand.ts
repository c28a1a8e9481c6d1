// `baton hooks install --agent claude|codex [--dry-run] [--json]`: Baton's SessionStart,
// UserPromptSubmit and Stop hooks merged into the agent's project settings
// (lib/hooks/installHooks.ts). The lib module is imported when the command runs, so
// `baton`'s other commands do not load it.
import * as fs from 'node:fs';
import { dirname } from 'node:path';
import type { CommandModule } from 'yargs';
import type { HookAgent } from '../project/layout.js';
import { findRoot } from '../project/root.js';
import { printable } from '../fsx/printable.js';
import type { HookInstall } from '../admin/installHooks.js';
import { commandGroup } from './commandShapes.js';

const write = (text: string): void => {
  process.stdout.write(text);
};
/**
 * The folder of the built bins: the one of the running entry point (the package's hooks/ is found
 * above it).
 */
const binDir = () => dirname(fs.realpathSync(process.argv[1]!));

/**
 * The report of an install: the file, one line per event, and for codex the feature flag's line
 * (`codex_hooks: added|present <config.toml>`).
 */
export function installText(result: HookInstall): string {
  const { feature } = result;
  const changed = result.changed || feature?.outcome === 'added';
  const head = changed ? 'HOOKS INSTALLED' : 'HOOKS ALREADY INSTALLED';
  const events = (Object.keys(result.events) as (keyof HookInstall['events'])[]).map(
    (e) => `${e}: ${result.events[e]} ${printable(result.commands[e])}\n`,
  );
  const flag = feature ? `codex_hooks: ${feature.outcome} ${printable(feature.path)}\n` : '';
  return `${head}: ${printable(result.path)}\n${events.join('')}${flag}`;
}

/**
 * The JSON report of an install (a dry run adds the merged text as `content`, and the config's
 * as `feature.content`).
 */
export function installJson(result: HookInstall): string {
  const { agent, path: file, changed, dryRun, events, commands, feature } = result;
  const report = {
    agent,
    file,
    changed,
    dry_run: dryRun,
    events,
    commands,
    ...(feature
      ? {
          feature: {
            file: feature.path,
            outcome: feature.outcome,
            ...(dryRun ? { content: feature.text } : {}),
          },
        }
      : {}),
  };
  return `${JSON.stringify(dryRun ? { ...report, content: result.text } : report, null, 2)}\n`;
}

const install: CommandModule = {
  command: 'install',
  describe:
    "Merge Baton's SessionStart, UserPromptSubmit and Stop hooks into " +
    'ROOT/.claude/settings.json (claude) or ' +
    'ROOT/.codex/hooks.json (codex, with codex_hooks = true under [features] in ' +
    'ROOT/.codex/config.toml); other hooks and settings are kept; idempotent',
  builder: (y) =>
    y
      .option('agent', {
        choices: ['claude', 'codex'] as const,
        demandOption: true,
        describe: 'The agent whose settings get the hooks',
      })
      .option('dry-run', {
        type: 'boolean',
        default: false,
        describe: 'Print the merged file and write nothing',
      })
      .option('json', { type: 'boolean', default: false, describe: 'Print JSON' }),
  handler: async (args) => {
    const root = findRoot(process.cwd(), process.env);
    const { installHooks, packageHookCommands } = await import('../admin/installHooks.js');
    const result = installHooks(
      root,
      args.agent as HookAgent,
      packageHookCommands(binDir()),
      args['dry-run'] as boolean,
    );
    if (args.json) write(installJson(result));
    else write(result.dryRun ? result.text : installText(result));
  },
};

/** `baton hooks <command>`. */
export const HOOKS_COMMAND: CommandModule = commandGroup(
  'hooks',
  'Agent lifecycle hooks for Claude Code and Codex (what a ' +
    'session is told at start; no idle stop while mail waits)',
  [install],
);
