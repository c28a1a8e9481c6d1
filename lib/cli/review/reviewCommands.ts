// `baton review <command>` (docs/review.md §6): the review stage's command table. submit and
// verdict are in reviewWriteCommands.ts; here are the readers (show, list, validate, wait),
// the principal's steps (score, dispose) and resume. Every failure goes through
// lib/cli/failure.ts: an unknown bead, lens or state, or an inconsistent bookbag, is exit 2.
// Each handler imports what it runs when it runs (a `baton` call loads only its command).
import type { Argv, CommandModule } from 'yargs';
import { fail } from '../../fsx/commandFailure.js';
import { reviewPathsOf } from '../../project/layout.js';
import { findRoot } from '../../project/root.js';
import { exitAs } from '../failure.js';
import { cleanedLine } from './leafCommands.js';
import { REVIEW_WRITE_COMMANDS } from './reviewWriteCommands.js';
import { locked, lockOf, secondsArg, stateArg } from './reviewOptions.js';
import { TEACHER_COMMAND } from './teacherCommand.js';
import { commandGroup, json } from '../commandShapes.js';

const write = (text: string): void => {
  process.stdout.write(text);
};
const root = () => findRoot(process.cwd(), process.env);
const actor = () => process.env.SWARMFORGE_ROLE ?? 'principal';
const bead = <T>(y: Argv<T>) => json(y.positional('bead', { type: 'string', demandOption: true }));

const show: CommandModule = {
  command: 'show <bead>',
  describe: 'Print a bookbag; an inconsistent one also lists its problems on stderr (exit 2)',
  builder: bead,
  handler: async (args) => {
    const [{ bookbagPathOf, loadBookbag }, { bookbagText }] = await Promise.all([
      import('../../review/bookbag/store.js'),
      import('../../review/bookbag/bookbagText.js'),
    ]);
    const { bag, problems } = loadBookbag(bookbagPathOf(reviewPathsOf(root()), String(args.bead)));
    write(args.json ? `${JSON.stringify(bag, null, 2)}\n` : bookbagText(bag));
    if (problems.length > 0) {
      process.stderr.write(
        `baton: inconsistent bookbag ${bag.bead}\n${problems.map((p) => `- ${p}\n`).join('')}`,
      );
      exitAs('invalid');
    }
  },
};

const validate: CommandModule = {
  command: 'validate <bead>',
  describe: 'Exit 0 when the bookbag is valid and consistent, else 2 with one line per problem',
  builder: (y) => y.positional('bead', { type: 'string', demandOption: true }),
  handler: async (args) => {
    const { bookbagPathOf, loadBookbag } = await import('../../review/bookbag/store.js');
    const { problems } = loadBookbag(bookbagPathOf(reviewPathsOf(root()), String(args.bead)));
    if (problems.length > 0)
      fail('invalid', ...problems.map((p) => `baton review: ${args.bead}: ${p}`));
    write(`VALID: ${args.bead}\n`);
  },
};

const list: CommandModule = {
  command: 'list',
  describe:
    'One line per bookbag: bead, state, verdicts, accepted (INVALID for one that cannot be used)',
  builder: (y) =>
    json(y)
      .option('state', { type: 'string', describe: 'Only bookbags in this state' })
      .option('archived', { type: 'boolean', default: false, describe: 'Include the archive' }),
  handler: async (args) => {
    const state = args.state === undefined ? undefined : stateArg(args.state);
    const { listBookbags } = await import('../../review/bookbag/listBookbags.js');
    const rows = listBookbags(root(), { archived: args.archived as boolean }).filter(
      (r) => state === undefined || r.state === state,
    );
    const shown = rows.map(({ bead: b, state: s, cto_verdict, coo_verdict, accepted }) => ({
      bead: b,
      state: s,
      cto_verdict,
      coo_verdict,
      accepted,
    }));
    write(
      args.json
        ? `${JSON.stringify(shown)}\n`
        : shown
            .map(
              (r) =>
                `${r.bead} ${r.state} cto=${r.cto_verdict || '-'} ` +
                `coo=${r.coo_verdict || '-'} ` +
                `accepted=${r.accepted ? 'yes' : 'no'}\n`,
            )
            .join(''),
    );
  },
};

