// fsyncs of one real delivery: the library's deliverHandoff (steps 1-3 for one handoff:
// copy, then finish it as a group of one, as handoffd delivers a lone handoff) on a
// project where no daemon runs, counted with fsyncCount. Untimed; the daemon figures print
// the count beside the raw baselines' own.
import { deliverHandoff } from '../../lib/daemon/deliver.js';
import { readRoles } from '../../lib/handoff/roles.js';
import { countFsyncs } from './fsyncCount.js';

/** fsyncs of delivering `outbox/<name>` of `sender` in `root` (copies through `tmp`); throws unless it was delivered. */
export async function deliveryFsyncs(
  root: string,
  tmp: string,
  sender: string,
  name: string,
  deep: boolean,
): Promise<number> {
  const scope = { root, roles: readRoles(root).roles, tmp };
  let outcome = '';
  const fsyncs = await countFsyncs(async () => {
    const result = await deliverHandoff(scope, sender, name, deep);
    outcome = result.kind === 'delivered' ? result.kind : `${result.kind}: ${result.reason}`;
  });
  if (outcome !== 'delivered')
    throw new Error(`deliverHandoff of ${name} did not deliver (${outcome})`);
  return fsyncs;
}
