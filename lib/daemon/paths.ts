// Where handoffd keeps its files: ROOT/.swarmforge/daemon/.
import { join } from 'node:path';

/** The daemon's files of one project. */
export interface DaemonPaths {
  dir: string;
  pid: string;
  log: string;
  stop: string;
  /** Temp files of copies being delivered (removed at start-up). */
  tmp: string;
  /** The single-instance lock. */
  lock: string;
  /** Health written after every pass (for the monitor; not durable state). */
  health: string;
}

/** The daemon paths under ROOT. */
export function daemonPathsOf(root: string): DaemonPaths {
  const dir = join(root, '.swarmforge', 'daemon');
  return {
    dir,
    pid: join(dir, 'handoffd.pid'),
    log: join(dir, 'handoffd.log'),
    stop: join(dir, 'stop'),
    tmp: join(dir, 'tmp'),
    lock: join(dir, 'lock'),
    health: join(dir, 'health.json'),
  };
}
