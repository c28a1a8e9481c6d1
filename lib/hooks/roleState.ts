// What the acting role's mailbox holds, as a hook sees it: read-only, no lock, no repair.
// A hook runs in the role's own agent session, the only one that claims from this inbox,
// and between that session's own calls, so no claim moves an item while it lists; a
// handoff handoffd delivers meanwhile is counted or not, as if it had come a moment
// earlier or later. Which role acts and where its
// project is are decided as every agent command decides them (lib/handoff/context.ts:
// $SWARMFORGE_ROLE, then ROOT from the directory, then the role in roles.tsv); any failure
// there is thrown, and the hook prints nothing.
import { join } from 'node:path';
import { actingContext } from '../handoff/context.js';
import { mailboxOf } from '../project/layout.js';
import { writeAgentReport, type AgentState } from '../project/agentObservation.js';
import { type HookInput } from './hookInput.js';
import { inProcessOf, itemNamesIn } from '../queue/index.js';
import { isoOf } from '../fsx/timestamps.js';

/** The acting role's project and mailbox at one instant. */
export interface RoleState {
  root: string;
  role: string;
  /** The receive mode as roles.tsv says it (`task` or `batch`). */
  mode: string;
  /** How many `*.handoff` entries wait in inbox/new. */
  waiting: number;
  /** The handoff files and batch folders in inbox/in_process (absolute paths), files first. */
  inProcess: InProcessEntry[];
}

/** One entry of inbox/in_process: a single handoff or a batch folder. */
export interface InProcessEntry {
  kind: 'handoff' | 'batch';
  path: string;
}

/** The state of the role named by `env.SWARMFORGE_ROLE` in the project found from `cwd`. */
export function roleStateOf(cwd: string, env: NodeJS.ProcessEnv): RoleState {
  const { root, role } = actingContext(cwd, env);
  const box = mailboxOf(root, role.role);
  const { files, batches } = inProcessOf(box);
  const entry =
    (kind: InProcessEntry['kind']) =>
    (name: string): InProcessEntry => ({ kind, path: join(box.inProcess, name) });
  return {
    root,
    role: role.role,
    mode: role.mode,
    waiting: itemNamesIn(box.inboxNew).length,
    inProcess: [...files.map(entry('handoff')), ...batches.map(entry('batch'))],
  };
}

/**
 * Writes the role's observation file (runtime.md §11.6) for a hook's event; best effort: a file
 * that cannot be written never changes what the hook answers.
 */
export function reportAgent(
  state: Pick<RoleState, 'root' | 'role'>,
  input: HookInput,
  agent: AgentState,
  event: string,
): void {
  try {
    writeAgentReport(state.root, state.role, {
      state: agent,
      at: isoOf(new Date()),
      session_id: input.sessionId,
      event,
    });
  } catch {
    // the hook's answer matters more than the observation
  }
}
