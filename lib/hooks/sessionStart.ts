// The SessionStart hook's answer: facts for the agent's context, never instructions. It
// says which role this session acts as, what is in process, how many handoffs wait and
// which runs are unfinished; it starts, claims and resumes nothing. Claude Code and Codex
// both take `hookSpecificOutput.additionalContext` (Codex's output schema allows no other
// field there), so one answer serves both.
import { itemNamesIn, readItem, UnusableItem } from '../queue/index.js';
import { printable } from '../fsx/printable.js';
import { handoffCount } from './handoffCount.js';
import { type HookInput } from './hookInput.js';
import { reportAgent, roleStateOf, type InProcessEntry, type RoleState } from './roleState.js';
import { unfinishedRunsOf, type UnfinishedRun } from './unfinishedRuns.js';

/**
 * What one entry of in_process is, in words: a handoff with its type, sender and task name, or a
 * batch with its size.
 */
async function describeEntry(entry: InProcessEntry): Promise<string> {
  if (entry.kind === 'batch')
    return `batch ${printable(entry.path)} (${handoffCount(itemNamesIn(entry.path).length)})`;
  try {
    const { headers } = await readItem(entry.path);
    const task = headers.task ? `, task ${headers.task}` : '';
    return (
      `handoff ${printable(entry.path)} ` +
      `(${printable(`${headers.type || 'unknown type'} from ${headers.from || 'unknown'}${task}`)})`
    );
  } catch (err) {
    if (err instanceof UnusableItem)
      return `handoff ${printable(entry.path)} (unreadable: ${printable(err.message)})`;
    throw err;
  }
}

/** The context lines, one fact each. */
export function sessionStartContext(
  state: RoleState,
  inProcess: string[],
  runs: UnfinishedRun[],
): string {
  const waiting = state.waiting === 0 ? 'No handoff waits' : handoffCount(state.waiting, 'wait');
  const lines = [
    `Baton: this session acts as role ${state.role} (receive mode ` +
      `${printable(state.mode)}) of the project at ` +
      `${printable(state.root)}.`,
    `In process: ${inProcess.length === 0 ? 'nothing' : inProcess.join('; ')}.`,
    `${waiting} in inbox/new.`,
    ...runs.map(
      (r) =>
        `Unfinished run ${r.runId}: status ${r.status}, phase ` +
        `${r.phase}${r.activeStage === null ? '' : `, active stage ${printable(r.activeStage)}`}.`,
    ),
  ];
  return lines.join('\n');
}

/** The hook's stdout for `text`: one JSON line. */
export function sessionStartOutput(text: string): string {
  const output = { hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: text } };
  return `${JSON.stringify(output)}\n`;
}

/**
 * The SessionStart answer for this input and environment (throws when the project or role cannot be
 * read).
 */
export async function sessionStartAnswer(
  input: HookInput,
  env: NodeJS.ProcessEnv,
): Promise<string> {
  const state = roleStateOf(input.cwd, env);
  reportAgent(state, input, 'idle', 'SessionStart');
  const inProcess = await Promise.all(state.inProcess.map(describeEntry));
  return sessionStartOutput(
    sessionStartContext(state, inProcess, await unfinishedRunsOf(state.root)),
  );
}
