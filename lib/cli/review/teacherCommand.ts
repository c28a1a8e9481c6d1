// `baton review teacher --lens cto|coo [--once] [--poll-interval S] [--timeout S]
// [--max-attempts N] [--json] -- REVIEWER-ARGV...` (docs/review.md §7): runs the teacher of
// a lens as $SWARMFORGE_ROLE and prints one line per event (or one JSON object per line with
// --json). TERM and INT stop it cleanly: the reviewer run in progress is abandoned (its
// request stays in process for the next teacher), the session is saved, exit 0. A second
// signal takes the default action. The teacher's modules are imported when the command runs
// (a `baton` call loads only its command).
import type { Argv, CommandModule } from 'yargs';
import { fail } from '../../fsx/commandFailure.js';
import { printable } from '../../fsx/printable.js';
import { type TeacherEvent } from '../../review/teacher/teacherReview.js';
import { lensArg, secondsArg } from './reviewOptions.js';

/** Reviewer runs per request (the first included) when --max-attempts does not say. */
export const DEFAULT_MAX_ATTEMPTS = 3;
/**
 * The reviewer timeout when neither --timeout nor DEFAULT_REVIEW_TIMEOUT says otherwise (seconds).
 */
export const DEFAULT_REVIEW_TIMEOUT_S = 90;
/**
 * The poll fallback when neither --poll-interval nor HANDOFF_POLL_INTERVAL says otherwise
 * (seconds).
 */
export const DEFAULT_POLL_INTERVAL_S = 5;

/**
 * Milliseconds from option `--name` (seconds), else environment variable `variable` (seconds,
 * ignored unless a positive number), else `fallbackS`.
 */
export function millisecondsFrom(
  name: string,
  option: unknown,
  variable: string,
  fallbackS: number,
  env: NodeJS.ProcessEnv,
): number {
  const fromEnv = Number(env[variable]);
  return (
    secondsArg(name, option) ??
    (Number.isFinite(fromEnv) && fromEnv > 0 ? fromEnv : fallbackS) * 1000
  );
}

/** One event as the line the teacher prints. */
export function eventLine(e: TeacherEvent): string {
  switch (e.event) {
    case 'wake':
      return (
        `TEACHER: ${e.lens} as ${e.role} in ${e.worktree}, session ` +
        `${e.sid} (${e.previous ? `after ${e.previous}` : 'fresh'}), persona ${e.persona}`
      );
    case 'review':
      return `REVIEWING: ${e.bead} ${e.lens} attempt ${e.attempt} of ${e.max_attempts}`;
    case 'attempt_failed':
      return (
        `ATTEMPT FAILED: ${e.bead} ${e.lens} attempt ${e.attempt} of ` +
        `${e.max_attempts}: ${e.reason}`
      );
    case 'verdict':
      return (
        `VERDICT: ${e.bead} ${e.lens} ${e.verdict} score ${e.score}, ` +
        `${e.findings} finding(s), ${e.attempts} attempt(s); bead ` +
        `${e.state}`
      );
    case 'skipped':
      return `SKIPPED: ${e.bead || '-'} ${e.lens}: ${e.reason}`;
    case 'abandoned':
      return `ABANDONED: ${e.bead} ${e.lens}: stopped; the request stays in process`;
    case 'sleep':
      return `SESSION: ${e.session} (${e.reviewed} reviewed)`;
  }
}

function options<T>(y: Argv<T>) {
  return y
    .parserConfiguration({ 'populate--': true })
    .option('lens', {
      type: 'string',
      demandOption: true,
      describe: 'The lens this teacher reviews with: cto or coo',
    })
    .option('once', {
      type: 'boolean',
      default: false,
      describe: 'Handle at most one request, save the session, exit',
    })
    .option('poll-interval', {
      type: 'number',
      describe:
        `Seconds between looks at the inbox when no notification ` +
        `comes (default $HANDOFF_POLL_INTERVAL, else ` +
        `${DEFAULT_POLL_INTERVAL_S})`,
    })
    .option('timeout', {
      type: 'number',
      describe:
        `Seconds a reviewer run may take before its process group is ` +
        `killed (default $DEFAULT_REVIEW_TIMEOUT, else ` +
        `${DEFAULT_REVIEW_TIMEOUT_S})`,
    })
    .option('max-attempts', {
      type: 'number',
      default: DEFAULT_MAX_ATTEMPTS,
      describe: 'Reviewer runs per request, the first included, before the verdict is FAIL',
    })
    .option('json', {
      type: 'boolean',
      default: false,
      describe: 'Print one JSON object per event',
    })
    .usage(
      'baton review teacher --lens cto|coo [options] -- ' +
        'REVIEWER-ARGV...\n\nRuns the reviewer agent of a lens as ' +
        '$SWARMFORGE_ROLE: claims each review_request of its inbox, ' +
        "runs REVIEWER-ARGV (no shell) in the role's worktree with " +
        'the prompt on stdin, parses the findings document it prints, ' +
        'records the verdict, completes the request.',
    );
}

/** The `teacher` subcommand of `baton review`. */
export const TEACHER_COMMAND: CommandModule = {
  command: 'teacher',
  describe: 'Run the reviewer agent of a lens (cto or coo) on the inbox of $SWARMFORGE_ROLE',
  builder: (y) => options(y),
  handler: async (args) => {
    const argv = ((args['--'] ?? []) as (string | number)[]).map(String);
    if (argv.length === 0)
      fail(
        'usage',
        'baton review teacher: name the reviewer command after --, ' +
          'e.g. baton review teacher --lens cto -- ' +
          'baton-scripted-reviewer',
      );
    const lens = lensArg(args.lens);
    const maxAttempts = args['max-attempts'] as number;
    if (!Number.isInteger(maxAttempts) || maxAttempts < 1)
      fail(
        'invalid',
        `baton review: --max-attempts must be a whole number of at ` +
          `least 1, not '${String(maxAttempts)}'`,
      );
    const env = process.env;
    const controller = new AbortController();
    const stop = () => controller.abort();
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
    const print = (e: TeacherEvent) =>
      process.stdout.write(`${args.json ? JSON.stringify(e) : printable(eventLine(e))}\n`);
    try {
      const { runTeacher } = await import('../../review/teacher/teacher.js');
      await runTeacher({
        lens,
        once: args.once as boolean,
        argv,
        cwd: process.cwd(),
        env,
        signal: controller.signal,
        pollIntervalMs: millisecondsFrom(
          'poll-interval',
          args['poll-interval'],
          'HANDOFF_POLL_INTERVAL',
          DEFAULT_POLL_INTERVAL_S,
          env,
        ),
        timeoutMs: millisecondsFrom(
          'timeout',
          args.timeout,
          'DEFAULT_REVIEW_TIMEOUT',
          DEFAULT_REVIEW_TIMEOUT_S,
          env,
        ),
        maxAttempts,
        terminal: process.stdin.isTTY ? process.stdin : undefined,
        report: print,
        warn: (line) => process.stderr.write(`${printable(line)}\n`),
      });
    } finally {
      process.off('SIGTERM', stop);
      process.off('SIGINT', stop);
    }
  },
};
