// `swarmforge/swarmforge.conf` (protocol §1.1), written by people:
//   window <role> <agent> <worktree> [task|batch] [extra-agent-args...]
// Every error names the file, the line number and the rule; all are reported at once.
// The extra agent arguments are kept as written (the rest of the line): like the
// reference launcher, `baton up` hands them to the pane's shell, which splits and
// expands them (quotes, $VARIABLES).
import { isValidRoleName, type ReceiveMode } from './roleName.js';

/** One `window` line. */
export interface WindowConfig {
  line: number;
  role: string;
  agent: string;
  /** A worktree name, or `master`/`none` for ROOT itself. */
  worktree: string;
  mode: ReceiveMode;
  /** The rest of the line after the worktree (and mode), as written; '' when none. */
  extraArgs: string;
}

/** The parsed file: windows, or the error lines (`<file>:<line>: <rule>`). */
export type ConfigResult = { ok: true; windows: WindowConfig[] } | { ok: false; errors: string[] };

/** True for `master` and `none`: the role works in ROOT itself. */
export function sharesRoot(worktree: string): boolean {
  return worktree === 'master' || worktree === 'none';
}

/** Parses swarmforge.conf text; `file` is the path used in error lines. */
export function parseConfig(text: string, file: string): ConfigResult {
  const windows: WindowConfig[] = [];
  const errors: string[] = [];
  const roles = new Map<string, number>();
  const worktrees = new Map<string, number>();
  text.split('\n').forEach((raw, index) => {
    const line = index + 1;
    const trimmed = raw.trim();
    if (trimmed === '' || trimmed.startsWith('#')) return;
    const err = (rule: string) => errors.push(`${file}:${line}: ${rule}`);
    const fields = [...trimmed.matchAll(/\S+/g)];
    const [keyword, role, agent, worktree, fifth] = fields.map((f) => f[0]) as (string | undefined)[];
    if (keyword !== 'window') return err(`unknown directive '${keyword}'; expected 'window <role> <agent> <worktree> [task|batch] [args...]'`);
    if (role === undefined || agent === undefined || worktree === undefined) {
      return err(`a window line needs <role> <agent> <worktree>`);
    }
    let ok = true;
    if (!isValidRoleName(role)) {
      ok = false;
      err(`role '${role}' must match ^[A-Za-z][A-Za-z0-9-]*$ and be at most 32 characters`);
    } else if (roles.has(role)) {
      ok = false;
      err(`role '${role}' is already defined on line ${roles.get(role)}`);
    }
    if (!sharesRoot(worktree)) {
      if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(worktree) || worktree === '.' || worktree === '..') {
        ok = false;
        err(`worktree '${worktree}' must be master, none or a name matching ^[A-Za-z0-9][A-Za-z0-9._-]*$`);
      } else if (worktrees.has(worktree)) {
        ok = false;
        err(`worktree '${worktree}' is already used on line ${worktrees.get(worktree)}; only master/none may be shared`);
      }
    }
    if (!ok) return;
    roles.set(role, line);
    if (!sharesRoot(worktree)) worktrees.set(worktree, line);
    const isMode = fifth === 'task' || fifth === 'batch';
    const argsStart = fields[isMode ? 5 : 4]?.index;
    windows.push({
      line, role, agent, worktree,
      mode: isMode ? (fifth as ReceiveMode) : 'task',
      extraArgs: argsStart === undefined ? '' : trimmed.slice(argsStart),
    });
  });
  if (windows.length === 0 && errors.length === 0) errors.push(`${file}: no window lines; add 'window <role> <agent> <worktree> [task|batch]'`);
  return errors.length > 0 ? { ok: false, errors } : { ok: true, windows };
}