const wait: CommandModule = {
  command: 'wait <bead>',
  describe: 'Wait for both verdicts (HANDOFF_TIMEOUT, HANDOFF_POLL_INTERVAL); exit 75 on timeout',
  builder: (y) =>
    bead(y)
      .option('timeout', { type: 'number', describe: 'Seconds (default $HANDOFF_TIMEOUT or 120)' })
      .option('poll-interval', {
        type: 'number',
        describe: 'Seconds (default $HANDOFF_POLL_INTERVAL or 5)',
      }),
  handler: async (args) => {
    const { waitForVerdicts } = await import('../../review/lens/waitVerdicts.js');
    const { bag, complete } = await waitForVerdicts(root(), String(args.bead), {
      timeoutMs: secondsArg('timeout', args.timeout),
      pollMs: secondsArg('poll-interval', args['poll-interval']),
    });
    const fields = { bead: bag.bead, cto_verdict: bag.cto_verdict, coo_verdict: bag.coo_verdict };
    write(
      args.json
        ? `${JSON.stringify(fields)}\n`
        : `cto: ${bag.cto_verdict || '(empty)'}\ncoo: ${bag.coo_verdict || '(empty)'}\n`,
    );
    if (!complete)
      fail('temporary', `baton review: timed out waiting for both verdicts of ${bag.bead}`);
  },
};

const score: CommandModule = {
  command: 'score <bead>',
  describe: 'REVIEWED → SCORED, recording whether the bead is accepted',
  builder: (y) => locked(bead(y)),
  handler: async (args) => {
    const bag = await (
      await import('../../review/bookbag/verdict.js')
    ).scoreReview(root(), String(args.bead), actor(), lockOf(args));
    write(
      args.json
        ? `${JSON.stringify(bag, null, 2)}\n`
        : `SCORED: ${bag.bead} accepted ${bag.accepted ? 'yes' : 'no'} ` +
            `(cto ${bag.cto_score}, coo ${bag.coo_score})\n`,
    );
  },
};

const dispose: CommandModule = {
  command: 'dispose <bead>',
  describe:
    'SCORED (or REVIEWED with --force) → DISPOSED; the bookbag ' +
    'moves to the archive, an orphaned leaf worktree is removed',
  builder: (y) =>
    locked(bead(y)).option('force', {
      type: 'boolean',
      default: false,
      describe: 'Dispose of a REVIEWED bead without scoring it',
    }),
  handler: async (args) => {
    const { disposeReview } = await import('../../review/bookbag/dispose.js');
    const { bag, path, leaf } = await disposeReview(
      root(),
      String(args.bead),
      args.force as boolean,
      actor(),
      lockOf(args),
    );
    const leafLine = leaf === undefined ? '' : `LEAF ${cleanedLine(leaf)}`;
    write(
      args.json
        ? `${JSON.stringify(leaf === undefined ? bag : { ...bag, leaf_removed: leaf }, null, 2)}\n`
        : `DISPOSED: ${bag.bead} -> ${path}\n${leafLine}`,
    );
  },
};

const resume: CommandModule = {
  command: 'resume',
  describe:
    'List unfinished beads and what each waits for; queue again a request or result a crash lost',
  builder: (y) => locked(json(y)),
  handler: async (args) => {
    const { resumeReviews } = await import('../../review/lens/resume.js');
    const entries = await resumeReviews(root(), lockOf(args));
    if (args.json) return write(`${JSON.stringify(entries)}\n`);
    write(
      entries
        .map(
          (e) =>
            `${e.bead} ${e.state} waits for ` +
            `${e.waits_for.join(', ')}${e.repaired.length ? `; ${e.repaired.join(', ')}` : ''}\n`,
        )
        .join(''),
    );
  },
};

/** `baton review`, with its subcommands. */
export const REVIEW_COMMAND: CommandModule = commandGroup(
  'review',
  'The review stage: two lenses (CTO, COO) must both pass a piece of work',
  [...REVIEW_WRITE_COMMANDS, show, list, validate, wait, score, dispose, resume, TEACHER_COMMAND],
);
