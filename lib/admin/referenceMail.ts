// Mail the SwarmForge reference scripts left behind and Baton has not imported yet. The
// reference scripts keep one mailbox per worktree (`<worktree>/.swarmforge/handoffs/`, see
// layout.ts), shared by every role working there; Baton keeps one per role. This module
// lists the items still pending there (outbox/, inbox/new/, inbox/in_process/ and its
// batch_* folders) in every configured worktree and in ROOT, and decides each one's role:
//   outbox item   → the role named by `from`, which must work in that worktree (handoffd
//                   refuses an outbox item whose `from` is not its mailbox's role);
//   inbox item    → the role named by `recipient` if it works there; without a `recipient`,
//                   the single role of that worktree, or the one role of `to` working there;
//   anything else is ambiguous (a worktree shared by roles the headers do not choose between,
//   a header naming a role that does not work there) and an item without a readable header
//   and id is unusable: both stay where they are, for a person (`baton doctor` lists them).
// Reads only; referenceImport.ts acts on the result.
import { join } from 'node:path';
import {
  entriesOf,
  type ImportSide,
  isBatchName,
  type Item,
  itemNamesIn,
  type Mailbox,
  readItem,
  UnusableItem,
} from '../queue/index.js';
import { mailboxOf, referenceMailboxOf } from '../project/layout.js';
import { type Role } from '../handoff/roles.js';

/** The reference folder an item waits in. */
export type ReferenceFolder = 'outbox' | 'inbox/new' | 'inbox/in_process';

/** An item still in a reference mailbox. */
interface Placed {
  path: string;
  folder: ReferenceFolder;
  /** The worktree whose reference mailbox holds it. */
  worktree: string;
  /** The roles configured on that worktree. */
  rolesHere: string[];
}

/** A pending item with the role it belongs to and the side of that role's mailbox it goes to. */
export interface ImportableMail extends Placed {
  kind: 'importable';
  item: Item;
  role: string;
  side: ImportSide;
}

/**
 * A pending item that stays where it is until a person decides: `ambiguous` (whose it is) or
 * `unusable` (no readable header or id).
 */
export interface StrandedMail extends Placed {
  kind: 'ambiguous' | 'unusable';
  problem: string;
}

/** One pending item of a reference mailbox. */
export type PendingMail = ImportableMail | StrandedMail;

/**
 * The items of a reference mailbox still waiting or in process, folder by folder, each in queue
 * order.
 */
function pendingPaths(box: Mailbox): { path: string; folder: ReferenceFolder }[] {
  const inFolder = (dir: string, folder: ReferenceFolder) =>
    itemNamesIn(dir).map((n) => ({ path: join(dir, n), folder }));
  const batches = entriesOf(box.inProcess)
    .filter((e) => e.isDirectory() && isBatchName(e.name))
    .map((e) => e.name)
    .sort();
  return [
    ...inFolder(box.outbox, 'outbox'),
    ...inFolder(box.inboxNew, 'inbox/new'),
    ...inFolder(box.inProcess, 'inbox/in_process'),
    ...batches.flatMap((b) => inFolder(join(box.inProcess, b), 'inbox/in_process')),
  ];
}

/** `a, b` or `none`. */
function listed(roles: string[]): string {
  return roles.length ? roles.join(', ') : 'none';
}

/**
 * The role an item belongs to, or why that cannot be decided from its headers and the roles of its
 * worktree.
 */
