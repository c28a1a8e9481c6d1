// The library's claim path exactly as `ready_for_next` runs it in task mode once it has
// found nothing in process: under the inbox lock, read the first waiting item, claim it.
import { join } from 'node:path';
import { claimItem, readItemsIn } from '../lib/queue/claim.js';
import { readItem, type UnusableItem } from '../lib/queue/item.js';
import { withLock } from '../lib/queue/lock.js';
import { type Mailbox } from '../lib/queue/mailbox.js';
import { itemNamesProposed } from './proposedListing.js';

function refuseSkip(problem: UnusableItem): void {
  throw new Error(`benchmark fixture has an unusable item: ${problem.message}`);
}

/** Claims the first waiting item of `box` through lib/queue (lock, readItemsIn, claimItem); its claimed path. */
export async function libClaim(box: Mailbox): Promise<string> {
  return withLock(join(box.locks, 'inbox'), async () => {
    const [next] = await readItemsIn(box.inboxNew, refuseSkip, 1);
    if (!next) throw new Error(`library claim: nothing waiting in ${box.inboxNew}`);
    return (await claimItem(box, next, new Date())).path;
  });
}

/** The same claim with the proposed listing (bench prototype, not lib/): first name of itemNamesProposed, readItem, claimItem. */
export async function prototypeClaim(box: Mailbox): Promise<string> {
  return withLock(join(box.locks, 'inbox'), async () => {
    const [first] = itemNamesProposed(box.inboxNew);
    if (first === undefined) throw new Error(`prototype claim: nothing waiting in ${box.inboxNew}`);
    return (await claimItem(box, await readItem(join(box.inboxNew, first)), new Date())).path;
  });
}
