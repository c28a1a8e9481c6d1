// File-system notifications for handoffd: a watcher per folder calls back on any change
// (or only on changes to one entry name). Notifications can be lost under load; the
// periodic pass is the fallback, so a folder that cannot be watched is simply not watched.

/** One watcher per folder, all calling `onChange`. */
import * as fs from 'node:fs';

export class FolderWatchers {
  private readonly watchers = new Map<string, fs.FSWatcher>();

  constructor(private readonly onChange: () => void) {}

  /**
   * Watches `dir` (once; later calls for the same folder do nothing), reporting only entries named
   * `only` when given.
   */
  watch(dir: string, only?: string): void {
    if (this.watchers.has(dir)) return;
    try {
      const watcher = fs.watch(dir, (_event, name) => {
        if (!only || name === only) this.onChange();
      });
      watcher.on('error', () => {
        watcher.close();
        this.watchers.delete(dir);
      });
      this.watchers.set(dir, watcher);
    } catch {
      // the periodic pass covers a folder that cannot be watched
    }
  }

  /** The folders watched now. */
  folders(): string[] {
    return [...this.watchers.keys()];
  }

  /** Closes every watcher. */
  close(): void {
    for (const watcher of this.watchers.values()) watcher.close();
    this.watchers.clear();
  }
}
