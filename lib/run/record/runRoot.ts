// Finding a run's ROOT (docs/runtime.md §1): `$SWARMFORGE_ROOT` if set, else the main
// checkout of the current git repository, the parent of `git rev-parse --git-common-dir`.
// Every worktree of a repository shares that common dir, so the main checkout and each
// worktree find the same ROOT and so the same runs. Unlike the queue's findRoot
// (lib/project/root.ts), no swarm need be configured: ROOT is never required to hold
// `.swarmforge/roles.tsv`. The git answer is made absolute and real, so a symlinked path
// to the repository names the same ROOT as the real one.
import { realpathSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fail } from '../../fsx/commandFailure.js';
import { gitCommonDirOf, gitComplaint } from '../../proc/git.js';
import { printable } from '../../fsx/printable.js';

/**
 * The ROOT of the runs for a command run in `cwd` with `env`; fails with exit 1 when there is none.
 */
export function runRootOf(cwd: string, env: NodeJS.ProcessEnv): string {
  const fromEnv = env.SWARMFORGE_ROOT;
  if (fromEnv) {
    const root = resolve(cwd, fromEnv);
    if (statSync(root, { throwIfNoEntry: false })?.isDirectory()) return root;
    fail(
      'usage',
      `SWARMFORGE_ROOT='${printable(fromEnv)}' is not an existing ` +
        `directory ('${printable(root)}'): set it to your project's ` +
        `folder or unset it`,
    );
  }
  let commonDir: string;
  try {
    commonDir = gitCommonDirOf(cwd, env);
  } catch (err) {
    fail(
      'usage',
      `no run ROOT for '${printable(cwd)}' ` +
        `(${printable(gitComplaint(err))}): run this inside your ` +
        `project's git repository (its main checkout or a worktree), ` +
        `or set SWARMFORGE_ROOT`,
    );
  }
  return realpathSync(dirname(commonDir));
}
