// `baton review verdict`'s action (docs/review.md §6): one lens's findings, from `--finding`
// arguments and a findings file, checked, then recorded in the bookbag. Shared by the yargs
// command (reviewWriteCommands.ts) and the reviewer's fast path (verdictFastPath.ts), which
// differ only in how they read the command line.
import { printable } from '../../fsx/printable.js';
import { findRoot } from '../../project/root.js';
import { type FindingsDocument } from '../../review/bookbag/findings.js';
import { FindingsError } from '../../review/bookbag/reviewErrors.js';
import { lensArg, list, secondsArg, textOf } from './reviewOptions.js';

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

/** Records the verdict the options in `args` describe and writes its line (or the bookbag). */
export async function recordVerdictOf(
  args: Record<string, unknown>,
  write: (text: string) => void,
): Promise<void> {
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
}
