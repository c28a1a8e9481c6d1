// The `baton` command line (yargs, strict, English). Each command calls one lib function
// and prints; failures go through describeFailure.
import yargs from 'yargs';
import { doctor } from '../handoff/doctor.js';
import { findRoot } from '../handoff/root.js';
import { initProject } from '../handoff/init.js';
import { doneWithCurrent, readyForNext } from '../handoff/receive.js';
import { sendHandoff } from '../handoff/send.js';
import { statusOf, statusTable } from '../handoff/status.js';
import { type UnusableItem } from '../queue/item.js';
import { reportFailure } from './failure.js';
import { SWARM_COMMANDS } from './swarmCommands.js';

const onSkip = (problem: UnusableItem) => process.stderr.write(`skipping ${problem.path}: ${problem.reason}\n`);
const write = (out: string | Buffer): void => {
  process.stdout.write(out);
};

/** Runs `baton` with the given arguments; sets process.exitCode. */
export async function runBaton(argv: string[]): Promise<void> {
  const cwd = process.cwd();
  const env = process.env;
  try {
    await yargs(argv)
      .scriptName('baton')
      .locale('en')
      .strict()
      .usage('baton <command>\n\nBaton: a file queue for AI agents in tmux. Files are the truth.')
      .command({
        command: 'init',
        describe: 'Read swarmforge/swarmforge.conf; write .swarmforge/roles.tsv and every mailbox',
        handler: () => {
          const { root, roles } = initProject(cwd);
          write(`INITIALIZED: ${root}\n${roles.map((r) => `ROLE: ${r.role} ${r.mode} ${r.worktreePath}\n`).join('')}`);
        },
      })
      .command({
        command: 'status',
        describe: 'Per role: items in outbox, new, in process, completed, failed; ages',
        builder: (y) => y.option('json', { type: 'boolean', default: false, describe: 'Print JSON' }),
        handler: (args) => {
          const rows = statusOf(findRoot(cwd, env));
          write(args.json ? `${JSON.stringify({ roles: rows }, null, 2)}\n` : statusTable(rows));
        },
      })
      .command({
        command: 'doctor',
        describe: 'Check every mailbox invariant; exit 2 if any problem is found',
        builder: (y) =>
          y.option('json', { type: 'boolean', default: false, describe: 'Print JSON' })
            .option('fix', { type: 'boolean', default: false, describe: 'Delete temp files older than 36 h (the only safe repair)' }),
        handler: async (args) => {
          const report = await doctor(findRoot(cwd, env), args.fix);
          if (args.json) write(`${JSON.stringify(report, null, 2)}\n`);
          else {
            write(report.fixed.map((p) => `REMOVED: ${p}\n`).join(''));
            write(report.findings.map((f) => `PROBLEM: ${f.path}: ${f.problem}\n`).join(''));
            if (report.findings.length === 0) write('OK: no problems found\n');
          }
          if (report.findings.length > 0) process.exitCode = 2;
        },
      })
      .command({
        command: 'handoff <draft>',
        describe: 'Same as swarm_handoff <draft>',
        builder: (y) => y.positional('draft', { type: 'string', demandOption: true }),
        handler: async (args) => write(await sendHandoff(args.draft, cwd, env, onSkip)),
      })
      .command({
        command: 'ready',
        describe: 'Same as ready_for_next',
        handler: async () => write(await readyForNext(cwd, env, onSkip)),
      })
      .command({
        command: 'done [id]',
        describe: 'Same as done_with_current [ID]',
        builder: (y) => y.positional('id', { type: 'string' }),
        handler: async (args) => write(await doneWithCurrent(cwd, env, args.id, onSkip)),
      })
      .command(SWARM_COMMANDS)
      .demandCommand(1, 'Name a command; see baton --help.')
      .fail((message, err) => {
        if (err) throw err;
        process.stderr.write(`baton: ${message}\nRun 'baton --help' for usage.\n`);
        process.exitCode = 1;
      })
      .help()
      .version()
      .parseAsync();
  } catch (err) {
    reportFailure('baton', err);
  }
}
