// Delivery of outbox files (protocol §8 steps 1–3): check everything before writing
// anything, copy to each recipient that has not yet received this id, then move the
// original to sent/ (or, on any check failure, to failed/ with a .error beside it). The
// last step runs once for a group of copied handoffs (finishHandoffs), so a backlog pays
// the folder fsyncs once per group rather than once per handoff.
//
// Concurrency contract: only handoffd calls this, one handoff at a time (it holds the
// daemon lock). Crash contract: a kill at any point leaves the original in outbox/ until
// it reaches sent/ or failed/; the retry skips recipients that already hold the id (in
// new/, in process, batches included, or completed/), so each recipient ends with exactly
// one copy. `deep` also searches completed batches: needed only for a file that may have
// been partly delivered before (present at start-up, or a retry after an error). A
// task-mode copy only moves forward, new/ → in_process/ → completed/, and the search
// looks in that order, so it cannot miss a copy that moves meanwhile (batch directories
// of a task-mode role are leftovers of an earlier mode and never move); a batch role's
// copy moves through staging and batch directories, so a deep search holds the inbox
// lock of each batch-mode recipient.
import * as fs from 'node:fs';
import { join } from 'node:path';
import { crashPoint } from '../fsx/crash.js';
import {
  copyPlaces,
  deliverCopy,
  ensureFolder,
  ensureMailbox,
  type FolderLister,
  freeNameIn,
  idPlaces,
  type Item,
  type Mailbox,
  moveOriginal,
  readItem,
  renameInto,
  serializeEnvelope,
  UnusableItem,
} from '../queue/index.js';
import { isoOf } from '../fsx/timestamps.js';
import { fsyncDir, publishWhole } from '../fsx/durable.js';
import { isCode } from '../fsx/absent.js';
import { acquireLock, type Release } from '../fsx/lock.js';
import { mailboxOf } from '../project/layout.js';
import { type Role } from '../handoff/roles.js';

/** What became of one outbox file. */
export type Delivery = Delivered | Failed;

/** A handoff in sent/, its copies durable in every recipient's new/ (or already received). */
export interface Delivered {
  kind: 'delivered';
  id: string;
  name: string;
  from: string;
  copied: string[];
  already: string[];
  sentPath: string;
  remote?: string[];
}

/** A handoff whose remote recipients are still to be published (docs/bridge.md §3). */
export interface RemoteCopies {
  /** The remote recipients. */
  roles: string[];
  /** The outbox file's exact bytes (what is published). */
  bytes: Buffer;
}

/** A refused handoff, in failed/ with its .error. */
export interface Failed {
  kind: 'failed';
  name: string;
  from: string;
  reason: string;
  failedPath: string;
}

/** The project a delivery runs in. */
export interface DeliveryScope {
  root: string;
  roles: Map<string, Role>;
  /** The daemon's temp folder for copies. */
  tmp: string;
  /**
   * Roles whose mailbox was already checked (optional cache; the caller decides how long it holds).
   */
  ensured?: Set<string>;
  /** How the id search lists inbox folders (optional; the daemon's ListingCache). */
  lister?: FolderLister;
  /** Mailbox paths by role (optional; e.g. the caller's memo of mailboxOf). */
  boxOf?: (role: string) => Mailbox;
  /** With a bridge: true for a role on another node (its copy is published, not written here). */
  isRemote?: (role: string) => boolean;
  /**
   * With a bridge: why a handoff cannot travel to these remote roles (over the server's size limit,
   * once known), else undefined.
   */
  tooLargeForBridge?: (
    handoff: { id: string; name: string; from: string; bytes: Uint8Array },
    roles: string[],
  ) => string | undefined;
}

function boxIn(scope: DeliveryScope, role: string): Mailbox {
  return scope.boxOf?.(role) ?? mailboxOf(scope.root, role);
}

/** A handoff that cannot be delivered (it goes to failed/ with the message as its .error). */
export class Refused extends Error {}

/** The id of the item at `path`; undefined if unusable, null if it has gone meanwhile. */
async function idAt(path: string): Promise<string | undefined | null> {
  try {
    return (await readItem(path)).id;
  } catch (err) {
    if (err instanceof UnusableItem) return undefined;
    if (isCode(err, 'ENOENT')) return null;
    throw err;
  }
}

function checkHeaders(item: Item, sender: string, roles: Map<string, Role>): string[] {
  const to = item.headers.to;
  if (!to || to.split(',').every((r) => r.trim() === '')) throw new Refused('missing to header');
  const recipients = [
    ...new Set(
      to
        .split(',')
        .map((r) => r.trim())
        .filter(Boolean),
    ),
  ];
  const unknown = recipients.filter((r) => !roles.has(r));
  if (unknown.length > 0) throw new Refused(`unknown recipient ${unknown.join(', ')}`);
  if (item.headers.from !== sender) throw new Refused('from does not match the sender mailbox');
  return recipients;
}

