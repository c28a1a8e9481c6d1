// Finding ROOT (protocol §1.3): $SWARMFORGE_ROOT, else the current directory and its
// parents, else git's top level, else the parent of git's common dir, so a command run
// in a role's worktree, wherever it lives, finds the main checkout. When none is found, a
// second line says how to make one (`baton init`).
import { gitCommonDirOf, worktreeTopOf } from '../proc/git.js';
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { printable } from '../fsx/printable.js';
import { fail } from '../fsx/commandFailure.js';
import { configPathOf, rolesPathOf, SWARM_DIR_NAME } from './layout.js';

const NOT_FOUND = 'Cannot find SwarmForge project root';

/**
 * The line after NOT_FOUND: how to make a project (`where` is the folder to run `baton init` in).
 */
function initHint(where: string, orElse: string): string {
  return `Run 'baton init' in ${where} (where ${configPathOf('')} is), ${orElse}.`;
}

/** The project root for a command run in `cwd` with `env`; fails with exit 1 if none. */
export function findRoot(cwd: string, env: NodeJS.ProcessEnv): string {
  const fromEnv = env.SWARMFORGE_ROOT;
  if (fromEnv) {
    const root = resolve(cwd, fromEnv);
    if (existsSync(rolesPathOf(root))) return root;
    fail(
      'environment',
      `${NOT_FOUND}: SWARMFORGE_ROOT=${printable(fromEnv)} has no ${SWARM_DIR_NAME}/roles.tsv`,
      initHint(printable(root), 'or unset SWARMFORGE_ROOT'),
    );
  }
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    if (existsSync(rolesPathOf(dir))) return dir;
    if (dirname(dir) === dir) break;
  }
  for (const candidate of gitCandidates(cwd)) {
    if (existsSync(rolesPathOf(candidate))) return candidate;
  }
  fail(
    'environment',
    NOT_FOUND,
    initHint("your project's git repository", 'then run this command inside it'),
  );
}

/** The work tree's top and the main checkout (the common git folder's parent), if in git. */
function gitCandidates(cwd: string): string[] {
  try {
    return [worktreeTopOf(cwd), dirname(gitCommonDirOf(cwd))];
  } catch {
    return [];
  }
}
