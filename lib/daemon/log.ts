// handoffd's event log: one appended line per event, `<ISO time> <event> <key=value ...>`.
// Values with spaces, quotes or `=` are JSON-quoted so every line splits unambiguously.
import * as fs from 'node:fs';

/** The events the daemon logs. */
export type DaemonEvent = 'started' | 'delivered' | 'failed' | 'woke' | 'wake-failed' | 'error' | 'stopped';

/** Formats one log line (without the newline). */
export function formatLogLine(when: Date, event: DaemonEvent, details: Record<string, string | number>): string {
  const pairs = Object.entries(details).map(([k, v]) => {
    const text = String(v);
    return `${k}=${/^[^\s"=]+$/.test(text) ? text : JSON.stringify(text)}`;
  });
  return [when.toISOString(), event, ...pairs].join(' ');
}

/** Parses a log line back into time, event and details; undefined for a line it cannot read. */
export function parseLogLine(line: string): { at: string; event: string; details: Record<string, string> } | undefined {
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
 * Appends events to the log file (and mirrors them to a sink, e.g. stderr in the
 * foreground). The file stays open between lines (one write per event, not open + write +
 * close); `refresh` reopens it if it was removed or replaced meanwhile (rotation).
 */
export class DaemonLog {
  private fd: number | undefined;
  private writtenSinceRefresh = false;

  constructor(private readonly path: string, private readonly mirror?: (line: string) => void) {}

  /** Appends one event. A log that cannot be written never stops the daemon. */
  write(event: DaemonEvent, details: Record<string, string | number> = {}): void {
    const line = formatLogLine(new Date(), event, details);
    this.mirror?.(line);
    try {
      this.fd ??= fs.openSync(this.path, 'a', 0o600);
      fs.writeSync(this.fd, `${line}\n`);
      this.writtenSinceRefresh = true;
    } catch {
      // the mirror (stderr) still has it; the next line tries a fresh open
      this.close();
    }
  }

  /** Closes the file if the path no longer names it (removed, rotated), so the next line reopens it. */
  refresh(): void {
    if (this.fd === undefined || !this.writtenSinceRefresh) return;
    this.writtenSinceRefresh = false;
    try {
      const open = fs.fstatSync(this.fd);
      const named = fs.statSync(this.path, { throwIfNoEntry: false });
      if (named && named.ino === open.ino && named.dev === open.dev) return;
    } catch {
      // reopen below
    }
    this.close();
  }

  /** Closes the file (the next line reopens it). */
  close(): void {
    if (this.fd === undefined) return;
    try {
      fs.closeSync(this.fd);
    } catch {
      // already unusable
    }
    this.fd = undefined;
  }
}