/**
 * Recipients that still need a copy; refuses the whole handoff on a name clash. Identity is
 * the id: a copy held under the same name is found first (the common case, a few stats);
 * otherwise any item whose name carries the id, confirmed by its header (idPlaces), so an
 * outbox file copied under a new name, or an arrival published again after the server
 * forgot its message ids, never gives a recipient a second copy, whatever its mode.
 */
export async function recipientsToCopy(
  scope: DeliveryScope,
  item: Item,
  recipients: string[],
  deep: boolean,
): Promise<string[]> {
  const pending: string[] = [];
  for (const role of recipients) {
    const box = boxIn(scope, role);
    let received = false;
    for (const place of copyPlaces(box, item.name, deep)) {
      const id = await idAt(place);
      if (id === item.id) received = true;
      else if (id !== null) throw new Refused(`name clash in ${role}'s mailbox`);
    }
    if (!received) received = await heldUnderAnotherName(box, item.id, deep, scope.lister);
    if (!received) pending.push(role);
  }
  return pending;
}

/**
 * True when an item whose name carries `id` holds that id (a copy under another name than this
 * delivery's).
 */
async function heldUnderAnotherName(
  box: Mailbox,
  id: string,
  deep: boolean,
  lister: FolderLister | undefined,
): Promise<boolean> {
  for (const place of idPlaces(box, id, deep, lister)) {
    if ((await idAt(place)) === id) return true;
  }
  return false;
}

/**
 * A handoff whose copies are linked into new/ (not yet fsync'd there); its original is still in
 * outbox/.
 */
export interface Copied {
  kind: 'copied';
  id: string;
  name: string;
  from: string;
  copied: string[];
  already: string[];
  /** The outbox file. */
  path: string;
  /** The new/ folders that received a copy. */
  newDirs: string[];
  deep: boolean;
  /** With a bridge, the copies still to publish. */
  remote?: RemoteCopies;
}

/**
 * Delivery steps 1–2 of `outbox/<name>` of `sender`'s mailbox: the checks, then a copy to
 * each recipient that lacks one. A refused handoff is moved to failed/ (with its .error) at
 * once; a copied one still needs finishHandoffs.
 */
export async function copyHandoff(
  scope: DeliveryScope,
  sender: string,
  name: string,
  deep: boolean,
  now = new Date(),
): Promise<Copied | Failed> {
  const box = boxIn(scope, sender);
  const path = join(box.outbox, name);
  let releases: Release[] = [];
  try {
    let item: Item;
    try {
      item = await readItem(path);
    } catch (err) {
      if (err instanceof UnusableItem) throw new Refused(err.reason);
      throw err;
    }
    const all = checkHeaders(item, sender, scope.roles);
    const remote = scope.isRemote ? all.filter(scope.isRemote) : [];
    const recipients = all.filter((r) => !remote.includes(r));
    const batchRoles = deep ? recipients.filter((r) => scope.roles.get(r)?.mode !== 'task') : [];
    if (batchRoles.length > 0) releases = lockInboxes(scope, batchRoles);
    ensureMailboxesOf(scope, recipients);
    const pending = await recipientsToCopy(scope, item, recipients, deep);
    const holders = recipients.filter((r) => !pending.includes(r));
    const remoteCopies =
      remote.length > 0 ? remoteCopiesOf(scope, item, path, remote, holders) : undefined;
    const enqueuedAt = isoOf(now);
    const newDirs: string[] = [];
    for (const role of pending) {
      const target = boxIn(scope, role);
      const bytes = await serializeEnvelope(
        { ...item.headers, recipient: role, enqueued_at: enqueuedAt },
        item.body,
      );
      deliverCopy(join(scope.tmp, `${role}.${name}`), bytes, target.inboxNew, name);
      newDirs.push(target.inboxNew);
      crashPoint('deliver:recipient-done');
    }
    const already = recipients.filter((r) => !pending.includes(r));
    return {
      kind: 'copied',
      id: item.id,
      name,
      from: sender,
      copied: pending,
      already,
      path,
      newDirs,
      deep,
      ...(remoteCopies ? { remote: remoteCopies } : {}),
    };
  } catch (err) {
    if (!(err instanceof Refused)) throw err;
    return failHandoff(scope, sender, name, err.message);
  } finally {
    for (const release of releases.reverse()) release();
  }
}

/**
 * Creates any missing folder of the recipients' mailboxes (0700), once per role while the
 * scope's cache holds. Every recipient, not only those still owed a copy: a deep retry
 * fsyncs new/ of the ones already holding theirs, and a mailbox made by hand, by an older
 * tool or emptied by a person may lack new/ (a handoff was stuck for good on that ENOENT).
 */
export function ensureMailboxesOf(scope: DeliveryScope, roles: readonly string[]): void {
  for (const role of roles) {
    if (scope.ensured?.has(role)) continue;
    ensureMailbox(boxIn(scope, role));
    scope.ensured?.add(role);
  }
}

