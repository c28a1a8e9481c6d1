// Quarantine: an entry of inbox/new/ that can never be handed out (a symlink, not a
// regular file, no readable header with an id) is moved at its first sight into
// inbox/bad/, with `<name>.error` beside it holding the reason on one line. It is then
// reported once instead of on every claim, and no longer counts as mail waiting.
//
// Concurrency contract: run under the mailbox's inbox lock (ready_for_next and
// done_with_current hold it for the whole call; handoffd's wake view takes it to
// quarantine); only holders of that lock write bad/, and the daemon only ever adds to new/,
// so an entry found unusable under the lock stays so until it is moved.
//
// Crash contract: the .error goes first: written to `<name>.error.tmp` and fsync'd, renamed
// to `<name>.error`, bad/ fsync'd. Only then does the entry move from new/ to bad/ with one
// rename, after which bad/ and new/ are fsync'd. A kill before the move leaves the entry in
// new/ (and maybe its .error or .error.tmp in bad/): the next reader quarantines it again
// under the same name, since that name is still free in bad/, and replaces both. A kill
// after the move leaves it in bad/ with its .error already durable. Either way the entry is
// in exactly one place, and never in bad/ without its reason.
//
// A name that is not valid UTF-8 is listed by Node with U+FFFD in place of the bad bytes: a
// name that opens nothing. Such an entry is found again by its raw bytes and moved into
// bad/ under that decoded (valid) name.
import * as fs from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { crashPoint } from '../fsx/crash.js';
import { freeNameIn } from './deliver.js';
import { fsyncDir, renameSynced, writeFileSynced } from '../fsx/durable.js';
import { QuarantinedItem, UnusableItem } from './item.js';
import { ensureFolder, type Mailbox } from './mailbox.js';
import { isItemName } from './names.js';
import { printable } from '../fsx/printable.js';

/** The reason given for an entry whose name is not valid UTF-8. */
export const UNDECODABLE_NAME = 'name is not valid UTF-8';

/**
 * The raw names of the item entries (`*.handoff`) of `dir` that are not valid UTF-8, each listed by
 * Node under a name that opens nothing.
 */
export function undecodableNamesIn(dir: string): Buffer[] {
  return fs.readdirSync(dir, { encoding: 'buffer' }).filter((raw) => {
    const name = raw.toString('utf8');
    return isItemName(name) && !Buffer.from(name).equals(raw);
  });
}

/**
 * Quarantines the entry of new/ whose raw name is `raw` (not valid UTF-8) under its decoded name.
 */
export function quarantineUndecodable(box: Mailbox, raw: Buffer): QuarantinedItem {
  const problem = new UnusableItem(join(box.inboxNew, raw.toString('utf8')), UNDECODABLE_NAME);
  return quarantineItem(box, problem, Buffer.concat([Buffer.from(`${box.inboxNew}/`), raw]));
}

/**
 * Moves the unusable entry of new/ that `problem` names (found at `source`, its raw path
 * when its name is not valid UTF-8) into bad/, its reason durable in `<bad name>.error` first.
 */
export function quarantineItem(
  box: Mailbox,
  problem: UnusableItem,
  source: string | Buffer = problem.path,
): QuarantinedItem {
  if (dirname(problem.path) !== box.inboxNew)
    throw new Error(`only entries of ${box.inboxNew} are quarantined, not ${problem.path}`);
  ensureFolder(box.inbox);
  ensureFolder(box.bad);
  const badPath = freeNameIn(box.bad, basename(problem.path));
  const error = `${badPath}.error`;
  writeFileSynced(`${error}.tmp`, `${printable(problem.reason)}\n`, false);
  crashPoint('quarantine:error-temp-synced');
  renameSynced(`${error}.tmp`, error);
  crashPoint('quarantine:error-synced');
  fs.renameSync(source, badPath);
  crashPoint('quarantine:moved');
  fsyncDir(box.bad);
  fsyncDir(dirname(problem.path));
  return new QuarantinedItem(problem.path, problem.reason, badPath);
}
