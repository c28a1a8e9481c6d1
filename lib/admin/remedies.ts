// What a person can do about each kind of problem `baton doctor` finds in a role's mailbox
// or in the role table. The queue's inspection (lib/queue/inspect.ts) names the kind of a
// problem; this module, which knows roles and commands, names the remedy. Doctor repairs
// nothing but stale temp files itself, so every remedy is a step for a person.
import { type Finding, type Mailbox } from '../queue/index.js';
import { configPathOf } from '../project/layout.js';

/** The remedy for a problem found in `role`'s mailbox `box`. */
export function mailboxRemedy(finding: Finding, role: string, box: Mailbox): string {
  switch (finding.kind) {
    case 'folder-mode':
      return `chmod ${finding.expectedMode ?? '700'} '${finding.path}'`;
    case 'file-mode':
      return `chmod ${finding.expectedMode ?? '600'} '${finding.path}'`;
    case 'symlink':
      return (
        'remove the link (Baton never follows one); to queue the file ' +
        'it points to, move that file here instead'
      );
    case 'not-regular':
      return 'move it out of the mailbox folder: only regular *.handoff files are items';
    case 'unusable-item':
      return (
        'readers skip it: give it a readable header with an id line, ' +
        'or move it out of the mailbox'
      );
    case 'duplicate-id':
      return (
        'one handoff sits in two places: keep the copy furthest along ' +
        '(completed/, in_process/, new/; sent/ or failed/, outbox/) ' +
        'and move the other out of the mailbox'
      );
    case 'interrupted-claim':
      return (
        `run ready_for_next as ${role} (SWARMFORGE_ROLE=${role} ` +
        `ready_for_next): it rolls the claim back`
      );
    case 'stale-temp':
      return 'baton doctor --fix deletes it (a crash left it; nothing reads it)';
    case 'several-in-process':
      return (
        `finish the item ${role} works on with done_with_current and ` +
        `move the others back into ${box.inboxNew}/ (ready_for_next ` +
        `offers them again)`
      );
  }
}

/**
 * The remedy for a bad roles.tsv line (the launcher and baton init write the table from the conf).
 */
export function rolesTableRemedy(root: string): string {
  return `fix ${configPathOf(root)} and run baton init: it rewrites roles.tsv`;
}

/** The remedy for a role whose receive mode is neither task nor batch. */
export function receiveModeRemedy(root: string, role: string): string {
  return `set the mode of ${role} to task or batch in ${configPathOf(root)} and run baton init`;
}

/** The remedy for the mailbox of a role that is no longer configured but still holds work. */
export function unconfiguredMailboxRemedy(root: string, role: string): string {
  return (
    `add a window line for ${role} back to ${configPathOf(root)} ` +
    `and run baton init, or move its waiting items by hand into a ` +
    `configured role's inbox/new/`
  );
}

/** The remedy for mail waiting in an outbox while no handoffd delivers it. */
export const DAEMON_DOWN_REMEDY = 'start handoffd: baton daemon start (or baton up)';

/** The remedy for a role whose mail waited through every re-wake of handoffd, still unclaimed. */
export function rewakesSpentRemedy(role: string): string {
  return (
    `look at ${role}'s pane (baton attach): an idle agent should run ready_for_next ` +
    `(SWARMFORGE_ROLE=${role} ready_for_next); a stuck or exited one needs a restart. ` +
    `handoffd wakes it again when new mail arrives`
  );
}

/** What to do about a running agent without Baton's hooks (hooklessAgents.ts). */
export function hooklessAgentRemedy(role: string, canHaveHooks: boolean): string {
  return canHaveHooks
    ? `restart it with Baton's hooks on its launch line: baton restart ${role}`
    : 'run claude or codex for this role, or accept that only its pane is watched';
}
