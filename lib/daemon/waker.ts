// Typing the wake-up into a role's pane: literal text, then one Enter, through the tmux
// socket recorded in ROOT/.swarmforge/tmux-socket, at the pane recorded in panes.tsv
// (else the role's session). A wake-up is a hint: failures are reported, never thrown
// into delivery.
import * as fs from 'node:fs';
import { join } from 'node:path';
import { Tmux } from '../adapters/tmux.js';

/** The text typed into a recipient's pane. It never names a file. */
export const WAKE_TEXT = 'You have new handoff mail. If idle, run ready_for_next.';

/** `ROOT/.swarmforge/tmux-socket` (holds the socket path). */
export function socketFileOf(root: string): string {
  return join(root, '.swarmforge', 'tmux-socket');
}

/** `ROOT/.swarmforge/panes.tsv` (`<role>\t<pane-id>` lines). */
export function panesFileOf(root: string): string {
  return join(root, '.swarmforge', 'panes.tsv');
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

/** Where a wake-up for `role` goes. */
export interface WakeTarget {
  socket: string;
  target: string;
}

/** The socket and pane (or session) for a role; throws with a reason when there is none. */
export function wakeTargetOf(root: string, role: string, session: string): WakeTarget {
  let socket: string;
  try {
    socket = fs.readFileSync(socketFileOf(root), 'utf8').trim();
  } catch {
    throw new Error('no tmux socket file');
  }
  if (!socket) throw new Error('empty tmux socket file');
  const pane = readPanes(root).get(role);
  return { socket, target: pane ?? `${session}:` };
}

/** Types the wake-up text and one Enter into the target. */
export async function wake(target: WakeTarget): Promise<void> {
  const tmux = new Tmux(target.socket);
  await tmux.sendLiteral(target.target, WAKE_TEXT);
  await tmux.sendEnter(target.target);
}