export function roleOfReferenceItem(
  item: Item,
  folder: ReferenceFolder,
  rolesHere: string[],
): { role: string } | { problem: string } {
  if (rolesHere.length === 0) return { problem: 'no configured role works in this worktree' };
  const here = (role: string | undefined) => role !== undefined && rolesHere.includes(role);
  const { from, recipient, to } = item.headers;
  if (folder === 'outbox') {
    if (!from)
      return {
        problem: `no from header names its sender (roles of this worktree: ${listed(rolesHere)})`,
      };
    return here(from)
      ? { role: from }
      : {
          problem:
            `from '${from}' is not a role of this worktree (roles here: ` + `${listed(rolesHere)})`,
        };
  }
  if (recipient) {
    return here(recipient)
      ? { role: recipient }
      : {
          problem:
            `recipient '${recipient}' is not a role of this worktree ` +
            `(roles here: ${listed(rolesHere)})`,
        };
  }
  if (rolesHere.length === 1) return { role: rolesHere[0]! };
  const named = [...new Set((to ?? '').split(',').map((r) => r.trim()))].filter(here);
  if (named.length === 1) return { role: named[0]! };
  return {
    problem:
      `roles ${listed(rolesHere)} share this worktree and no ` +
      `recipient header says whose it is`,
  };
}

/** The decided item; undefined when it has gone since the listing (another import marked it). */
async function decide(placed: Placed): Promise<PendingMail | undefined> {
  let item: Item;
  try {
    item = await readItem(placed.path);
  } catch (err) {
    if (err instanceof UnusableItem)
      return { ...placed, kind: 'unusable', problem: `unusable item: ${err.reason}` };
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if (typeof code === 'string')
      return { ...placed, kind: 'unusable', problem: `unreadable: ${code}` };
    throw err;
  }
  const owner = roleOfReferenceItem(item, placed.folder, placed.rolesHere);
  if ('problem' in owner) return { ...placed, kind: 'ambiguous', problem: owner.problem };
  return {
    ...placed,
    kind: 'importable',
    item,
    role: owner.role,
    side: placed.folder === 'outbox' ? 'outbox' : 'inbox',
  };
}

/**
 * The worktrees whose reference mailboxes are read: ROOT first (always), then each configured
 * worktree once, with the roles working there.
 */
export function referenceWorktrees(
  root: string,
  roles: Role[],
): { worktree: string; rolesHere: string[] }[] {
  const paths = [root, ...roles.map((r) => r.worktreePath).filter((p) => p !== root)];
  return [...new Set(paths)].map((worktree) => ({
    worktree,
    rolesHere: roles.filter((r) => r.worktreePath === worktree).map((r) => r.role),
  }));
}

/**
 * Every item still pending in the reference mailboxes of ROOT and the configured worktrees,
 * decided.
 */
export async function pendingReferenceMail(root: string, roles: Role[]): Promise<PendingMail[]> {
  const pending: PendingMail[] = [];
  for (const { worktree, rolesHere } of referenceWorktrees(root, roles)) {
    for (const { path, folder } of pendingPaths(referenceMailboxOf(worktree))) {
      const decided = await decide({ path, folder, worktree, rolesHere });
      if (decided) pending.push(decided);
    }
  }
  return pending;
}

/** The folder of the role's own mailbox an importable item goes to. */
export function importTargetOf(root: string, mail: ImportableMail): string {
  const box = mailboxOf(root, mail.role);
  return mail.side === 'outbox' ? box.outbox : box.inboxNew;
}

/** What a person can do about a pending item (`baton doctor`'s remedy, `baton init`'s report). */
export function remedyForPending(root: string, mail: PendingMail): string {
  if (mail.kind === 'importable')
    return `run baton init (or baton up): it imports the item into ${importTargetOf(root, mail)}/`;
  if (mail.kind === 'unusable')
    return (
      'give it a readable header with an id line (or move it out of ' +
      'the folder), then run baton init'
    );
  if (mail.rolesHere.length === 0)
    return (
      'configure the role that owns it on this worktree in ' +
      'swarmforge/swarmforge.conf, or move it by hand into that ' +
      "role's mailbox, then run baton init"
    );
  const header = mail.folder === 'outbox' ? 'from' : 'recipient';
  return (
    `set its ${header} header to the role it belongs to (one of ` +
    `${listed(mail.rolesHere)}), then run baton init`
  );
}
