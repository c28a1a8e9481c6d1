// The one place that decides exit codes and turns failures into stderr lines. Every bin
// ends through reportFailure (a thrown failure) or exitAs (an outcome that is not a
// failure but must show in the exit code); nothing else in lib/ sets process.exitCode.
//   0   done
//   1   usage or environment (bad arguments, no project, a missing tool, a daemon already running)
//   2   invalid input or refused state (an invalid draft, a refusal, problems found by doctor)
// 3 `baton daemon status` only: the daemon is not running (as the `status` action of LSB init
// scripts)
//   75  temporary: worth retrying (a lock stayed busy, the disk is full)
// 128 + n `baton leaf run` stopped by signal n after cleaning up (143 for SIGTERM, 130 for SIGINT),
// as a shell reports it
//   N   baton-scripted-worker --exit N only (a test double told how to end)
import { DaemonAlreadyRunning } from '../daemon/alreadyRunning.js';
import { CommandFailure } from '../fsx/commandFailure.js';
import { LockBusy } from '../fsx/lock.js';
import { UnsafeMailbox } from '../queue/index.js';
import {
  BookbagProblem,
  FindingsError,
  LeafInterrupted,
  ReviewRefusal,
} from '../review/bookbag/reviewErrors.js';
import { printable } from '../fsx/printable.js';

/** Every exit code Baton's commands use, by outcome. */
export const EXIT_CODES = {
  done: 0,
  usage: 1,
  environment: 1,
  state: 1,
  invalid: 2,
  refused: 2,
  problemsFound: 2,
  notRunning: 3,
  temporary: 75,
} as const;

/** An outcome that decides an exit code. */
export type Outcome = keyof typeof EXIT_CODES;

const TEMPORARY_CODES = new Set(['ENOSPC', 'EDQUOT', 'EAGAIN', 'EBUSY', 'EMFILE', 'ENFILE']);
/** The signals' numbers (node:os is loaded by the one failure that needs them). */
const signalNumbers = () =>
  (process.getBuiltinModule('node:os') as typeof import('node:os')).constants.signals;
/** The errno codes of a file the user may not touch. */
const DENIED_CODES = new Set(['EACCES', 'EPERM']);

/**
 * Stderr lines and exit code for any thrown value; never a stack trace. Every line is made
 * printable (a file name or a draft value in it cannot drive the terminal); the line breaks
 * of a multi-line text such as a usage are kept. Values that may hold a line break of
 * their own are made printable where the message is built.
 */
export function describeFailure(
  program: string,
  err: unknown,
): { lines: string[]; exitCode: number } {
  const { lines, exitCode } = rawFailure(program, err);
  return { lines: lines.map((line) => line.split('\n').map(printable).join('\n')), exitCode };
}

function rawFailure(program: string, err: unknown): { lines: string[]; exitCode: number } {
  if (err instanceof CommandFailure) return { lines: err.lines, exitCode: EXIT_CODES[err.kind] };
  if (err instanceof DaemonAlreadyRunning)
    return { lines: [err.message], exitCode: EXIT_CODES.environment };
  if (err instanceof UnsafeMailbox)
    return { lines: [`${program}: ${err.message}`], exitCode: EXIT_CODES.refused };
  if (err instanceof ReviewRefusal || err instanceof FindingsError)
    return { lines: [`${program}: ${err.message}`], exitCode: EXIT_CODES.refused };
  if (err instanceof BookbagProblem) {
    if (err.kind === 'missing')
      return {
        lines: [`${program}: unknown bead: no bookbag '${err.path}'`],
        exitCode: EXIT_CODES.invalid,
      };
    return {
      lines: [
        `${program}: ${err.kind} bookbag '${err.path}'`,
        ...err.problems.map((p) => `- ${p}`),
      ],
      exitCode: EXIT_CODES.invalid,
    };
  }
  if (err instanceof LeafInterrupted)
    return {
      lines: [`${program}: ${err.message}`],
      exitCode: 128 + signalNumbers()[err.signal],
    };
  if (err instanceof LockBusy)
    return { lines: [`${program}: ${err.message}`], exitCode: EXIT_CODES.temporary };
  const sys = err as NodeJS.ErrnoException;
  if (sys && typeof sys.code === 'string') {
    const where = sys.path ? ` '${sys.path}'` : '';
    const exitCode = TEMPORARY_CODES.has(sys.code) ? EXIT_CODES.temporary : EXIT_CODES.environment;
    // In a project shared with agents of another user (`baton share`), this is the wall.
    const denied = DENIED_CODES.has(sys.code) ? ' (permission denied to this user)' : '';
    return {
      lines: [`${program}: ${sys.syscall ?? 'operation'} failed${where}: ${sys.code}${denied}`],
      exitCode,
    };
  }
  const message = err instanceof Error ? err.message : String(err);
  return { lines: [`${program}: ${message.split('\n')[0]}`], exitCode: EXIT_CODES.environment };
}

/** Prints a failure on stderr and sets the exit code. */
export function reportFailure(program: string, err: unknown): void {
  const { lines, exitCode } = describeFailure(program, err);
  process.stderr.write(lines.map((l) => `${l}\n`).join(''));
  process.exitCode = exitCode;
}

/**
 * Sets the exit code of an outcome that is not a thrown failure (problems found, a daemon not
 * running).
 */
export function exitAs(outcome: Outcome): void {
  process.exitCode = EXIT_CODES[outcome];
}

/**
 * Ends with the exit code of another Baton command this one ran (`baton run new` runs start
 * and up): its table already decided it.
 */
export function exitAsCommand(code: number): void {
  process.exitCode = code;
}

/**
 * Prints a failure and ends the process at once with its code (a command stopped by a signal:
 * nothing it started may keep it running).
 */
export function reportFailureAndExit(program: string, err: unknown): never {
  reportFailure(program, err);
  process.exit();
}

/**
 * Ends a finished daemon at once with the exit code already set: a library may keep a
 * socket open after its close (the NATS client's connect attempt to a server that accepts
 * but never answers), and a stopped handoffd must not wait for it.
 */
export function exitFinished(): never {
  process.exit();
}

/** Sets the exit code a test double was told to end with (`baton-scripted-worker --exit N`). */
export function exitAsScripted(code: number): void {
  process.exitCode = code;
}
