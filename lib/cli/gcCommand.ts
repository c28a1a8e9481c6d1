// `baton gc --older-than DURATION [--dry-run] [--json]` (runtime.md §12.6): removes what has
// been finished for longer than the bound, each stage judging its own items (the queue's
// mail: lib/admin/retention.ts; runs: lib/run/record/runRetention.ts; reviews:
// lib/review/retention.ts), and prints each item as it goes. A dry run reads only: it
// changes nothing, not even the trash a killed gc left (the next real gc empties it). An
// item that cannot be removed is reported on stderr and the rest go on (exit 75: try again).
import { relative } from 'node:path';
import type { CommandModule } from 'yargs';
import { fail } from '../fsx/commandFailure.js';
import { printable } from '../fsx/printable.js';
import { findRoot } from '../project/root.js';
import { json, flag } from './commandShapes.js';
import { exitAs } from './failure.js';
import { isoOf } from '../fsx/timestamps.js';

const write = (text: string): void => {
  process.stdout.write(text);
};

/** Empties a killed gc's trash (not in a dry run), then every removable item in print order. */
async function collect(root: string, before: Date, dryRun: boolean) {
  const [{ emptyTrash, mailToRemove, REMOVABLE_KINDS }, { runsToRemove }, { reviewsToRemove }] =
    await Promise.all([
      import('../admin/retention.js'),
      import('../run/record/runRetention.js'),
      import('../review/retention.js'),
    ]);
  if (!dryRun) emptyTrash(root);
  const items = [
    ...(await mailToRemove(root, before)),
    ...runsToRemove(root, before),
    ...reviewsToRemove(root, before),
  ];
  const rank = (kind: string) => REMOVABLE_KINDS.indexOf(kind as never);
  return items.sort((a, b) => rank(a.kind) - rank(b.kind) || a.path.localeCompare(b.path));
}

/** `baton gc`. */
export const GC_COMMAND: CommandModule = {
  command: 'gc',
  describe:
    'Remove finished mail, runs, review archives, leaves and library-log entries older ' +
    'than --older-than (never live work)',
  builder: (y) =>
    json(y)
      .option('older-than', {
        type: 'string',
        demandOption: true,
        describe: 'Age bound: 90s, 30m, 12h, 7d (each item by its own recorded time)',
      })
      .option('dry-run', flag('Print what would be removed; change nothing')),
  handler: async (args) => {
    const { retentionMs } = await import('../fsx/duration.js');
    const bound = retentionMs(String(args['older-than']));
    if (bound === undefined)
      fail(
        'usage',
        `baton gc: --older-than takes a duration like 90s, 30m, 12h or 7d, not ` +
          `'${printable(String(args['older-than']))}'`,
      );
    const root = findRoot(process.cwd(), process.env);
    const dryRun = args['dry-run'] === true;
    const before = new Date(Date.now() - bound);
    const done: { kind: string; path: string; at: string }[] = [];
    let failed = 0;
    for (const item of await collect(root, before, dryRun)) {
      const entry = { kind: item.kind, path: relative(root, item.path), at: item.at };
      try {
        if (!dryRun) await item.remove();
      } catch (err) {
        failed += 1;
        process.stderr.write(
          `baton gc: ${entry.kind} ${printable(entry.path)} kept: ` +
            `${printable(err instanceof Error ? err.message : String(err))}\n`,
        );
        continue;
      }
      done.push(entry);
      if (!args.json)
        write(
          `${dryRun ? 'WOULD REMOVE' : 'REMOVED'}: ` +
            `${entry.kind} ${printable(entry.path)} (${entry.at})\n`,
        );
    }
    const report = { dry_run: dryRun, before: isoOf(before), removed: done, failed };
    if (args.json) write(`${JSON.stringify(report)}\n`);
    else
      write(
        `GC: ${done.length} ${dryRun ? 'would be removed (dry run)' : 'removed'}` +
          `${failed > 0 ? `, ${failed} kept` : ''}\n`,
      );
    if (failed > 0) exitAs('temporary');
  },
};
