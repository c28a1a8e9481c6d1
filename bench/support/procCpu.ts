// CPU time of a process from /proc/<pid>/stat: utime + stime (all its threads), in clock
// ticks; and the tick rate, from `getconf CLK_TCK` (100 assumed if that fails).
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import { isCode } from '../../lib/fsx/absent.js';
import { processStatOf } from '../../lib/fsx/processIdentity.js';

/** Clock ticks per second and where the figure came from. */
export function clockTicks(): { hz: number; source: string } {
  try {
    const hz = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
    if (Number.isInteger(hz) && hz > 0) return { hz, source: 'getconf CLK_TCK' };
  } catch {
    // fall through to the usual Linux value
  }
  return { hz: 100, source: 'assumed (getconf CLK_TCK failed)' };
}

/** utime + stime of `pid` in clock ticks. */
export function cpuTicksOf(pid: number): number {
  const fields = processStatOf(pid);
  if (fields === undefined) throw new Error(`process ${pid} is gone`);
  // fields[0] is field 3 (state); utime and stime are fields 14 and 15
  return Number(fields[11]) + Number(fields[12]);
}

/**
 * CPU time of `pid` in nanoseconds, summed over its live threads from /proc/<pid>/task/<tid>/
 * schedstat (the scheduler's own running time, exact, where ticks only sample which process
 * runs at each 10 ms tick); undefined where the kernel does not keep it.
 */
export function cpuNsOf(pid: number): number | undefined {
  let tids: string[];
  try {
    tids = fs.readdirSync(`/proc/${pid}/task`);
  } catch {
    return undefined;
  }
  let ns = 0;
  for (const tid of tids) {
    let stat: string;
    try {
      stat = fs.readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8');
    } catch (err) {
      if (isCode(err, 'ENOENT')) continue; // the thread ended
      return undefined;
    }
    ns += Number(stat.split(' ')[0]);
  }
  return Number.isFinite(ns) ? ns : undefined;
}
