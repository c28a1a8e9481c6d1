// Who and where a run command runs (docs/runtime.md §2, §7): the owner, machine_id and
// host recorded at start and compared by resume and retry. The owner comes from the
// password database (os.userInfo), which a changed $USER does not fool; $USER is only the
// fallback for a uid with no entry (some containers). The machine id is /etc/machine-id;
// a machine without one records '' rather than failing, so runs still work there.
import { readFileSync } from 'node:fs';
import { systemHostName } from '../../fsx/processIdentity.js';

const userInfo = () => (process.getBuiltinModule('node:os') as typeof import('node:os')).userInfo();

/** The user name of this process: os.userInfo's, else $USER, else ''. */
export function currentOwner(
  env: NodeJS.ProcessEnv = process.env,
  lookUp: () => { username: string } = userInfo,
): string {
  try {
    const name = lookUp().username;
    if (name) return name;
  } catch {
    // no password entry for this uid: fall back to the environment
  }
  return env.USER ?? '';
}

/** This machine's id (/etc/machine-id, trimmed), or '' when it cannot be read. */
export function machineId(path = '/etc/machine-id'): string {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return '';
  }
}

/** This machine's host name. */
export function hostName(): string {
  return systemHostName();
}
