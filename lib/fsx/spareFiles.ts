// Empty files that a long-running process (handoffd, `baton run drive`, a teacher) makes
// ahead, in a folder of its own, for the temp files of its durable writes. Creating a file
// allocates an inode, and on ext4 that can wait for the journal: 0.1-0.5 ms after an fsync
// on the development VM, several ms while other processes fsync, where a rename or an open
// of an existing file takes a few µs. The writes are on paths someone waits on (a copy a recipient
// waits for, the controller's next request); the spares are made when the process is about
// to wait.
//
// How: the process installs its pool (useSpareFiles); writeFileSynced, asked for a file of
// the default mode 0600, puts a spare at that name and opens it, which allocates nothing: a
// rename for a temp that may replace a leftover, a link (refused when the name exists) and
// the spare's unlink for an exclusive one. A spare is made 0600, so the file is exactly what a
// create would give; any other mode, another file system or no spare left: the file is
// created as before.
//
// Crash contract: a spare is an empty file in its process's own folder, which the process
// empties when it starts (a killed one's spares go then); one renamed to a temp name and
// killed before the write is a leftover temp like any other.
import * as fs from 'node:fs';
import { join } from 'node:path';
import { isCode } from './absent.js';

const { O_CREAT, O_EXCL, O_WRONLY, O_NOFOLLOW } = fs.constants;

/** Spare files, at most `size` ready at once, in `dir`. */
export class SpareFiles {
  private readonly ready: string[] = [];
  private made = 0;

  constructor(
    private readonly dir: string,
    private readonly size = 4,
  ) {}

  /**
   * Puts a spare at `path`, so that the write opens an existing file; false when none can be.
   * `exclusive`: nothing may be at `path` (a link, refused when something is); otherwise what is
   * there is replaced, as a truncating open would empty it (a rename).
   */
  placeAt(path: string, exclusive = false): boolean {
    const spare = this.ready.pop();
    if (spare === undefined) return false;
    try {
      if (exclusive) {
        fs.linkSync(spare, path);
        fs.unlinkSync(spare);
      } else fs.renameSync(spare, path);
      return true;
    } catch (err) {
      // The name taken, another file system, a folder not there: the spare waits for another
      // write (unless it is gone: its folder was emptied).
      if (!isCode(err, 'ENOENT') || fs.existsSync(spare)) this.ready.push(spare);
      return false;
    }
  }

  /** Makes spares until `size` are ready; best effort (a full disk leaves fewer). */
  refill(): void {
    while (this.ready.length < this.size) {
      const path = join(this.dir, `spare.${++this.made}`);
      try {
        fs.closeSync(fs.openSync(path, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW, 0o600));
      } catch {
        return;
      }
      this.ready.push(path);
    }
  }

  /** How many are ready. */
  get count(): number {
    return this.ready.length;
  }
}

let installed: SpareFiles | undefined;

/** Makes this process's temp writes take their files from `spares` (undefined: none). */
export function useSpareFiles(spares: SpareFiles | undefined): void {
  installed = spares;
}

/**
 * Gives this process up to `size` spares in `dir`, a folder of its own in one that exists
 * (emptied first: a killed process's spares go then; private, and not fsync'd: nothing in it
 * is worth keeping), made by each refillSpareFiles; returns the stop, which removes them.
 */
export function startSpareFiles(dir: string, size: number): () => void {
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { mode: 0o700 });
  useSpareFiles(new SpareFiles(dir, size));
  return () => {
    useSpareFiles(undefined);
    fs.rmSync(dir, { recursive: true, force: true });
  };
}

/** Puts one of this process's spares at `path` when it has one (SpareFiles.placeAt). */
export function placeSpareAt(path: string, exclusive: boolean): boolean {
  return installed?.placeAt(path, exclusive) ?? false;
}

/** Makes this process's spares ready again (it is about to wait). */
export function refillSpareFiles(): void {
  installed?.refill();
}
