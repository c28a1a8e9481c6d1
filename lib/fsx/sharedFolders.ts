// Shared folders: how a project is shared with agents that run as another OS user, the owner
// fence's hard boundary (docs/runtime.md, "A hard boundary"; `baton share`).
//
// The rule, in one place: a folder with the set-group-ID bit and group read is shared with its
// group. What Baton creates in it is readable by that group (a file 0640: Baton replaces files
// by rename, so no file needs group write) and a new folder takes the parent's group bits and
// the set-group-ID bit (so the rule carries down), whatever the umask. In any other folder a
// file is 0600 and a folder 0700. Linux gives what is created in a set-group-ID folder the
// folder's group; `baton share` marks the folders agents may write (mode 2770) and read (2750).
import * as fs from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { crashPoint } from './crash.js';

/** The set-group-ID bit of a folder's mode. */
const SET_GROUP_ID = 0o2000;
/** The sticky bit: in a folder, only a file's owner may rename or remove it. */
const STICKY = 0o1000;

/** True when a folder of mode `mode` is shared with its group (set-group-ID and group read). */
export function isSharedFolderMode(mode: number): boolean {
  return (mode & SET_GROUP_ID) !== 0 && (mode & 0o040) !== 0;
}

/** The group bits (rwx) of `dir` when it is shared, else 0. */
function sharedGroupBitsOf(dir: string): number {
  const mode = fs.statSync(dir, { throwIfNoEntry: false })?.mode ?? 0;
  return isSharedFolderMode(mode) ? mode & 0o070 : 0;
}

/** The mode of a new file in `dir`: `base` (0600 unless said), group-readable when shared. */
export function fileModeIn(dir: string, base = 0o600): number {
  return sharedGroupBitsOf(dir) === 0 ? base : base | 0o040;
}

/** The mode of a new folder in `parent`: 0700, or shared with the parent's group bits. */
export function folderModeIn(parent: string): number {
  const group = sharedGroupBitsOf(parent);
  return group === 0 ? 0o700 : SET_GROUP_ID | 0o700 | group;
}

/**
 * The mode of a new folder in `parent` that the group writes into when `parent` is shared (a
 * run's artifacts/, where `baton run reply` copies an agent's reply): 3770, the sticky bit
 * keeping each file's owner the only one who may rename or remove it; 0700 when not shared.
 */
export function dropFolderModeIn(parent: string): number {
  return sharedGroupBitsOf(parent) === 0 ? 0o700 : SET_GROUP_ID | STICKY | 0o770;
}

/**
 * Gives a just-created file or folder `mode` when it has bits a umask may have taken (group bits,
 * set-group-ID, sticky); a private mode is left to the create call, which already made it.
 */
export function keepSharedMode(pathOrFd: string | number, mode: number): void {
  if ((mode & 0o3070) === 0) return;
  if (typeof pathOrFd === 'number') fs.fchmodSync(pathOrFd, mode);
  else fs.chmodSync(pathOrFd, mode);
}

/** A folder's mode bits a umask may take away: the group's, set-group-ID, sticky. */
const UMASKABLE = 0o3070;

/**
 * Creates the folder `path` with exactly `mode`, or throws EEXIST when something is there. A
 * shared mode (bits a umask may take) is given whole before the folder appears: made under a
 * hidden temp name (`.<name>.<pid>.new`), chmod'ed, then renamed into place, so that a crash
 * never leaves a folder the group cannot write at its name (a kill may leave the temp). A
 * private mode is exact from mkdir itself.
 */
export function makeFolder(path: string, mode: number): void {
  if ((mode & UMASKABLE) === 0) {
    fs.mkdirSync(path, { mode });
    return;
  }
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.new`);
  fs.mkdirSync(temp, { mode });
  fs.chmodSync(temp, mode);
  crashPoint('folder:shared-made');
  const taken = () => Object.assign(new Error(`EEXIST: '${path}'`), { code: 'EEXIST', path });
  // rename() would replace an empty folder made meanwhile: the check keeps the EEXIST answer.
  if (fs.existsSync(path)) {
    fs.rmdirSync(temp);
    throw taken();
  }
  try {
    fs.renameSync(temp, path);
  } catch (err) {
    fs.rmdirSync(temp);
    const code = (err as NodeJS.ErrnoException).code;
    throw code === 'ENOTEMPTY' || code === 'EEXIST' ? taken() : err;
  }
}
