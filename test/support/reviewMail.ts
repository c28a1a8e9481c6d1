// Review mail moved the way handoffd and the agents move it, in process: a role's outbox
// delivered (deliverHandoff, as a daemon pass does), the next item claimed (ready_for_next)
// and the current one completed (done_with_current), so tests find handoffs where they
// really end up.
import * as fs from 'node:fs';
import { deliverHandoff } from '../../lib/daemon/deliver.js';
import { daemonPathsOf, mailboxOf } from '../../lib/project/layout.js';
import { doneWithCurrent, readyForNext } from '../../lib/handoff/receive.js';
import { readRoles } from '../../lib/handoff/roles.js';
import { itemsIn } from './project.js';

/** Delivers every handoff in `sender`'s outbox; returns the delivery results. */
export async function deliverOutbox(
  root: string,
  sender: string,
): Promise<Awaited<ReturnType<typeof deliverHandoff>>[]> {
  const tmp = daemonPathsOf(root).tmp;
  fs.mkdirSync(tmp, { recursive: true, mode: 0o700 });
  const scope = { root, roles: readRoles(root).roles, tmp };
  const results = [];
  for (const name of itemsIn(mailboxOf(root, sender).outbox))
    results.push(await deliverHandoff(scope, sender, name, false));
  return results;
}

const agentEnv = (root: string, role: string): NodeJS.ProcessEnv => ({
  SWARMFORGE_ROOT: root,
  SWARMFORGE_ROLE: role,
});

/** `ready_for_next` as `role`: claims its next item (or batch) into in_process/. */
export async function claimAs(root: string, role: string): Promise<string> {
  return (await readyForNext(root, agentEnv(root, role), () => undefined)).toString('utf8');
}

/** `done_with_current` as `role`: moves its item (or batch) in process into completed/. */
export async function completeAs(root: string, role: string): Promise<string> {
  return (await doneWithCurrent(root, agentEnv(root, role), undefined, () => undefined)).toString(
    'utf8',
  );
}
