// Importing the SwarmForge reference scripts' pending mail (referenceMail.ts decides whose
// each item is) into the per-role mailboxes, exactly once by id: `baton init` and `baton up`
// run it through initProject.
//   outbox/ item           → the sender role's outbox/ (handoffd then delivers it as usual)
//   inbox/new/ item        → the role's inbox/new/
//   inbox/in_process/ item → the role's inbox/new/ as well: the agent that had claimed it
//                            belongs to the old swarm, so the next ready_for_next offers it
//                            again. Placing it in process instead could meet an item already
//                            in process, or a batch role, and make an ambiguous state.
// Each copy keeps the original's bytes and name; the original is then renamed to
// `<name>.imported` in its own folder. Ambiguous and unusable items, and an item whose name
// is taken in the role's mailbox by another one, are left as they are and reported.
//
// Concurrency and crash contract: those of lib/queue/foreignImport.ts. Each role's items
// are imported while holding that side's lock of the role's mailbox (inbox lock, or outbox
// lock), so a claim, a completion, a send or a second import never races an import; a kill
// at any step followed by a rerun ends with exactly one copy of every item.
import { ensureMailbox, importForeignItem, type ImportSide } from '../queue/index.js';
import { withLock } from '../fsx/lock.js';
import { mailboxOf } from '../project/layout.js';
import {
  pendingReferenceMail,
  remedyForPending,
  type ImportableMail,
  type PendingMail,
} from './referenceMail.js';
import { type Role } from '../handoff/roles.js';

/**
 * An item now in a role's mailbox: where it was, where its copy is (or where that id already was),
 * its id and role.
 */
export interface ImportedMail {
  from: string;
  to: string;
  id: string;
  role: string;
}

/** An item left where it was, why, and what a person can do. */
export interface MailLeftBehind {
  path: string;
  problem: string;
  remedy: string;
}

/** What an import did, in the order the items were found. */
export interface ImportReport {
  imported: ImportedMail[];
  left: MailLeftBehind[];
}

type Outcome = { imported: ImportedMail } | { left: MailLeftBehind } | undefined;

/** Imports one role's items of one side under that side's lock; outcomes by original path. */
async function importGroup(
  root: string,
  role: string,
  side: ImportSide,
  group: ImportableMail[],
): Promise<Map<string, Outcome>> {
  const box = mailboxOf(root, role);
  ensureMailbox(box);
  const outcomes = new Map<string, Outcome>();
  await withLock(side === 'inbox' ? box.inboxLock : box.outboxLock, async () => {
    for (const mail of group) {
      const done = await importForeignItem(box, side, mail.item);
      if (done.kind === 'gone') outcomes.set(mail.path, undefined);
      else if (done.kind === 'clash') {
        const problem = `its name is taken in ${role}'s mailbox by another item: ${done.path}`;
        outcomes.set(mail.path, {
          left: {
            path: mail.path,
            problem,
            remedy: 'rename it (keep the .handoff ending), then run baton init',
          },
        });
      } else
        outcomes.set(mail.path, {
          imported: { from: mail.path, to: done.path, id: mail.item.id, role },
        });
    }
  });
  return outcomes;
}

/** Groups importable items by role and side, in order of first appearance. */
function groupsOf(pending: PendingMail[]): Map<string, ImportableMail[]> {
  const groups = new Map<string, ImportableMail[]>();
  for (const mail of pending) {
    if (mail.kind !== 'importable') continue;
    const key = `${mail.side}\t${mail.role}`;
    groups.set(key, [...(groups.get(key) ?? []), mail]);
  }
  return groups;
}

/**
 * Imports the pending reference mail of ROOT and every configured worktree into the roles'
 * mailboxes.
 */
export async function importReferenceMail(root: string, roles: Role[]): Promise<ImportReport> {
  const pending = await pendingReferenceMail(root, roles);
  const outcomes = new Map<string, Outcome>();
  for (const [key, group] of groupsOf(pending)) {
    const [side, role] = key.split('\t') as [ImportSide, string];
    for (const [path, outcome] of await importGroup(root, role, side, group))
      outcomes.set(path, outcome);
  }
  const report: ImportReport = { imported: [], left: [] };
  for (const mail of pending) {
    if (mail.kind !== 'importable')
      report.left.push({
        path: mail.path,
        problem: mail.problem,
        remedy: remedyForPending(root, mail),
      });
    const outcome = outcomes.get(mail.path);
    if (outcome && 'imported' in outcome) report.imported.push(outcome.imported);
    if (outcome && 'left' in outcome) report.left.push(outcome.left);
  }
  return report;
}
