// Invariant checks over one mailbox, for `baton doctor`. Reads only; never repairs.
// Checks: at most one item in process; no symlinks or non-regular files among items;
// every item readable with an id; no temp file older than 36 h (tempFiles.ts says which
// files are temp files); no id in two places of
// the inbox (new/, in_process/, completed/) or of the outbox side (outbox/, sent/, failed/);
// no interrupted batch claim; folders 0700 and files 0600.
import * as fs from 'node:fs';
import { join } from 'node:path';
import { readItem, UnusableItem } from './item.js';
import { type Mailbox } from './mailbox.js';
import { entriesOf, isBatchName, isItemName } from './names.js';
import { isStaleTemp, isTempEntry } from './tempFiles.js';

/** What kind of problem a mailbox finding is (the caller names a remedy per kind). */
export type MailboxProblem =
  | 'folder-mode' | 'file-mode' | 'symlink' | 'not-regular' | 'unusable-item' | 'duplicate-id'
  | 'interrupted-claim' | 'stale-temp' | 'several-in-process';

/** A problem found at a path. `staleTemp` problems are the ones `--fix` may delete. */
export interface Finding {
  path: string;
  problem: string;
  kind: MailboxProblem;
  staleTemp?: boolean;
}

/** Checks one mailbox at instant `now` (ms). */
export async function inspectMailbox(box: Mailbox, now = Date.now()): Promise<Finding[]> {
  const findings: Finding[] = [];
  const inboxIds = new Map<string, string>();
  const outboxIds = new Map<string, string>();
  const folders: [string, Map<string, string> | undefined][] = [
    [box.outboxTmp, undefined], [box.outbox, outboxIds], [box.sent, outboxIds], [box.failed, outboxIds],
    [box.inboxNew, inboxIds], [box.inProcess, inboxIds], [box.completed, inboxIds], [box.locks, undefined],
    [join(box.locks, 'inbox'), undefined], [join(box.locks, 'outbox'), undefined],
  ];
  const checkFolder = async (dir: string, ids: Map<string, string> | undefined, depth: number) => {
    let mode: number;
    try {
      mode = fs.lstatSync(dir).mode;
    } catch {
      return;
    }
    if ((mode & 0o077) !== 0) findings.push({ path: dir, kind: 'folder-mode', problem: `folder mode ${(mode & 0o777).toString(8)}, expected 700` });
    for (const entry of entriesOf(dir)) {
      const path = join(dir, entry.name);
      if (entry.isSymbolicLink()) {
        findings.push({ path, kind: 'symlink', problem: 'symlink in a mailbox folder (never followed)' });
        continue;
      }
      if (entry.name.startsWith('.claiming-') && entry.isDirectory()) {
        findings.push({ path, kind: 'interrupted-claim', problem: 'interrupted batch claim (the next ready_for_next rolls it back)' });
        continue;
      }
      if (isTempEntry(box, dir, entry.name)) {
        if (isStaleTemp(fs.lstatSync(path).mtimeMs, now)) findings.push({ path, kind: 'stale-temp', problem: `temp file older than 36 h`, staleTemp: true });
        continue;
      }
      if (depth === 0 && isBatchName(entry.name) && entry.isDirectory() && ids) {
        await checkFolder(path, ids, 1);
        continue;
      }
      if (!isItemName(entry.name)) continue;
      if (!entry.isFile()) {
        findings.push({ path, kind: 'not-regular', problem: 'not a regular file' });
        continue;
      }
      if ((fs.lstatSync(path).mode & 0o077) !== 0) findings.push({ path, kind: 'file-mode', problem: 'file readable by others, expected mode 600' });
      if (!ids) continue;
      try {
        const item = await readItem(path);
        const other = ids.get(item.id);
        if (other) findings.push({ path, kind: 'duplicate-id', problem: `id ${item.id} also at ${other}` });
        else ids.set(item.id, path);
      } catch (err) {
        if (!(err instanceof UnusableItem)) throw err;
        findings.push({ path, kind: 'unusable-item', problem: `unusable item: ${err.reason}` });
      }
    }
  };
  for (const [dir, ids] of folders) await checkFolder(dir, ids, 0);
  const inProcess = entriesOf(box.inProcess).filter((e) => (isItemName(e.name) && !e.isDirectory()) || (isBatchName(e.name) && e.isDirectory()));
  if (inProcess.length > 1) {
    findings.push({ path: box.inProcess, kind: 'several-in-process', problem: `${inProcess.length} items in process (at most one allowed): ${inProcess.map((e) => e.name).sort().join(', ')}` });
  }
  return findings;
}
