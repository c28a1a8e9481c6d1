// The JSON an agent writes on a hook's stdin (docs/agent-hooks.md). Claude Code and Codex
// share the fields Baton reads: `cwd` (the session's directory: it follows worktrees, where
// CLAUDE_PROJECT_DIR does not), `hook_event_name`, and on Stop `stop_hook_active` (true when
// the agent already goes on because a Stop hook blocked), and `session_id` (kept in the
// role's observation file). Every other field is ignored.
import { resolve } from 'node:path';

/** What a hook needs from its stdin. */
export interface HookInput {
  /** The directory to find ROOT from: the stdin `cwd`, else the hook's own directory. */
  cwd: string;
  /** `hook_event_name`, when given. */
  event: string | undefined;
  /** `stop_hook_active === true`: anything else (absent, false, a string) counts as false. */
  stopHookActive: boolean;
  /** `session_id`, when given (kept in the role's observation file). */
  sessionId: string;
}

/**
 * Parses a hook's stdin; throws on anything that is not a JSON object (the hook then prints
 * nothing).
 */
export function parseHookInput(text: string, ownCwd: string): HookInput {
  const data: unknown = JSON.parse(text);
  if (typeof data !== 'object' || data === null || Array.isArray(data))
    throw new Error('hook input is not a JSON object');
  const {
    cwd,
    hook_event_name: event,
    stop_hook_active: active,
    session_id: sessionId,
  } = data as Record<string, unknown>;
  return {
    cwd: typeof cwd === 'string' && cwd !== '' ? resolve(ownCwd, cwd) : ownCwd,
    event: typeof event === 'string' ? event : undefined,
    stopHookActive: active === true,
    sessionId: typeof sessionId === 'string' ? sessionId.slice(0, 200) : '',
  };
}
