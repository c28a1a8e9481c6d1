// Cheap re-listing of folders the daemon looks at on every pass. A folder's listing is
// reused while its mtime is unchanged, but only once that mtime is more than 2 s older
// than the listing: a file added in the same timestamp tick as an earlier listing would
// otherwise go unseen. Any change to a folder's entries changes its mtime.
//
// An idle pass over many roles would still stat every outbox and inbox it looks at (about
// a third of an idle daemon's CPU, issue 22). The `watched` listings skip even that: the
// folder is watched (inotify) before it is listed, and while no event came since the
// listing, the listing stands without a stat, until an audit every AUDIT_MS re-checks it
// the stat way (a notification lost under load, a folder replaced under its watch). Only
// callers that a late notification cannot mislead use them: the outbox scan (a change
// also starts another pass) and the inbox views for wake-ups. The id search of a delivery
// keeps the stat rule: it must see what a move a moment ago did, whose event may not have
// been read yet. A watched listing may also name a callback for the folder's changes
// (handoffd's next pass): the watch counts an event before it calls back, so a listing made
// in that pass sees the change, while folders whose watch reported nothing are not touched.
import * as fs from 'node:fs';
import { basename } from 'node:path';
import { itemNamesIn } from '../queue/index.js';

const TRUST_AFTER_MS = 2000;
/** How long a watched listing stands without a stat. */
export const AUDIT_MS = 30_000;

interface Listing {
  mtimeMs: number;
  listedAt: number;
  /** When a stat last confirmed it. */
  checkedAt: number;
  /** The folder watch's event count when it was made (watched listings only). */
  events: number;
  names: string[];
}

interface FolderWatch {
  watcher: fs.FSWatcher;
  ino: number;
  events: number;
}

/** Item names per folder, re-read only when the folder may have changed. */
export class ListingCache {
  private readonly listings = new Map<string, Listing>();
  private readonly watches = new Map<string, FolderWatch>();
  /** Called on each change a folder's watch reports, after it is counted. */
  private readonly onChanges = new Map<string, () => void>();

  /** The `*.handoff` names in `dir` (queue order); empty when it does not exist. */
  itemNames(dir: string, now = Date.now()): string[] {
    return this.cached(dir, 'items', now, () => itemNamesIn(dir), false);
  }

  /** Every entry name of `dir` but dot-files (batch directories too), with the same reuse rule. */
  entryNames(dir: string, now = Date.now()): string[] {
    return this.cached(dir, 'all', now, () => entriesBut(dir), false);
  }

  /**
   * itemNames, trusting the folder's watch between audits (see the header for who may); from now
   * on, `onChange` (when given) is called on each change the watch reports.
   */
  watchedItemNames(dir: string, now = Date.now(), onChange?: () => void): string[] {
    if (onChange) this.onChanges.set(dir, onChange);
    return this.cached(dir, 'items', now, () => itemNamesIn(dir), true);
  }

  /** entryNames, trusting the folder's watch between audits (see the header for who may). */
  watchedEntryNames(dir: string, now = Date.now()): string[] {
    return this.cached(dir, 'all', now, () => entriesBut(dir), true);
  }

  /**
   * Drops the listings of `dir`: the daemon changed it itself a moment ago (moved an original out
   * of an outbox), and its watch may not have reported that yet.
   */
  forget(dir: string): void {
    this.listings.delete(`${dir}\0items`);
    this.listings.delete(`${dir}\0all`);
  }

  /** Ends every folder watch (the daemon's exit). */
  close(): void {
    for (const watch of this.watches.values()) watch.watcher.close();
    this.watches.clear();
    this.onChanges.clear();
  }

  private cached(
    dir: string,
    kind: string,
    now: number,
    list: () => string[],
    watched: boolean,
  ): string[] {
    const key = `${dir}\0${kind}`;
    const previous = this.listings.get(key);
    let watch = this.watches.get(dir);
    if (
      watched &&
      watch &&
      previous &&
      previous.events === watch.events &&
      now - previous.checkedAt < AUDIT_MS
    )
      return previous.names;
    // The watch comes before the stat and the listing, so no change after them goes unseen.
    // A new watch (the first, or after the folder went) lists anew: the folder may be another.
    let replaced = false;
    if (watched && !watch) {
      watch = this.watch(dir);
      replaced = watch !== undefined;
    }
    let events = watch?.events ?? 0;
    const stat = fs.statSync(dir, { throwIfNoEntry: false });
    if (!stat) {
      this.listings.delete(key);
      this.unwatch(dir);
      return [];
    }
    if (watch && watch.ino !== stat.ino) {
      // The folder was replaced: its watch sees the old one. Watch the new one, list it anew.
      this.unwatch(dir);
      events = this.watch(dir)?.events ?? 0;
      replaced = true;
    }
    if (
      !replaced &&
      previous &&
      previous.mtimeMs === stat.mtimeMs &&
      previous.listedAt - stat.mtimeMs > TRUST_AFTER_MS
    ) {
      previous.checkedAt = now;
      previous.events = events;
      return previous.names;
    }
    const names = list();
    this.listings.set(key, { mtimeMs: stat.mtimeMs, listedAt: now, checkedAt: now, events, names });
    return names;
  }

  /** Starts watching `dir`; undefined when it cannot be watched (the stat rule applies then). */
  private watch(dir: string): FolderWatch | undefined {
    let watcher: fs.FSWatcher | undefined;
    try {
      watcher = fs.watch(dir, { persistent: false });
      const watch: FolderWatch = { watcher, ino: fs.statSync(dir).ino, events: 0 };
      // An event named as the folder itself: the folder went (its watch sees nothing more,
      // and a new folder may even get the same inode number). The next listing watches anew.
      const self = basename(dir);
      watcher.on('change', (_event, name) => {
        watch.events += 1;
        if (name === self) this.unwatch(dir, watch);
        this.onChanges.get(dir)?.();
      });
      watcher.on('error', () => this.unwatch(dir, watch));
      this.watches.set(dir, watch);
      return watch;
    } catch {
      watcher?.close();
      return undefined;
    }
  }

  /** Ends the watch of `dir` (only `which`, when given: an old watch's late event spares a new). */
  private unwatch(dir: string, which?: FolderWatch): void {
    const watch = this.watches.get(dir);
    if (!watch || (which && watch !== which)) return;
    watch.watcher.close();
    this.watches.delete(dir);
  }
}

function entriesBut(dir: string): string[] {
  return fs.readdirSync(dir).filter((n) => !n.startsWith('.'));
}
