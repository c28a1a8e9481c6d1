// `baton review submit` and `baton review verdict` (docs/review.md §6): the two commands
// that bring new content into a bookbag, from options and files. Each reads and checks
// everything first (an unknown lens, severity or difficulty, or a malformed findings file
// is exit 2 with one line, and nothing is written), then calls one lib function, imported
// when the command runs (a `baton` call loads only its own command's code).
import { gitAnswer } from '../../proc/git.js';
import * as fs from 'node:fs';
import type { CommandModule } from 'yargs';
import { actingContext } from '../../handoff/context.js';
import { fail } from '../../fsx/commandFailure.js';
import { findRoot } from '../../project/root.js';
import { printable } from '../../fsx/printable.js';
import { type FindingsDocument } from '../../review/bookbag/findings.js';
import { FindingsError } from '../../review/bookbag/reviewErrors.js';
import { bagWriting, difficultyArg, lensArg, secondsArg } from './reviewOptions.js';

const write = (text: string): void => {
  process.stdout.write(text);
};

/** A file's text, or stdin's for `-`; a missing file is invalid input (exit 2). */
function textOf(option: string, path: string): string {
  try {
    return fs.readFileSync(path === '-' ? 0 : path, 'utf8');
  } catch (err) {
    fail(
      'invalid',
      `baton review: cannot read --${option} '${printable(path)}': ` +
        `${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
    );
  }
}

/** The branch and short commit of a worktree ('' for either when git cannot say). */
function gitHeadOf(worktree: string): { branch: string; commit: string } {
  const git = (args: string[]) => gitAnswer(worktree, args) ?? '';
  return {
    branch: git(['rev-parse', '--abbrev-ref', 'HEAD']),
    commit: git(['rev-parse', '--short=10', 'HEAD']),
  };
}

const list = (value: unknown): string[] => ([] as unknown[]).concat(value ?? []).map(String);

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

/**
 * The findings of `--finding` arguments and a findings file, joined; their declared verdicts must
 * agree.
 */
async function findingsOf(args: Record<string, unknown>): Promise<FindingsDocument> {
  const { parseFindingArg, parseFindingsDocument } =
    await import('../../review/bookbag/findings.js');
  const fromArgs = list(args.finding).map(parseFindingArg);
  let fromFile: FindingsDocument = { findings: [] };
  const file = args['findings-file'] as string | undefined;
  if (file) {
    try {
      fromFile = await parseFindingsDocument(textOf('findings-file', file));
    } catch (err) {
      if (err instanceof FindingsError)
        throw new FindingsError(`malformed findings file '${printable(file)}': ${err.message}`);
      throw err;
    }
  }
  const declared = (args.verdict as string | undefined)?.toUpperCase();
  if (declared !== undefined && declared !== 'PASS' && declared !== 'FAIL')
    throw new FindingsError(
      `--verdict must be PASS or FAIL, not '${printable(String(args.verdict))}'`,
    );
  if (declared && fromFile.verdict && declared !== fromFile.verdict)
    throw new FindingsError(
      `--verdict ${declared} and the findings file's verdict ${fromFile.verdict} disagree`,
    );
  return {
    verdict: (declared as 'PASS' | 'FAIL' | undefined) ?? fromFile.verdict,
    findings: [...fromArgs, ...fromFile.findings],
    summary: fromFile.summary,
  };
}

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
  handler: async (args) => {
    const lens = lensArg(args.lens);
    const lockTimeoutMs = secondsArg('lock-timeout', args['lock-timeout']);
    const doc = await findingsOf(args);
    const root = findRoot(process.cwd(), process.env);
    const reviewer =
      (args.reviewer as string | undefined) ?? process.env.SWARMFORGE_ROLE ?? 'unknown';
    const [{ recordVerdict }, { verdictLine }] = await Promise.all([
      import('../../review/bookbag/verdict.js'),
      import('../../review/bookbag/bookbagText.js'),
    ]);
    const bag = await recordVerdict(
      root,
      String(args.bead),
      {
        lens,
        findings: doc.findings,
        declared: doc.verdict,
        summary: (args.summary as string | undefined) ?? doc.summary ?? '',
        reviewer,
      },
      { lockTimeoutMs },
    );
    write(args.json ? `${JSON.stringify(bag, null, 2)}\n` : verdictLine(bag, lens));
  },
};

/** submit and verdict, for the `baton review` command table. */
export const REVIEW_WRITE_COMMANDS: CommandModule[] = [submit, verdict];
