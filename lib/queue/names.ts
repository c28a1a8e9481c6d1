// Sortable names and timestamps. Queue order is the byte order of file names, so every
// name starts with the fields that decide order: priority, then the UTC second, then the
// sender's sequence number. Names never carry authority: readers take metadata from
// headers only.
import { ignoreEnoent } from '../fsx/absent.js';
import { isoOf } from '../fsx/timestamps.js';
import { readdirSync, type Dirent } from 'node:fs';

/** Longest file name Baton creates; leaves room for `.tmp`, `.error` and `.N` within 255 bytes. */
export const MAX_NAME_BYTES = 200;

/** `YYYYMMDDTHHMMSSZ` for the given instant (UTC). */
export function tsidOf(when: Date): string {
  return isoOf(when)
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
}

/** A sequence number padded to 6 digits (longer numbers keep all their digits). */
export function formatSeq(seq: number): string {
  return String(seq).padStart(6, '0');
}

/** The handoff id: `<tsid>_<seq>_from_<sender>`. */
export function handoffId(tsid: string, seq: number, sender: string): string {
  return `${tsid}_${formatSeq(seq)}_from_${sender}`;
}

/**
 * The file name of a handoff: `<priority>_<id>_to_<r1>[_<r2>...].handoff`, with the
 * recipient list shortened to `_to_<r1>_and_<n>_more` when the name would pass 200 bytes.
 */
export function handoffFileName(priority: string, id: string, recipients: string[]): string {
  const full = `${priority}_${id}_to_${recipients.join('_')}.handoff`;
  if (Buffer.byteLength(full) <= MAX_NAME_BYTES || recipients.length < 2) return full;
  return `${priority}_${id}_to_${recipients[0]}_and_${recipients.length - 1}_more.handoff`;
}

/** True when `name` is the file name Baton gives the handoff `id` (handoffFileName). */
export function nameHoldsId(name: string, id: string): boolean {
  return name.includes(`_${id}_to_`);
}

/** True for names that are queue items: `*.handoff`, not a dot-file. */
export function isItemName(name: string): boolean {
  return name.endsWith('.handoff') && !name.startsWith('.');
}

/** True for names that are batch directories (`batch_*`). */
export function isBatchName(name: string): boolean {
  return name.startsWith('batch_');
}

/** Directory entries of `dir` (empty when it does not exist), with their types, unsorted. */
export function entriesOf(dir: string): Dirent[] {
  return ignoreEnoent<Dirent[]>(() => readdirSync(dir, { withFileTypes: true }), []);
}

/** Names of the `*.handoff` entries of `dir` in queue order (any file type: callers check). */
export function itemNamesIn(dir: string): string[] {
  return sortByBytes(ignoreEnoent<string[]>(() => readdirSync(dir), []).filter(isItemName));
}

/**
 * Sorts names in byte order. JavaScript's default order (UTF-16 code units) equals UTF-8
 * byte order unless a name holds a character at or above U+D800, so byte keys are built
 * only then, once per name.
 */
export function sortByBytes(names: string[]): string[] {
  if (!names.some((n) => /[\uD800-\uFFFF]/.test(n))) return names.sort();
  return names
    .map((name) => ({ name, key: Buffer.from(name) }))
    .sort((a, b) => Buffer.compare(a.key, b.key))
    .map((x) => x.name);
}
