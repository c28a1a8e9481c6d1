// Keeping Baton's runtime folders out of git: `.swarmforge/` (and the launcher's
// `.worktrees/`) appended once to the repository's info/exclude, never to a tracked file.
import * as fs from 'node:fs';
import { join } from 'node:path';
import { gitCommonDirIfAny } from '../proc/git.js';
import { SWARM_DIR_NAME } from './layout.js';

/**
 * Appends `pattern` (default `.swarmforge/`) to the repository's info/exclude once. A ROOT
 * in no git repository (a run ROOT from SWARMFORGE_ROOT may be a plain folder) has nothing
 * to exclude from: nothing is done and nothing is said, since nothing is wrong.
 */
export function excludeSwarmDir(root: string, pattern = `${SWARM_DIR_NAME}/`): void {
  const gitDir = gitCommonDirIfAny(root);
  if (gitDir === undefined) return;
  const exclude = join(gitDir, 'info', 'exclude');
  const current = fs.existsSync(exclude) ? fs.readFileSync(exclude, 'utf8') : '';
  if (current.split('\n').some((l) => l.trim() === pattern || l.trim() === `/${pattern}`)) return;
  fs.mkdirSync(join(gitDir, 'info'), { recursive: true });
  fs.appendFileSync(exclude, `${current === '' || current.endsWith('\n') ? '' : '\n'}${pattern}\n`);
}
