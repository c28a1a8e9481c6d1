// `baton leaf run` and `baton leaf clean` (docs/review.md §8). run is the one command that
// owns process signals while it works: SIGTERM, SIGINT and SIGHUP abort the leaf (its
// worker's process group is killed, the worktree removed, nothing submitted) and then end
// it with 128 + the signal's number, as a shell reports a command killed by it. The lib
// modules are imported when a command runs, so `baton`'s other commands do not load them.
import type { CommandModule } from 'yargs';
import { fail } from '../../fsx/commandFailure.js';
import { findRoot } from '../../project/root.js';
import { printable } from '../../fsx/printable.js';
import type { CleanedLeaf } from '../../review/leaf/leafClean.js';
import { LeafInterrupted } from '../../review/bookbag/reviewErrors.js';
import { reportFailureAndExit } from '../failure.js';
import { difficultyArg, secondsArg } from './reviewOptions.js';
import { commandGroup, json } from '../commandShapes.js';

const write = (text: string): void => {
  process.stdout.write(text);
};

/** The signals that stop a leaf. */
const STOP_SIGNALS: NodeJS.Signals[] = ['SIGTERM', 'SIGINT', 'SIGHUP'];

/**
 * An AbortSignal aborted (with the signal's name) when the process gets a stop signal, until
 * `release`.
 */
export function stopOnSignals(): { signal: AbortSignal; release: () => void } {
  const controller = new AbortController();
  const onSignal = (name: NodeJS.Signals) => controller.abort(name);
  for (const name of STOP_SIGNALS) process.on(name, onSignal);
  return {
    signal: controller.signal,
    release: () => STOP_SIGNALS.forEach((name) => process.off(name, onSignal)),
  };
}

/** The worker's time limit: --timeout, else $DEFAULT_LEAF_TIMEOUT (seconds), else 600 s. */
export function workerTimeoutMs(option: unknown, env: NodeJS.ProcessEnv): number {
  const fromEnv = Number(env.DEFAULT_LEAF_TIMEOUT);
  return secondsArg('timeout', option) ?? (fromEnv > 0 ? fromEnv * 1000 : 600_000);
}

/**
 * Waits for both verdicts of `bead` (the review stage's wait), or throws LeafInterrupted when
 * `signal` aborts first.
 */
