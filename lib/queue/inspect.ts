// Invariant checks over one mailbox, for `baton doctor`. Reads only; never repairs.
// Checks: at most one item in process; no symlinks or non-regular files among items;
// every item readable with an id; no temp file older than 36 h (tempFiles.ts says which
// files are temp files); no id in two places of
// the inbox (new/, in_process/, completed/) or of the outbox side (outbox/, sent/, failed/);
// no interrupted batch claim; folders 0700 and files 0600.
import * as fs from 'node:fs';
import { join } from 'node:path';
import { isSharedFolderMode } from '../fsx/sharedFolders.js';
import { readItem, UnusableItem } from './item.js';
import { type Mailbox } from './mailbox.js';
import { entriesOf, isBatchName, isItemName } from './names.js';
import { isStaleTemp, isTempEntry } from './tempFiles.js';

/** What kind of problem a mailbox finding is (the caller names a remedy per kind). */
export type MailboxProblem =
  | 'folder-mode'
  | 'file-mode'
  | 'symlink'
  | 'not-regular'
  | 'unusable-item'
  | 'duplicate-id'
  | 'interrupted-claim'
  | 'stale-temp'
  | 'several-in-process';

/** A problem found at a path. `staleTemp` problems are the ones `--fix` may delete. */
export interface Finding {
  path: string;
  problem: string;
  kind: MailboxProblem;
  staleTemp?: boolean;
  /** A mode problem's right mode, in octal (a shared mailbox keeps its group's access). */
  expectedMode?: string;
}

/** One inspection under way: the mailbox, its instant, what it found, the ids seen per side. */
interface Inspection {
  box: Mailbox;
  now: number;
  findings: Finding[];
}

/** The folders of a mailbox to check, each with the id map of its side (inbox, outbox) or none. */
function foldersOf(box: Mailbox): [string, Map<string, string> | undefined][] {
  const inboxIds = new Map<string, string>();
  const outboxIds = new Map<string, string>();
  return [
    [box.outboxTmp, undefined],
    [box.outbox, outboxIds],
    [box.sent, outboxIds],
    [box.failed, outboxIds],
    [box.inboxNew, inboxIds],
    [box.inProcess, inboxIds],
    [box.completed, inboxIds],
    [box.locks, undefined],
    [join(box.locks, 'inbox'), undefined],
    [join(box.locks, 'outbox'), undefined],
  ];
}

/** Checks one mailbox at instant `now` (ms). */
export async function inspectMailbox(box: Mailbox, now = Date.now()): Promise<Finding[]> {
  const run: Inspection = { box, now, findings: [] };
  for (const [dir, ids] of foldersOf(box)) await checkFolder(run, dir, ids, 0);
  const inProcess = entriesOf(box.inProcess).filter(
    (e) => (isItemName(e.name) && !e.isDirectory()) || (isBatchName(e.name) && e.isDirectory()),
  );
  if (inProcess.length > 1) {
    const names = inProcess.map((e) => e.name).sort();
    run.findings.push({
      path: box.inProcess,
      kind: 'several-in-process',
      problem: `${inProcess.length} items in process (at most one allowed): ${names.join(', ')}`,
    });
  }
  return run.findings;
}

/** Checks a folder's mode and each of its entries (a batch folder's items once, at depth 1). */
async function checkFolder(
  run: Inspection,
  dir: string,
  ids: Map<string, string> | undefined,
  depth: number,
): Promise<void> {
  const mode = fs.lstatSync(dir, { throwIfNoEntry: false })?.mode;
  if (mode === undefined) return;
  // A folder shared with a group (sharedFolders.ts) may give that group access, never others.
  const shared = isSharedFolderMode(mode);
  if ((mode & (shared ? 0o007 : 0o077)) !== 0) {
    const expectedMode = (shared ? mode & 0o2770 : 0o700).toString(8);
    const problem = `folder mode ${(mode & 0o7777).toString(8)}, expected ${expectedMode}`;
    run.findings.push({ path: dir, kind: 'folder-mode', problem, expectedMode });
  }
  for (const entry of entriesOf(dir)) {
    const path = join(dir, entry.name);
    if (otherEntryFinding(run, dir, entry, path)) continue;
    if (depth === 0 && isBatchName(entry.name) && entry.isDirectory() && ids) {
      await checkFolder(run, path, ids, 1);
      continue;
    }
    if (isItemName(entry.name)) await checkItem(run, path, entry, ids, shared);
  }
}

/**
 * True when the entry is a symlink, an interrupted claim or a temp file (recorded when a problem);
 * such an entry is not an item.
 */
function otherEntryFinding(run: Inspection, dir: string, entry: fs.Dirent, path: string): boolean {
  if (entry.isSymbolicLink()) {
    run.findings.push({
      path,
      kind: 'symlink',
      problem: 'symlink in a mailbox folder (never followed)',
    });
    return true;
  }
  if (entry.name.startsWith('.claiming-') && entry.isDirectory()) {
    const problem = 'interrupted batch claim (the next ready_for_next rolls it back)';
    run.findings.push({ path, kind: 'interrupted-claim', problem });
    return true;
  }
  if (!isTempEntry(run.box, dir, entry.name)) return false;
  if (isStaleTemp(fs.lstatSync(path).mtimeMs, run.now)) {
    run.findings.push({
      path,
      kind: 'stale-temp',
      problem: `temp file older than 36 h`,
      staleTemp: true,
    });
  }
  return true;
}

/** Checks one item: a regular file of mode 600, readable, its id not seen before on its side. */
async function checkItem(
  run: Inspection,
  path: string,
  entry: fs.Dirent,
  ids: Map<string, string> | undefined,
  shared: boolean,
): Promise<void> {
  if (!entry.isFile()) {
    run.findings.push({ path, kind: 'not-regular', problem: 'not a regular file' });
    return;
  }
  // In a shared folder an item is group-readable (0640).
  if ((fs.lstatSync(path).mode & (shared ? 0o037 : 0o077)) !== 0) {
    const expectedMode = shared ? '640' : '600';
    const problem = shared
      ? 'file open to others or writable by its group, expected mode 640'
      : 'file readable by others, expected mode 600';
    run.findings.push({ path, kind: 'file-mode', problem, expectedMode });
  }
  if (!ids) return;
  try {
    const item = await readItem(path);
    const other = ids.get(item.id);
    if (other)
      run.findings.push({ path, kind: 'duplicate-id', problem: `id ${item.id} also at ${other}` });
    else ids.set(item.id, path);
  } catch (err) {
    if (!(err instanceof UnusableItem)) throw err;
    run.findings.push({ path, kind: 'unusable-item', problem: `unusable item: ${err.reason}` });
  }
}
