// `baton up --agents-user USER` (docs/runtime.md, "A hard boundary"): the pane of every
// configured role starts a shell as USER through sudo, so that nothing an agent does can
// write the owner's run records. The project must be shared first (`baton share --group G`,
// with USER in G); up shares again what it creates (worktrees, mailboxes), and records USER
// in `.swarmforge/agents-user` for `baton restart`. Baton's own windows (a run's controller,
// the monitor) stay the owner's. sudo must let the owner run as USER without a password and
// without a pseudo-terminal of its own (`Defaults>USER !use_pty`), so that tmux still sees
// the agent program in the pane.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { readTextIfPresent } from '../fsx/absent.js';
import { fail } from '../fsx/commandFailure.js';
import { publishWhole, unlinkSynced } from '../fsx/durable.js';
import { printable } from '../fsx/printable.js';
import { isSharedFolderMode } from '../fsx/sharedFolders.js';
import { until } from '../proc/ending.js';
import { accountIdOf } from '../proc/osAccounts.js';
import { agentsUserPathOf, swarmDirOf } from '../project/layout.js';

/**
 * Checks, before anything starts, that USER exists, the project is shared, and sudo runs a
 * command as USER without asking; returns the project's group id (to share what up makes).
 */
export function checkAgentsUser(root: string, user: string): number {
  const name = printable(user);
  if (!/^[a-z_][a-z0-9_.-]*\$?$/i.test(user) || accountIdOf('passwd', user) === undefined)
    fail('usage', `baton: --agents-user: no user '${name}'`);
  const swarm = fs.statSync(swarmDirOf(root), { throwIfNoEntry: false });
  if (swarm === undefined || !isSharedFolderMode(swarm.mode))
    fail(
      'refused',
      `baton: --agents-user ${name}: the project is not shared; run ` +
        `baton share --group G first (G: a group of yours and ${name}'s)`,
    );
  const sudo = spawnSync('sudo', ['-n', '-u', user, '--', 'true'], { encoding: 'utf8' });
  if (sudo.status !== 0)
    fail(
      'environment',
      `baton: --agents-user ${name}: sudo cannot run a command as ${name} without a ` +
        `password (${printable((sudo.stderr || sudo.error?.message || '').trim())}); see ` +
        'docs/runtime.md, "A hard boundary"',
    );
  return swarm.gid;
}

/** The user the agents run as (`baton up --agents-user`), if any. */
export function readAgentsUser(root: string): string | undefined {
  return readTextIfPresent(agentsUserPathOf(root))?.trim() || undefined;
}

/** Records the agents' user for `baton restart` (none: removes the record). */
export function recordAgentsUser(root: string, user: string | undefined): void {
  if (user === undefined) unlinkSynced(agentsUserPathOf(root));
  else publishWhole(agentsUserPathOf(root), `${user}\n`);
}

/**
 * The command of a role's pane whose agent runs as `user`: a shell as that user, the pane's
 * environment (`env`'s names, and tmux's) kept.
 */
export function paneCommandAs(user: string, env: Record<string, string>): string[] {
  const kept = [...Object.keys(env), 'TMUX', 'TMUX_PANE'].join(',');
  return ['sudo', '-n', '-u', user, `--preserve-env=${kept}`, '-s'];
}

/**
 * Ends process group `pgid` of an agent run as `user` (the owner may not signal it): SIGTERM
 * through sudo, up to `graceMs` for `gone`, then SIGKILL.
 */
export async function endGroupAs(
  user: string,
  pgid: number,
  graceMs: number,
  gone: () => boolean,
): Promise<void> {
  const signal = (name: string) =>
    spawnSync('sudo', ['-n', '-u', user, '--', 'kill', '-s', name, '--', `-${pgid}`]);
  signal('TERM');
  if (!(await until(gone, graceMs))) signal('KILL');
}
