// Who is acting and where: the checks every agent command runs first, in protocol order
// (role set, ROOT found, role known). An unknown role's line is followed by a hint line:
// the known roles and the one probably meant (roleHint.ts).
import { printable } from '../fsx/printable.js';
import { fail } from '../fsx/commandFailure.js';
import { findRoot } from '../project/root.js';
import { knownRolesHint } from './roleHint.js';
import { readRoles, type Role, type RoleTable } from './roles.js';

/** The acting role, its project and the role table. */
export interface Context {
  root: string;
  role: Role;
  table: RoleTable;
}

/**
 * Resolves $SWARMFORGE_ROLE, ROOT and the role's row; `unknownLabel` is "role" or "sender role".
 */
export function actingContext(cwd: string, env: NodeJS.ProcessEnv, unknownLabel = 'role'): Context {
  const name = env.SWARMFORGE_ROLE;
  if (!name) fail('environment', 'Set SWARMFORGE_ROLE.');
  const root = findRoot(cwd, env);
  const table = readRoles(root);
  const role = table.roles.get(name);
  if (!role)
    fail(
      'environment',
      `Unknown ${unknownLabel}: ${printable(name)}`,
      knownRolesHint([name], [...table.roles.keys()]),
    );
  return { root, role, table };
}
