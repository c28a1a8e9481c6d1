// The one place that maps failures to stderr lines and exit codes:
// 0 done, 1 usage or environment, 2 invalid input or refused state, 75 temporary.
import { HandoffFailure, type FailureKind } from '../handoff/errors.js';
import { LockBusy } from '../queue/lock.js';
import { UnsafeMailbox } from '../queue/mailbox.js';

const EXIT_BY_KIND: Record<FailureKind, number> = {
  usage: 1, environment: 1, state: 1, invalid: 2, refused: 2, temporary: 75,
};
const TEMPORARY_CODES = new Set(['ENOSPC', 'EDQUOT', 'EAGAIN', 'EBUSY', 'EMFILE', 'ENFILE']);

/** Stderr lines and exit code for any thrown value; never a stack trace. */
export function describeFailure(program: string, err: unknown): { lines: string[]; exitCode: number } {
  if (err instanceof HandoffFailure) return { lines: err.lines, exitCode: EXIT_BY_KIND[err.kind] };
  if (err instanceof UnsafeMailbox) return { lines: [`${program}: ${err.message}`], exitCode: 2 };
  if (err instanceof LockBusy) return { lines: [`${program}: ${err.message}`], exitCode: 75 };
  const sys = err as NodeJS.ErrnoException;
  if (sys && typeof sys.code === 'string') {
    const where = sys.path ? ` '${sys.path}'` : '';
    const exitCode = TEMPORARY_CODES.has(sys.code) ? 75 : 1;
    return { lines: [`${program}: ${sys.syscall ?? 'operation'} failed${where}: ${sys.code}`], exitCode };
  }
  const message = err instanceof Error ? err.message : String(err);
  return { lines: [`${program}: ${message.split('\n')[0]}`], exitCode: 1 };
}

/** Prints a failure on stderr and sets the exit code. */
export function reportFailure(program: string, err: unknown): void {
  const { lines, exitCode } = describeFailure(program, err);
  process.stderr.write(lines.map((l) => `${l}\n`).join(''));
  process.exitCode = exitCode;
}
