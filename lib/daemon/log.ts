// handoffd's event log writer: one appended line per event, in the format of
// lib/project/daemonRecord.ts (which also reads it back).
import * as fs from 'node:fs';
import { formatLogLine, type DaemonEvent } from '../project/daemonRecord.js';

/**
 * Appends events to the log file (and mirrors them to a sink, e.g. stderr in the
 * foreground). The file stays open between lines (one write per event, not open + write +
 * close); `refresh` reopens it if it was removed or replaced meanwhile (rotation).
 */
export class DaemonLog {
  private fd: number | undefined;
  private writtenSinceRefresh = false;

  constructor(
    private readonly path: string,
    private readonly mirror?: (line: string) => void,
  ) {}

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

  /**
   * Closes the file if the path no longer names it (removed, rotated), so the next line reopens it.
   */
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
