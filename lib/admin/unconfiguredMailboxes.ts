// Mailboxes of roles that are no longer in roles.tsv but still hold work: a role removed
// from swarmforge.conf keeps its folder under `.swarmforge/handoffs/`, and nothing delivers,
// wakes or lists it any more. `baton doctor` reports those that hold items waiting or in
// progress (outbox/, inbox/new/, inbox/in_process/); history (sent/, failed/, completed/)
// alone is no problem.
//
// ROOT's handoffs/ folder also holds the reference scripts' own folders (outbox/, inbox/,
// sent/, failed/) when a role works in ROOT, and may hold their `sequence` file. A role's
// mailbox is told apart by its shape, not its name: it is a folder named like a role that
// holds an inbox/ or outbox/ folder of its own, which no reference folder does.
import * as fs from 'node:fs';
import { join } from 'node:path';
import { entriesOf, itemNamesIn, mailboxAt } from '../queue/index.js';
import { handoffsDirOf } from '../project/layout.js';
import { isValidRoleName } from '../handoff/roleName.js';
import { inProcessCount } from './status.js';

/** A mailbox of a role that is not configured, with the items it still holds. */
export interface UnconfiguredMailbox {
  role: string;
  dir: string;
  outbox: number;
  new: number;
  in_process: number;
}

function isFolder(path: string): boolean {
  return fs.lstatSync(path, { throwIfNoEntry: false })?.isDirectory() ?? false;
}

/**
 * The mailboxes under ROOT/.swarmforge/handoffs/ of roles not in `configured` that still hold
 * waiting or in-process items, in name order.
 */
export function unconfiguredMailboxes(
  root: string,
  configured: Set<string>,
): UnconfiguredMailbox[] {
  const dir = handoffsDirOf(root);
  const found: UnconfiguredMailbox[] = [];
  for (const entry of entriesOf(dir).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (!entry.isDirectory() || configured.has(entry.name) || !isValidRoleName(entry.name))
      continue;
    const box = mailboxAt(join(dir, entry.name));
    if (!isFolder(box.inbox) && !isFolder(box.outbox)) continue;
    const counts = {
      outbox: itemNamesIn(box.outbox).length,
      new: itemNamesIn(box.inboxNew).length,
      in_process: inProcessCount(box).count,
    };
    if (counts.outbox + counts.new + counts.in_process > 0)
      found.push({ role: entry.name, dir: box.dir, ...counts });
  }
  return found;
}
