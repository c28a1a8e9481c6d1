// Typing the wake-up into a role's pane: literal text, then one Enter, through the tmux
// socket recorded in ROOT/.swarmforge/tmux-socket, at the pane recorded in panes.tsv
// (else the role's session). A wake-up is a hint: failures are reported, never thrown
// into delivery.
import { Tmux } from '../adapters/tmux.js';
import { readPanes, recordedSocketOf } from '../project/tmuxRecord.js';

/**
 * The text typed into a recipient's pane, SwarmForge's word for word (role prompts written
 * for SwarmForge quote it; Baton installs the `.sh` names it mentions). It never names a file.
 */
export const WAKE_TEXT = 'You have new handoff mail. If idle, run ready_for_next.sh.';

/** Where a wake-up for `role` goes. */
export interface WakeTarget {
  socket: string;
  target: string;
}

/** The socket and pane (or session) for a role; throws with a reason when there is none. */
export function wakeTargetOf(root: string, role: string, session: string): WakeTarget {
  const socket = recordedSocketOf(root);
  if (socket === undefined) throw new Error('no tmux socket file');
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
