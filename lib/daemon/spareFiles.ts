// Empty files that handoffd makes ahead, in its own temp folder, to write its copies into.
// Creating a file allocates an inode, and on ext4 that can wait for the journal: 0.1-0.5 ms
// after an fsync on the development VM, several ms when other processes fsync too, where a
// rename or an open of an existing file takes a few µs. A delivery's copy is on the path a
// recipient waits on; the spares are made when the daemon is about to sleep.
//
// Crash contract: a spare is an empty file in the daemon's temp folder, which every start
// removes whole (handoffd.ts); one renamed to a copy's temp name and killed before the write
// is a leftover temp like any other.
import * as fs from 'node:fs';
import { join } from 'node:path';

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
   * Puts a spare at `path` (a rename within the folder: `path` is there too), so that the write
   * opens an existing file; false when none is ready, and the write creates the file.
   */
  placeAt(path: string): boolean {
    const spare = this.ready.pop();
    if (spare === undefined) return false;
    try {
      fs.renameSync(spare, path);
      return true;
    } catch {
      return false; // gone (the folder was emptied): the write creates the file
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