async function waitOrStop(
  root: string,
  bead: string,
  timeoutMs: number | undefined,
  signal: AbortSignal,
) {
  const { waitForVerdicts } = await import('../../review/lens/waitVerdicts.js');
  const stopped = new Promise<never>((_, reject) => {
    const onAbort = () =>
      reject(
        new LeafInterrupted(
          signal.reason as NodeJS.Signals,
          `stopped waiting for the verdicts of ${bead} (its review goes on)`,
        ),
      );
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  return Promise.race([waitForVerdicts(root, bead, { timeoutMs }), stopped]);
}

/** The lines of a successful leaf: its bead, audit and branch. */
export function leafLines(result: {
  bead: string;
  audit: string;
  branch: string;
  commit: string;
}): string {
  const branch = result.branch
    ? `${result.branch} ${result.commit}`
    : 'none (the worker committed nothing)';
  return `BEAD: ${result.bead}\nAUDIT: ${printable(result.audit)}\nBRANCH: ${branch}\n`;
}

/** Runs the leaf of `baton leaf run`, then (with --wait) waits; prints as it goes. */
/** The two lenses' verdicts of a bookbag, as the leaf's JSON shows them. */
function verdictsOf(bag: { cto_verdict: string; coo_verdict: string }): {
  cto_verdict: string;
  coo_verdict: string;
} {
  return { cto_verdict: bag.cto_verdict, coo_verdict: bag.coo_verdict };
}

async function runLeafCommand(args: Record<string, unknown>, signal: AbortSignal): Promise<void> {
  const argv = ((args['--'] ?? []) as unknown[]).map(String);
  if (argv.length === 0)
    fail(
      'usage',
      'baton leaf run: name the worker after --: baton leaf run ' +
        '--role R --domain D --task TEXT -- WORKER-ARGV...',
    );
  const root = findRoot(process.cwd(), process.env);
  const request = {
    role: String(args.role),
    domain: String(args.domain),
    difficulty: difficultyArg(args.difficulty),
    task: String(args.task),
    argv,
    timeoutMs: workerTimeoutMs(args.timeout, process.env),
  };
  const { runLeaf } = await import('../../review/leaf/leaf.js');
  const result = await runLeaf(root, request, {
    signal,
    lockTimeoutMs: secondsArg('lock-timeout', args['lock-timeout']),
  });
  const shown = {
    bead: result.bead,
    worktree: result.worktree,
    audit: result.audit,
    branch: result.branch,
    commit: result.commit,
    state: result.bookbag.state,
  };
  if (!args.wait) return write(args.json ? `${JSON.stringify(shown)}\n` : leafLines(result));
  if (!args.json) write(leafLines(result));
  const { bag, complete } = await waitOrStop(
    root,
    result.bead,
    secondsArg('wait-timeout', args['wait-timeout']),
    signal,
  );
  write(
    args.json
      ? `${JSON.stringify({ ...shown, state: bag.state, ...verdictsOf(bag) })}\n`
      : `cto: ${bag.cto_verdict || '(empty)'}\ncoo: ${bag.coo_verdict || '(empty)'}\n`,
  );
  if (!complete)
    fail('temporary', `baton leaf: timed out waiting for both verdicts of ${result.bead}`);
}

/** The line of one leaf `baton leaf clean` removed. */
export function cleanedLine(c: CleanedLeaf): string {
  const branch = c.branch
    ? `branch ${c.branch} kept at ${c.commit}`
    : 'branch deleted: nothing committed';
  const killed = c.worker_killed ? '; worker killed' : '';
  return `REMOVED: ${printable(c.path)} (bead ${c.bead}${killed}; ${branch})\n`;
}

const run: CommandModule = {
  command: 'run',
  describe:
    'Run a worker command in a disposable worktree ' +
    '(.worktrees/study-<role>-<rand8>), then submit its work for ' +
    'review',
  builder: (y) =>
    json(y)
      .usage(
        'baton leaf run --role R --domain D [--difficulty D] --task ' +
          'TEXT [--wait] [--timeout S] -- WORKER-ARGV...\n\nThe worker ' +
          'gets the brief {bead, role, domain, task, difficulty} as ' +
          'JSON on stdin and its path in BATON_BRIEF; its stdout ' +
          'becomes the output under review.',
      )
      .parserConfiguration({ 'populate--': true, 'parse-positional-numbers': false })
      .option('role', {
        type: 'string',
        demandOption: true,
        describe:
          'The role doing the work: the student, and the mailbox the ' +
          'review requests are queued from',
      })
      .option('domain', {
        type: 'string',
        demandOption: true,
        describe: 'The domain of the task (part of the bead name)',
      })
      .option('difficulty', {
        type: 'string',
        default: 'medium',
        describe: 'easy, medium, hard or blocker',
      })
      .option('task', { type: 'string', demandOption: true, describe: 'What the worker is to do' })
      .option('wait', {
        type: 'boolean',
        default: false,
        describe: 'Wait for both verdicts after submitting (exit 75 on timeout)',
      })
      .option('timeout', {
        type: 'number',
        describe:
          'Seconds the worker may run before its process group is ' +
          'killed (default $DEFAULT_LEAF_TIMEOUT or 600)',
      })
      .option('wait-timeout', {
        type: 'number',
        describe: 'Seconds --wait waits (default $HANDOFF_TIMEOUT or 120)',
      })
      .option('lock-timeout', {
        type: 'number',
        describe: 'Seconds to wait for the bead lock (default 10)',
      }),
  handler: async (args) => {
    const stop = stopOnSignals();
    try {
      await runLeafCommand(args, stop.signal);
    } catch (err) {
      if (err instanceof LeafInterrupted) reportFailureAndExit('baton', err);
      throw err;
    } finally {
      stop.release();
    }
  },
};

const clean: CommandModule = {
  command: 'clean',
  describe: 'Remove leaf worktrees whose process is gone (a branch with commits is kept)',
  builder: (y) => json(y),
  handler: async (args) => {
    const { cleanLeaves } = await import('../../review/leaf/leafClean.js');
    const cleaned = cleanLeaves(findRoot(process.cwd(), process.env));
    if (args.json) return write(`${JSON.stringify(cleaned, null, 2)}\n`);
    write(cleaned.map(cleanedLine).join(''));
    if (cleaned.length === 0) write('OK: no orphan leaves\n');
  },
};

/** `baton leaf`, with its subcommands. */
export const LEAF_COMMAND: CommandModule = commandGroup(
  'leaf',
  'Leaves: one task done by a worker command in a disposable worktree, then reviewed',
  [run, clean],
);
