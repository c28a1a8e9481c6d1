// A prototype of a cheaper lib/queue/names.ts itemNamesIn, kept in bench/ to measure the
// proposal without touching lib/. Same result as itemNamesIn (claimBreakdown checks it).
import * as fs from 'node:fs';
import { isItemName } from '../lib/queue/names.js';

/**
 * The proposed itemNamesIn (not in lib/): plain readdir (itemNamesIn builds Dirent objects
 * only to drop their types), and a plain string sort, which equals byte order unless a
 * name holds a character at or above U+D800; only then are byte keys built, once per name.
 */
export function itemNamesProposed(dir: string): string[] {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  const items = names.filter(isItemName);
  if (!items.some((n) => /[\uD800-\uFFFF]/.test(n))) return items.sort();
  return items
    .map((name) => ({ name, key: Buffer.from(name) }))
    .sort((a, b) => Buffer.compare(a.key, b.key))
    .map((e) => e.name);
}
