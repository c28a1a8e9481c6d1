// The runtime role table `ROOT/.swarmforge/roles.tsv`: one TAB-separated line per role,
// the same 7 columns as the reference scripts. Every command reads this table; none
// reparses swarmforge.conf. Bad lines are ignored and returned as problems (the daemon
// logs them, `baton doctor` lists them).
import * as fs from 'node:fs';
import { rolesPathOf } from '../project/layout.js';
import { isValidRoleName } from './roleName.js';

/** One row of roles.tsv. `mode` is kept verbatim: commands validate it when they act. */
export interface Role {
  role: string;
  worktreeName: string;
  worktreePath: string;
  session: string;
  displayName: string;
  agent: string;
  mode: string;
}

/** The parsed table: valid roles by name, and one message per ignored line. */
export interface RoleTable {
  roles: Map<string, Role>;
  problems: string[];
}

/** Parses roles.tsv text. */
export function parseRoles(text: string, path = 'roles.tsv'): RoleTable {
  const roles = new Map<string, Role>();
  const problems: string[] = [];
  text.split('\n').forEach((raw, index) => {
    const line = raw.replace(/\r$/, '');
    if (line.trim() === '') return;
    const cols = line.split('\t');
    const where = `${path}:${index + 1}`;
    if (cols.length < 6) return problems.push(`${where}: fewer than 6 columns`);
    const [role, worktreeName, worktreePath, session, displayName, agent, mode] = cols as string[];
    if (!isValidRoleName(role!)) return problems.push(`${where}: invalid role name '${role}'`);
    if (roles.has(role!)) return problems.push(`${where}: repeated role '${role}'`);
    roles.set(role!, {
      role: role!,
      worktreeName: worktreeName!,
      worktreePath: worktreePath!,
      session: session!,
      displayName: displayName!,
      agent: agent!,
      mode: mode === undefined || mode === '' ? 'task' : mode,
    });
  });
  return { roles, problems };
}

/** Reads ROOT's roles.tsv. */
export function readRoles(root: string): RoleTable {
  const path = rolesPathOf(root);
  return parseRoles(fs.readFileSync(path, 'utf8'), path);
}

/** Formats roles as roles.tsv text. */
export function formatRoles(roles: Role[]): string {
  return roles
    .map(
      (r) =>
        [r.role, r.worktreeName, r.worktreePath, r.session, r.displayName, r.agent, r.mode].join(
          '\t',
        ) + '\n',
    )
    .join('');
}
