// `swarmforge/swarmforge.conf` (protocol §1.1), written by people:
//   window <role> <agent> <worktree> [task|batch] [extra-agent-args...]
//   review cto|coo <role>              (the review stage's reviewer roles, docs/review.md §5)
// Every error names the file, the line number and the rule; all are reported at once.
// The extra agent arguments are kept as written (the rest of the line): like the
// reference launcher, `baton up` hands them to the pane's shell, which splits and
// expands them (quotes, $VARIABLES).
import * as fs from 'node:fs';
import { fail } from '../fsx/commandFailure.js';
import { configPathOf } from '../project/layout.js';
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

/** A `review <lens> <role>` line: which role reviews with that lens (docs/review.md §5). */
export interface ReviewerConfig {
  line: number;
  lens: 'cto' | 'coo';
  role: string;
}

/** The parsed file: windows and reviewers, or the error lines (`<file>:<line>: <rule>`). */
export type ConfigResult =
  | { ok: true; windows: WindowConfig[]; reviewers: ReviewerConfig[] }
  | { ok: false; errors: string[] };

/** True for `master` and `none`: the role works in ROOT itself. */
export function sharesRoot(worktree: string): boolean {
  return worktree === 'master' || worktree === 'none';
}

/** What has been read so far, and the errors found. */
interface Parse {
  windows: WindowConfig[];
  reviewers: ReviewerConfig[];
  errors: string[];
  roles: Map<string, number>;
  worktrees: Map<string, number>;
}

const DIRECTIVES =
  "expected 'window <role> <agent> <worktree> [task|batch] [args...]' or 'review cto|coo <role>'";

function windowLine(
  parse: Parse,
  line: number,
  trimmed: string,
  err: (rule: string) => void,
): void {
  const fields = [...trimmed.matchAll(/\S+/g)];
  const [, role, agent, worktree, fifth] = fields.map((f) => f[0]) as (string | undefined)[];
  if (role === undefined || agent === undefined || worktree === undefined)
    return err('a window line needs <role> <agent> <worktree>');
  let ok = true;
  if (!isValidRoleName(role)) {
    ok = false;
    err(`role '${role}' must match ^[A-Za-z][A-Za-z0-9-]*$ and be at most 32 characters`);
  } else if (parse.roles.has(role)) {
    ok = false;
    err(`role '${role}' is already defined on line ${parse.roles.get(role)}`);
  }
  if (!sharesRoot(worktree)) {
    if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(worktree) || worktree === '.' || worktree === '..') {
      ok = false;
      err(
        `worktree '${worktree}' must be master, none or a name ` +
          `matching ^[A-Za-z0-9][A-Za-z0-9._-]*$`,
      );
    } else if (parse.worktrees.has(worktree)) {
      ok = false;
      err(
        `worktree '${worktree}' is already used on line ` +
          `${parse.worktrees.get(worktree)}; only master/none may be ` +
          `shared`,
      );
    }
  }
  if (!ok) return;
  parse.roles.set(role, line);
  if (!sharesRoot(worktree)) parse.worktrees.set(worktree, line);
  const isMode = fifth === 'task' || fifth === 'batch';
  const argsStart = fields[isMode ? 5 : 4]?.index;
  parse.windows.push({
    line,
    role,
    agent,
    worktree,
    mode: isMode ? (fifth as ReceiveMode) : 'task',
    extraArgs: argsStart === undefined ? '' : trimmed.slice(argsStart),
  });
}

function reviewLine(
  parse: Parse,
  line: number,
  trimmed: string,
  err: (rule: string) => void,
): void {
  const [, lens, role, extra] = trimmed.split(/\s+/);
  if (lens !== 'cto' && lens !== 'coo')
    return err(`a review line names a lens, cto or coo; got '${lens ?? ''}'`);
  if (role === undefined || extra !== undefined)
    return err(`a review line is 'review ${lens} <role>'`);
  const earlier = parse.reviewers.find((r) => r.lens === lens);
  if (earlier) return err(`the ${lens} reviewer is already set on line ${earlier.line}`);
  parse.reviewers.push({ line, lens, role });
}

/** Parses swarmforge.conf text; `file` is the path used in error lines. */
export function parseConfig(text: string, file: string): ConfigResult {
  const parse: Parse = {
    windows: [],
    reviewers: [],
    errors: [],
    roles: new Map(),
    worktrees: new Map(),
  };
  text.split('\n').forEach((raw, index) => {
    const trimmed = raw.trim();
    if (trimmed === '' || trimmed.startsWith('#')) return;
    const err = (rule: string) => void parse.errors.push(`${file}:${index + 1}: ${rule}`);
    const keyword = trimmed.split(/\s+/)[0];
    if (keyword === 'window') windowLine(parse, index + 1, trimmed, err);
    else if (keyword === 'review') reviewLine(parse, index + 1, trimmed, err);
    else err(`unknown directive '${keyword}'; ${DIRECTIVES}`);
  });
  for (const r of parse.reviewers) {
    if (!parse.roles.has(r.role))
      parse.errors.push(
        `${file}:${r.line}: review ${r.lens} names role '${r.role}', which no window line defines`,
      );
  }
  const { windows, reviewers, errors } = parse;
  if (windows.length === 0 && errors.length === 0)
    errors.push(`${file}: no window lines; add 'window <role> <agent> <worktree> [task|batch]'`);
  return errors.length > 0 ? { ok: false, errors } : { ok: true, windows, reviewers };
}

/**
 * ROOT's swarmforge.conf, parsed; fails with every error (file, line, rule) when it is missing or
 * invalid.
 */
export function readConfig(root: string): { windows: WindowConfig[]; reviewers: ReviewerConfig[] } {
  const confPath = configPathOf(root);
  if (!fs.existsSync(confPath))
    fail('environment', `baton: no swarmforge/swarmforge.conf in '${root}'`);
  const parsed = parseConfig(fs.readFileSync(confPath, 'utf8'), confPath);
  if (!parsed.ok) fail('environment', ...parsed.errors);
  return parsed;
}
