// The system's user and group databases, read through getent (so NSS sources such as LDAP
// count, not only /etc/passwd): for `baton share --group` and `baton up --agents-user`.
import { spawnSync } from 'node:child_process';

/** The id of `name` in the `database` (a number is taken as it is), or undefined if none. */
export function accountIdOf(database: 'passwd' | 'group', name: string): number | undefined {
  if (/^\d+$/.test(name)) return Number(name);
  const r = spawnSync('getent', [database, '--', name], { encoding: 'utf8' });
  const id = Number(r.stdout?.split(':')[2]);
  return r.status === 0 && Number.isInteger(id) ? id : undefined;
}
