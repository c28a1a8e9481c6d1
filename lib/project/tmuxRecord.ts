// What the launcher records of a running swarm's tmux server, for the daemon (wake-ups),
// the monitor and `baton down`/`attach`: the socket path in `.swarmforge/tmux-socket`
// and each role's pane in `.swarmforge/panes.tsv` (`<role>\t<pane-id>` lines).
import * as fs from 'node:fs';
import { panesFileOf, socketFileOf } from './layout.js';

/**
 * The recorded socket path of the swarm's tmux server: undefined when the file is missing, '' when
 * it is empty.
 */
export function recordedSocketOf(root: string): string | undefined {
  try {
    return fs.readFileSync(socketFileOf(root), 'utf8').trim();
  } catch {
    return undefined;
  }
}

/** Reads panes.tsv into role → pane id (empty when missing). */
export function readPanes(root: string): Map<string, string> {
  const panes = new Map<string, string>();
  let text = '';
  try {
    text = fs.readFileSync(panesFileOf(root), 'utf8');
  } catch {
    return panes;
  }
  for (const line of text.split('\n')) {
    const [role, pane] = line.split('\t');
    if (role && pane) panes.set(role, pane.trim());
  }
  return panes;
}

/** Role → pane id as panes.tsv text. */
export function formatPanes(panes: Map<string, string>): string {
  return [...panes].map(([role, pane]) => `${role}\t${pane}\n`).join('');
}
