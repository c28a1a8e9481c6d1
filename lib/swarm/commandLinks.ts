// The command names agents type (`swarm_handoff`, `ready_for_next`, ... and the `.sh`
// aliases) as symlinks in ROOT/.swarmforge/bin to the built bins, put first on each pane's PATH.
import * as fs from 'node:fs';
import { join } from 'node:path';
import { mkdirSynced } from '../fsx/durable.js';
import { commandDirOf } from '../project/layout.js';

/** Command name → built bin file. */
export const COMMANDS: Record<string, string> = {
  swarm_handoff: 'swarm_handoff.js',
  'swarm_handoff.sh': 'swarm_handoff.js',
  ready_for_next: 'ready_for_next.js',
  'ready_for_next.sh': 'ready_for_next.js',
  done_with_current: 'done_with_current.js',
  'done_with_current.sh': 'done_with_current.js',
  baton: 'baton.js',
  handoffd: 'handoffd.js',
  'baton-scripted-agent': 'baton-scripted-agent.js',
  'baton-scripted-reviewer': 'baton-scripted-reviewer.js',
  'baton-scripted-worker': 'baton-scripted-worker.js',
};

/** (Re)creates ROOT/.swarmforge/bin with one symlink per command; returns the folder. */
export function installCommandLinks(root: string, binDir: string): string {
  const dir = commandDirOf(root);
  mkdirSynced(dir);
  for (const [name, file] of Object.entries(COMMANDS)) {
    const link = join(dir, name);
    fs.rmSync(link, { force: true });
    fs.symlinkSync(join(binDir, file), link);
  }
  return dir;
}
