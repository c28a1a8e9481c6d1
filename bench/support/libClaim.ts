// The library's claim path exactly as `ready_for_next` runs it in task mode once it has
// found nothing in process: under the inbox lock, read the first waiting item, claim it.
import { claimItem, readItemsIn } from '../../lib/queue/claim.js';
import { type UnusableItem } from '../../lib/queue/item.js';
import { withLock } from '../../lib/fsx/lock.js';
import { type Mailbox } from '../../lib/queue/mailbox.js';

function refuseSkip(problem: UnusableItem): void {
  throw new Error(`benchmark fixture has an unusable item: ${problem.message}`);
}

/** Claims the first waiting item of `box` through lib/queue (lock, readItemsIn, claimItem); its claimed path. */
export async function libClaim(box: Mailbox): Promise<string> {
  return withLock(box.inboxLock, async () => {
    const [next] = await readItemsIn(box.inboxNew, refuseSkip, 1);
    if (!next) throw new Error(`library claim: nothing waiting in ${box.inboxNew}`);
    return (await claimItem(box, next, new Date())).path;
  });
}
