// The Maildir layout of one mailbox. A mailbox is a directory; it knows nothing about
// roles or swarms (lib/handoff maps a role to its mailbox directory).
import { lstatSync } from 'node:fs';
import { childPathOf } from '../fsx/childPaths.js';
import { mkdirSynced } from '../fsx/durable.js';
import { isCode } from '../fsx/absent.js';

/** A mailbox folder that is a symlink or not a directory: refused, never followed. */
export class UnsafeMailbox extends Error {
  constructor(
    readonly path: string,
    reason: string,
  ) {
    super(`refusing mailbox folder '${path}': ${reason}`);
  }
}

/** Every path of one mailbox. */
export interface Mailbox {
  dir: string;
  outbox: string;
  outboxTmp: string;
  sent: string;
  failed: string;
  inbox: string;
  inboxNew: string;
  inProcess: string;
  completed: string;
  /**
   * Unusable entries taken out of new/, each with `<name>.error` beside it (quarantine.ts).
   * Created on first use, so it is not in MAILBOX_FOLDERS.
   */
  bad: string;
  /** Lock files of the inbox and outbox (transient; see lock.ts). */
  locks: string;
  /** The lock that serializes claims and completions (and a daemon's repeat delivery). */
  inboxLock: string;
  /** The lock that serializes the sender's sends (sequence number and publish). */
  outboxLock: string;
  /** The sender's last used sequence number. */
  seqFile: string;
}

/** The layout of the mailbox rooted at `dir`. */
export function mailboxAt(dir: string): Mailbox {
  const at = childPathOf(dir);
  return {
    dir,
    outbox: at('outbox'),
    outboxTmp: at('outbox/tmp'),
    sent: at('sent'),
    failed: at('failed'),
    inbox: at('inbox'),
    inboxNew: at('inbox/new'),
    inProcess: at('inbox/in_process'),
    completed: at('inbox/completed'),
    bad: at('inbox/bad'),
    locks: at('locks'),
    inboxLock: at('locks/inbox'),
    outboxLock: at('locks/outbox'),
    seqFile: at('sequence'),
  };
}

/** The folders a mailbox holds, parents before children. */
export const MAILBOX_FOLDERS = [
  'outbox',
  'outboxTmp',
  'sent',
  'failed',
  'inbox',
  'inboxNew',
  'inProcess',
  'completed',
  'locks',
] as const;

/**
 * Creates the folder `path` if missing (mode 0700, parent fsync'd); refuses one that is a symlink
 * or not a directory.
 */
export function ensureFolder(path: string): void {
  try {
    const stat = lstatSync(path);
    if (stat.isSymbolicLink()) throw new UnsafeMailbox(path, 'is a symlink');
    if (!stat.isDirectory()) throw new UnsafeMailbox(path, 'is not a directory');
  } catch (err) {
    if (!isCode(err, 'ENOENT')) throw err;
    mkdirSynced(path);
  }
}

/**
 * Creates every missing folder of the mailbox (mode 0700, parents fsync'd) and refuses a
 * folder that is a symlink or not a directory. Idempotent.
 */
export function ensureMailbox(box: Mailbox): void {
  // Parents are checked before children, so a folder is only ever created inside a
  // verified real directory, never through a symlink.
  for (const path of [box.dir, ...MAILBOX_FOLDERS.map((key) => box[key])]) ensureFolder(path);
}
