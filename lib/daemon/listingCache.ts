// Cheap re-listing of folders the daemon looks at on every pass. A folder's listing is
// reused while its mtime is unchanged, but only once that mtime is more than 2 s older
// than the listing: a file added in the same timestamp tick as an earlier listing would
// otherwise go unseen. Any change to a folder's entries changes its mtime.
import * as fs from 'node:fs';
import { itemNamesIn } from '../queue/index.js';

const TRUST_AFTER_MS = 2000;

/** Item names per folder, re-read only when the folder may have changed. */
export class ListingCache {
  private readonly listings = new Map<
    string,
    { mtimeMs: number; listedAt: number; names: string[] }
  >();

  /** The `*.handoff` names in `dir` (queue order); empty when it does not exist. */
  itemNames(dir: string, now = Date.now()): string[] {
    return this.cached(dir, 'items', now, () => itemNamesIn(dir));
  }

  /** Every entry name of `dir` but dot-files (batch directories too), with the same reuse rule. */
  entryNames(dir: string, now = Date.now()): string[] {
    return this.cached(dir, 'all', now, () =>
      fs.readdirSync(dir).filter((n) => !n.startsWith('.')),
    );
  }

  private cached(dir: string, kind: string, now: number, list: () => string[]): string[] {
    const key = `${dir}\0${kind}`;
    const stat = fs.statSync(dir, { throwIfNoEntry: false });
    if (!stat) {
      this.listings.delete(key);
      return [];
    }
    const previous = this.listings.get(key);
    if (
      previous &&
      previous.mtimeMs === stat.mtimeMs &&
      previous.listedAt - stat.mtimeMs > TRUST_AFTER_MS
    )
      return previous.names;
    const names = list();
    this.listings.set(key, { mtimeMs: stat.mtimeMs, listedAt: now, names });
    return names;
  }
}
