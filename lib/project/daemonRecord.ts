// What handoffd leaves on disk, as everyone else reads it: whether it runs (the live holder
// of its lock, so a stale pid file or a reused pid never counts), the counts of its last
// passes (health.json, advisory) with the roles whose re-wakes it has spent (the mail of
// each waited through every re-wake), and its event log, one line per event:
// `<ISO time> <event> <key=value ...>`, values with spaces, quotes, `=` or non-printable
// characters JSON-quoted (those characters escaped) so every line splits unambiguously and
// a file name in it cannot drive the terminal of someone who tails the log. The daemon
// writes these files (lib/daemon/log.ts); the status, the monitor and the daemon's control
// read them through this module.
import * as fs from 'node:fs';
import { lockHolder } from '../fsx/lock.js';
import { printable } from '../fsx/printable.js';
import { daemonPathsOf } from './layout.js';
import { isoOf } from '../fsx/timestamps.js';

/** The events the daemon logs. */
export type DaemonEvent =
  | 'started'
  | 'delivered'
  | 'failed'
  | 'quarantined'
  | 'woke'
  | 'wake-failed'
  | 'error'
  | 'stopped'
  | 'received'
  | 'bridge-connected'
  | 'bridge-error'
  | 'bridge-refused'
  | 'bridge-stalled'
  | 'bridge-resent';

/**
 * Formats one log line (without the newline); a value with a non-printable character is JSON-quoted
 * with it escaped.
 */
export function formatLogLine(
  when: Date,
  event: DaemonEvent,
  details: Record<string, string | number>,
): string {
  const pairs = Object.entries(details).map(([k, v]) => {
    const text = String(v);
    const plain = /^[^\s"=]+$/.test(text) && printable(text) === text;
    return `${k}=${plain ? text : printable(JSON.stringify(text))}`;
  });
  return [isoOf(when), event, ...pairs].join(' ');
}

/** Parses a log line back into time, event and details; undefined for a line it cannot read. */
export function parseLogLine(
  line: string,
): { at: string; event: string; details: Record<string, string> } | undefined {
  const match = /^(\S+) (\S+)(.*)$/.exec(line);
  if (!match) return undefined;
  const details: Record<string, string> = {};
  const re = /\s([^=\s]+)=("(?:[^"\\]|\\.)*"|\S+)/g;
  for (let m = re.exec(match[3]!); m; m = re.exec(match[3]!)) {
    details[m[1]!] = m[2]!.startsWith('"') ? (JSON.parse(m[2]!) as string) : m[2]!;
  }
  return { at: match[1]!, event: match[2]!, details };
}

/**
 * The last lines of the daemon's log (at most `bytes` of it; a cut first line is dropped); empty
 * when there is none.
 */
export function daemonLogTail(root: string, bytes = 256 * 1024): string[] {
  try {
    const fd = fs.openSync(daemonPathsOf(root).log, 'r');
    try {
      const size = fs.fstatSync(fd).size;
      const start = Math.max(0, size - bytes);
      const buffer = Buffer.alloc(size - start);
      fs.readSync(fd, buffer, 0, buffer.length, start);
      return buffer
        .toString('utf8')
        .split('\n')
        .slice(start > 0 ? 1 : 0)
        .filter(Boolean);
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return [];
  }
}

/**
 * What every command says when it finds handoffd not running (swarm_handoff's one stderr line,
 * status, monitor).
 */
export const DAEMON_NOT_RUNNING = 'handoffd is not running: start it with baton daemon start';

/**
 * The daemon's pid when it runs, else undefined. A readdir of its lock and a /proc read: cheap
 * enough for every agent command.
 */
export function runningDaemon(root: string): number | undefined {
  return lockHolder(daemonPathsOf(root).lock);
}

/** What `baton daemon status` and the monitor show of the daemon. */
export interface DaemonStatus {
  running: boolean;
  pid: number | null;
  last_pass_at: string | null;
  passes: number;
  delivered: number;
  failed: number;
  errors: number;
}

/**
 * The roles whose mail waited through every re-wake, as health.json records them: role → when the
 * daemon found it (ISO time). Empty without the record. A daemon rewrites it at its first pass and
 * after every change; the mail may have been claimed since, which the reader checks.
 */
export function rewakesSpentOf(root: string): Map<string, string> {
  try {
    const health = JSON.parse(fs.readFileSync(daemonPathsOf(root).health, 'utf8')) as {
      rewakes_spent?: unknown;
    };
    const spent = health.rewakes_spent;
    if (typeof spent !== 'object' || spent === null || Array.isArray(spent)) return new Map();
    return new Map(
      Object.entries(spent).filter((e): e is [string, string] => typeof e[1] === 'string'),
    );
  } catch {
    return new Map();
  }
}

/** Reads the daemon's state (lock holder and health.json). */
export function daemonStatus(root: string): DaemonStatus {
  const pid = runningDaemon(root) ?? null;
  let health: Partial<DaemonStatus> = {};
  try {
    health = JSON.parse(
      fs.readFileSync(daemonPathsOf(root).health, 'utf8'),
    ) as Partial<DaemonStatus>;
  } catch {
    // never ran
  }
  return {
    running: pid !== null,
    pid,
    last_pass_at: health.last_pass_at ?? null,
    passes: health.passes ?? 0,
    delivered: health.delivered ?? 0,
    failed: health.failed ?? 0,
    errors: health.errors ?? 0,
  };
}