/**
 * The bytes to publish for the remote recipients; refuses a handoff over the server's known
 * size limit before this try makes any copy. `holders` are the local recipients that already
 * hold theirs (an earlier try, before the limit was known): the refusal names them.
 */
function remoteCopiesOf(
  scope: DeliveryScope,
  item: Item,
  path: string,
  roles: string[],
  holders: string[],
): RemoteCopies {
  const bytes = fs.readFileSync(path);
  const tooLarge = scope.tooLargeForBridge?.(
    { id: item.id, name: item.name, from: item.headers.from ?? '', bytes },
    roles,
  );
  if (tooLarge !== undefined) throw new Refused(tooLargeReason(tooLarge, holders));
  return { roles, bytes };
}

/**
 * Why a handoff went to failed/ for its size, naming the local recipients that hold a copy all the
 * same (they keep it).
 */
export function tooLargeReason(reason: string, localHolders: readonly string[]): string {
  return localHolders.length > 0
    ? `${reason}; the local recipients ${localHolders.join(', ')} received it`
    : reason;
}

/** Moves `outbox/<name>` of `sender` to failed/ with `<reason>` in its .error beside it. */
export function failHandoff(
  scope: DeliveryScope,
  sender: string,
  name: string,
  reason: string,
): Failed {
  const box = boxIn(scope, sender);
  // A mailbox made by hand or in the reference layout may lack failed/: create it, as
  // renameInto creates sent/ for a delivery.
  ensureFolder(box.failed);
  const failedPath = freeNameIn(box.failed, name);
  publishWhole(`${failedPath}.error`, `${reason}\n`);
  crashPoint('deliver:error-written');
  moveOriginal(join(box.outbox, name), failedPath);
  crashPoint('deliver:failed-synced');
  return { kind: 'failed', name, from: sender, reason, failedPath };
}

/**
 * Delivery step 3 for a group of copied handoffs (group commit): fsyncs every new/ folder
 * that received a copy, then moves each original to sent/, then fsyncs each sent/ and
 * outbox/ folder once. Every copy is durable before any original leaves its outbox, and
 * the group costs a few folder fsyncs instead of three per handoff.
 */
export function finishHandoffs(scope: DeliveryScope, group: Copied[]): Delivered[] {
  // A retry (deep) also fsyncs new/ of the recipients found holding a copy: an earlier try may have
  // linked it there unsynced.
  for (const dir of new Set(
    group.flatMap((c) =>
      c.deep ? [...c.newDirs, ...c.already.map((r) => boxIn(scope, r).inboxNew)] : c.newDirs,
    ),
  ))
    fsyncDir(dir);
  crashPoint('deliver:copies-done');
  const moved = group.map((c) => {
    const box = boxIn(scope, c.from);
    const sentPath = freeNameIn(box.sent, c.name);
    renameInto(c.path, sentPath);
    return { c, box, sentPath };
  });
  for (const dir of new Set(moved.map((m) => m.box.sent))) fsyncDir(dir);
  for (const dir of new Set(moved.map((m) => m.box.outbox))) fsyncDir(dir);
  crashPoint('deliver:sent-synced');
  return moved.map(({ c, box, sentPath }) => {
    if (c.deep) removeStaleError(box, c.name);
    return {
      kind: 'delivered',
      id: c.id,
      name: c.name,
      from: c.from,
      copied: c.copied,
      already: c.already,
      sentPath,
      ...(c.remote ? { remote: c.remote.roles } : {}),
    };
  });
}

/** Delivers `outbox/<name>` of `sender`'s mailbox on its own (copy, then finish). */
export async function deliverHandoff(
  scope: DeliveryScope,
  sender: string,
  name: string,
  deep: boolean,
  now = new Date(),
): Promise<Delivery> {
  const result = await copyHandoff(scope, sender, name, deep, now);
  return result.kind === 'failed' ? result : finishHandoffs(scope, [result])[0]!;
}

/**
 * A kill after writing failed/<name>.error, then a fix of its cause, leaves that .error behind:
 * removed once the file is sent.
 */
function removeStaleError(box: Mailbox, name: string): void {
  const error = join(box.failed, `${name}.error`);
  if (!fs.existsSync(error) || fs.existsSync(join(box.failed, name))) return;
  try {
    fs.unlinkSync(error);
  } catch (err) {
    if (!isCode(err, 'ENOENT')) throw err;
  }
}

/**
 * Takes the inbox locks of the recipients (in name order, so two takers never wait on
 * each other) for a delivery that may repeat an earlier one: while held, no claim or
 * completion can move an earlier copy between the search for it and the new link.
 */
export function lockInboxes(scope: DeliveryScope, recipients: string[]): Release[] {
  const releases: Release[] = [];
  try {
    for (const role of [...recipients].sort())
      releases.push(acquireLock(boxIn(scope, role).inboxLock));
  } catch (err) {
    for (const release of releases.reverse()) release();
    throw err;
  }
  return releases;
}
