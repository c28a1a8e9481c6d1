// `baton review submit` and `baton review verdict` (docs/review.md §6): the two commands
// that bring new content into a bookbag, from options and files. Each reads and checks
// everything first (an unknown lens, severity or difficulty, or a malformed findings file
// is exit 2 with one line, and nothing is written), then calls one lib function, imported
// when the command runs (a `baton` call loads only its own command's code).
import { gitAnswer } from '../../proc/git.js';
import type { CommandModule } from 'yargs';
import { actingContext } from '../../handoff/context.js';
import { bagWriting, difficultyArg, list, secondsArg, textOf } from './reviewOptions.js';
import { recordVerdictOf } from './reviewVerdict.js';

const write = (text: string): void => {
  process.stdout.write(text);
};

/** The branch and short commit of a worktree ('' for either when git cannot say). */
function gitHeadOf(worktree: string): { branch: string; commit: string } {
  const git = (args: string[]) => gitAnswer(worktree, args) ?? '';
  return {
    branch: git(['rev-parse', '--abbrev-ref', 'HEAD']),
    commit: git(['rev-parse', '--short=10', 'HEAD']),
  };
}

const submit: CommandModule = {
  command: 'submit',
  describe:
    'Submit work for review: bookbag, ready signal, a review_request to each lens; prints the bead',
  builder: (y) =>
    bagWriting(y)
      .option('task', { type: 'string', demandOption: true, describe: 'What was asked' })
      .option('output-file', {
        type: 'string',
        demandOption: true,
        describe: "The work's output (- for stdin)",
      })
      .option('student', {
        type: 'string',
        describe: 'Whose work it is (default: $SWARMFORGE_ROLE)',
      })
      .option('domain', { type: 'string', default: 'general' })
      .option('difficulty', {
        type: 'string',
        default: 'medium',
        describe: 'easy, medium, hard or blocker',
      })
      .option('files-changed', { type: 'string', describe: 'Comma list of files' })
      .option('verification-file', { type: 'string', describe: 'How it was verified' })
      .option('summary', { type: 'string', default: '' })
      .option('ac-met', {
        type: 'string',
        array: true,
        describe: 'An acceptance criterion met (repeatable)',
      })
      .option('blocker', { type: 'string', array: true, describe: 'A blocker (repeatable)' })
      .option('reply-to', {
        type: 'string',
        describe: 'Role that gets the result (default: the submitter)',
      })
      .option('cto', { type: 'string', describe: 'CTO reviewer role (default: reviewers.tsv)' })
      .option('coo', { type: 'string', describe: 'COO reviewer role (default: reviewers.tsv)' }),
  handler: async (args) => {
    const ctx = actingContext(process.cwd(), process.env);
    const difficulty = difficultyArg(args.difficulty);
    const lockTimeoutMs = secondsArg('lock-timeout', args['lock-timeout']);
    const role = ctx.role.role;
    const { submitReview } = await import('../../review/lens/submit.js');
    const bag = await submitReview(
      ctx.root,
      {
        task: String(args.task),
        output: textOf('output-file', String(args['output-file'])),
        student: (args.student as string | undefined) ?? role,
        domain: String(args.domain),
        difficulty,
        verification: args['verification-file']
          ? textOf('verification-file', String(args['verification-file']))
          : '',
        summary: String(args.summary),
        acMet: list(args['ac-met']),
        blockers: list(args.blocker),
        filesChanged: args['files-changed']
          ? String(args['files-changed'])
              .split(',')
              .map((f) => f.trim())
              .filter(Boolean)
          : [],
        submittedBy: role,
        replyTo: (args['reply-to'] as string | undefined) ?? role,
        ...gitHeadOf(ctx.role.worktreePath),
        ctoRole: args.cto as string | undefined,
        cooRole: args.coo as string | undefined,
      },
      { lockTimeoutMs },
    );
    write(args.json ? `${JSON.stringify(bag, null, 2)}\n` : `${bag.bead}\n`);
  },
};

const verdict: CommandModule = {
  command: 'verdict <bead>',
  describe: "Record one lens's findings; Baton derives its verdict and score",
  builder: (y) =>
    bagWriting(y)
      .positional('bead', { type: 'string', demandOption: true })
      .option('lens', { type: 'string', demandOption: true, describe: 'cto or coo' })
      .option('verdict', {
        type: 'string',
        describe: 'PASS or FAIL (checked against the findings)',
      })
      .option('finding', {
        type: 'string',
        array: true,
        describe: 'SEVERITY:SECTION:DESCRIPTION (repeatable)',
      })
      .option('findings-file', {
        type: 'string',
        describe: 'A findings document, JSON or Markdown with front matter',
      })
      .option('summary', { type: 'string' })
      .option('reviewer', { type: 'string', describe: 'Who reviewed (default: $SWARMFORGE_ROLE)' }),
  handler: (args) => recordVerdictOf(args, write),
};

/** submit and verdict, for the `baton review` command table. */
export const REVIEW_WRITE_COMMANDS: CommandModule[] = [submit, verdict];
