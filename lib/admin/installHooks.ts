// `baton hooks install`: Baton's hooks merged into an agent's project settings under ROOT
// (lib/project/layout.ts agentHooksPathOf), the hooks being the package's own `hooks/`
// scripts by absolute path, so the settings work from any directory.
//
// For codex it also turns on the hooks feature in ROOT/.codex/config.toml (codexFeature.ts):
// Codex runs no hook without it.
//
// Crash contract: each file is replaced with replaceFile (temp file in its folder,
// fsync, rename; the existing file's mode is kept), then its folder is fsync'd: a reader
// sees the old settings or the merged ones, never a torn file; a kill between the two files
// leaves the first merged, and a rerun merges the second. Both are merged before either is
// written, so a refusal writes nothing; an unchanged file is not written; a dry run writes
// nothing.
import * as fs from 'node:fs';
import { dirname, join } from 'node:path';
import { quote } from 'shell-quote';
import { fail } from '../fsx/commandFailure.js';
import { agentHooksPathOf, codexConfigPathOf, type HookAgent } from '../project/layout.js';
import { enableCodexHooks, type MergedFeature } from './codexFeature.js';
import { readTextIfPresent } from '../fsx/absent.js';
import { replaceFile } from '../fsx/records.js';
import { printable } from '../fsx/printable.js';
import {
  HOOK_EVENTS,
  MalformedSettings,
  mergeHookSettings,
  type HookCommands,
  type MergedSettings,
} from './hookSettings.js';

/** The file names of the package's hook scripts, by event. */
const SCRIPT_NAMES: HookCommands = {
  SessionStart: 'session-start',
  UserPromptSubmit: 'prompt-submit',
  Stop: 'stop',
};

/**
 * How far above the running bin's folder the package's `hooks/` is looked for (dist/bin → the
 * package is two up).
 */
const MAX_LEVELS_UP = 3;

/**
 * The package's hook scripts as settings commands: the first `hooks/` folder holding every
 * script in `fromDir` or one of its parents (the built `baton` runs from `<package>/dist/bin`).
 * The agents run a command through a shell, so a path with a space or a shell character
 * is quoted. Fails (exit 1) when there is none.
 */
export function packageHookCommands(fromDir: string): HookCommands {
  for (let dir = fromDir, level = 0; level <= MAX_LEVELS_UP; dir = dirname(dir), level++) {
    const paths = HOOK_EVENTS.map((event) => [event, join(dir, 'hooks', SCRIPT_NAMES[event])]);
    if (paths.every(([, path]) => fs.statSync(path!, { throwIfNoEntry: false })?.isFile()))
      return Object.fromEntries(
        paths.map(([event, path]) => [event, quote([path!])]),
      ) as HookCommands;
  }
  fail(
    'environment',
    `baton: cannot find the package's hooks/ folder above '${printable(fromDir)}'`,
  );
}

/** The outcome of one install. */
export interface HookInstall extends MergedSettings {
  agent: HookAgent;
  path: string;
  commands: HookCommands;
  dryRun: boolean;
  /** codex: its config.toml with the hooks feature on (Codex runs no hook without it). */
  feature?: MergedFeature & { path: string };
}

/** The settings file's text, or undefined when there is none. */
function readSettings(path: string): string | undefined {
  return readTextIfPresent(path);
}

/**
 * Merges `commands` into `agent`'s settings under `root`, and with `featureFlag` (codex's
 * default) turns codex's hooks feature on in its config.toml; writes unless `dryRun` or nothing
 * changed. A malformed file is refused (exit 2) and left as it is.
 */
export function installHooks(
  root: string,
  agent: HookAgent,
  commands: HookCommands,
  dryRun: boolean,
  featureFlag = agent === 'codex',
): HookInstall {
  const path = agentHooksPathOf(root, agent);
  // Both files are merged (or refused) before either is written.
  const merged = refusedUnmergeable(path, () => mergeHookSettings(readSettings(path), commands));
  const configPath = codexConfigPathOf(root);
  const feature = featureFlag
    ? {
        path: configPath,
        ...refusedUnmergeable(configPath, () => enableCodexHooks(readSettings(configPath))),
      }
    : undefined;
  if (!dryRun) {
    // The agent's own folder (`.claude/`, `.codex/`) keeps the mode a person would give it.
    fs.mkdirSync(dirname(path), { recursive: true });
    const crashSteps = { synced: 'hooks-install:settings-written' };
    if (merged.changed) replaceFile(path, merged.text, { mode: 'keep', crashSteps });
    if (feature?.outcome === 'added') replaceFile(feature.path, feature.text, { mode: 'keep' });
  }
  return { ...merged, agent, path, commands, dryRun, ...(feature ? { feature } : {}) };
}

/** `merge()`, with a MalformedSettings refused (exit 2) naming `path`. */
function refusedUnmergeable<T>(path: string, merge: () => T): T {
  try {
    return merge();
  } catch (err) {
    if (err instanceof MalformedSettings)
      fail(
        'refused',
        `baton: cannot merge hooks into '${printable(path)}': ${printable(err.message)}`,
      );
    throw err;
  }
}
