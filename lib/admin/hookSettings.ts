// Merging Baton's three hooks into an agent's settings text (docs/agent-hooks.md). Claude
// Code's `.claude/settings.json` and Codex's `.codex/hooks.json` share the shape
// `{"hooks": {"<Event>": [{"matcher"?, "hooks": [{"type": "command", "command", "timeout"}]}]}}`,
// so one merge serves both. The merge only adds: a group of Baton's own per event, unless
// a handler with Baton's exact command is already there (then that event is left as it
// is, wherever the user moved it). Every other key, event, group and handler is kept, and
// an unchanged file keeps its bytes. A file whose shape leaves no safe place to add to
// (not a JSON object, `hooks` not an object, an event not an array) is refused.

/** The events Baton hooks into, in the order they are merged. */
export const HOOK_EVENTS = ['SessionStart', 'UserPromptSubmit', 'Stop'] as const;

/** One of Baton's hook events. */
export type HookEvent = (typeof HOOK_EVENTS)[number];

/**
 * SessionStart's matcher: every way a session starts (a new one, a resume, after /clear, after
 * compaction).
 */
export const SESSION_START_MATCHER = 'startup|resume|clear|compact';

/** The handlers' timeout in seconds (the hooks take well under one). */
export const HOOK_TIMEOUT_S = 10;

/** The command string of each event's hook, as the settings file holds it. */
export type HookCommands = Record<HookEvent, string>;

/** What the merge did to each event. */
export type EventOutcome = 'added' | 'present';

/** The merged text and what changed. */
export interface MergedSettings {
  text: string;
  changed: boolean;
  events: Record<HookEvent, EventOutcome>;
}

/** A settings text that cannot be merged into; `message` says why. */
export class MalformedSettings extends Error {}

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Parses the existing text: none or blank is an empty object; anything but a JSON object throws
 * MalformedSettings.
 */
function parseSettings(text: string | undefined): Json {
  if (text === undefined || text.trim() === '') return {};
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new MalformedSettings(`not JSON: ${(err as Error).message}`);
  }
  if (!isObject(data)) throw new MalformedSettings('not a JSON object');
  if (data.hooks !== undefined && !isObject(data.hooks))
    throw new MalformedSettings('"hooks" is not an object');
  return data;
}

/** True when a group of `groups` already runs `command`. */
function hasCommand(groups: unknown[], command: string): boolean {
  return groups.some(
    (g) =>
      isObject(g) &&
      Array.isArray(g.hooks) &&
      g.hooks.some((h) => isObject(h) && h.type === 'command' && h.command === command),
  );
}

/**
 * Baton's group for `event`: SessionStart with its matcher, UserPromptSubmit and Stop without
 * one (they ignore matchers).
 */
function groupOf(event: HookEvent, command: string): Json {
  const hooks = [{ type: 'command', command, timeout: HOOK_TIMEOUT_S }];
  return event === 'SessionStart' ? { matcher: SESSION_START_MATCHER, hooks } : { hooks };
}

/**
 * Merges Baton's hooks into `existing` (undefined when there is no file); throws MalformedSettings.
 */
export function mergeHookSettings(
  existing: string | undefined,
  commands: HookCommands,
): MergedSettings {
  const settings = parseSettings(existing);
  const hooks = (settings.hooks ?? {}) as Json;
  const events = {} as Record<HookEvent, EventOutcome>;
  for (const event of HOOK_EVENTS) {
    const groups = hooks[event] ?? [];
    if (!Array.isArray(groups)) throw new MalformedSettings(`"hooks.${event}" is not an array`);
    events[event] = hasCommand(groups, commands[event]) ? 'present' : 'added';
    if (events[event] === 'added') hooks[event] = [...groups, groupOf(event, commands[event])];
  }
  const changed = HOOK_EVENTS.some((e) => events[e] === 'added');
  if (!changed) return { text: existing ?? '', changed, events };
  settings.hooks = hooks;
  return { text: `${JSON.stringify(settings, null, 2)}\n`, changed, events };
}
