// The Stop hook's answer: keep an agent from going idle while handoffs wait for it and it
// has nothing in process; otherwise let it stop. It blocks only when all three hold:
// - `stop_hook_active` is not true (the agent is not already going on because of a Stop
//   hook: blocking again could loop; Claude Code ends the turn after 8 blocks anyway);
// - nothing is in inbox/in_process (an agent with work in process finishes it with
//   done_with_current, which hands it the next item; a Stop then is the agent's own call);
// - at least one handoff waits in inbox/new.
// The reason is a fact, not a command dressed as a system message. Codex's Stop output
// schema is strict, so the answer is that JSON object or nothing (never plain text).
// It cannot wake an agent that is already idle: handoffd's tmux wake-up stays the waker.
import { handoffCount } from './handoffCount.js';
import { type HookInput } from './hookInput.js';
import { reportAgent, roleStateOf, type RoleState } from './roleState.js';

/** The block reason: how many handoffs wait for the role, and what claims them. */
export function stopReason(role: string, waiting: number): string {
  return (
    `${handoffCount(waiting, 'wait')} in the inbox of role ${role} ` +
    `and nothing is in process; ready_for_next claims ` +
    `${waiting === 1 ? 'it' : 'them'}.`
  );
}

/** The decision for a mailbox state: the block line, or undefined to let the agent stop. */
export function stopDecision(
  input: HookInput,
  state: Pick<RoleState, 'role' | 'waiting' | 'inProcess'>,
): string | undefined {
  if (input.stopHookActive || state.inProcess.length > 0 || state.waiting === 0) return undefined;
  const answer = { decision: 'block', reason: stopReason(state.role, state.waiting) };
  return `${JSON.stringify(answer)}\n`;
}

/**
 * The Stop answer for this input and environment (throws when the project or role cannot be read).
 */
export function stopAnswer(input: HookInput, env: NodeJS.ProcessEnv): string | undefined {
  if (input.stopHookActive) {
    // Let go whatever the mailbox says: it idles (reported when the project can be found).
    try {
      reportAgent(roleStateOf(input.cwd, env), input, 'idle', 'Stop');
    } catch {
      // nothing to fail on: the answer is already known
    }
    return undefined;
  }
  const state = roleStateOf(input.cwd, env);
  const answer = stopDecision(input, state);
  // Blocked, the agent goes on working; let go, it idles.
  reportAgent(state, input, answer === undefined ? 'idle' : 'working', 'Stop');
  return answer;
}
