// The `baton` command line (yargs, strict, English): the queue and swarm command tables;
// every failure, yargs' own included, goes through reportFailure.
import yargs from 'yargs';
import { CommandFailure } from '../fsx/commandFailure.js';
import { batonVersion } from '../proc/version.js';
import { reportFailure } from './failure.js';
import { GC_COMMAND } from './gcCommand.js';
import { WEB_COMMAND } from './webCommand.js';
import { HOOKS_COMMAND } from './hooksCommand.js';
import { LEAF_COMMAND } from './review/leafCommands.js';
import { NATS_COMMAND } from './natsCommand.js';
import { QUEUE_COMMANDS } from './queueCommands.js';
import { REVIEW_COMMAND } from './review/reviewCommands.js';
import { SWARM_COMMANDS } from './swarmCommands.js';

/**
 * `baton run` as `baton --help` lists it; the command itself never reaches yargs
 * (lib/cli/run/runCommand.ts).
 */
const RUN_COMMAND_STUB = {
  command: 'run <action>',
  describe: 'Durable runs: workflow.json, gates, lease, approval (see baton run --help)',
  handler: () => undefined,
};

/** Runs `baton` with the given arguments (not `baton run`: bin/baton.ts); sets process.exitCode. */
export async function runBaton(argv: string[]): Promise<void> {
  try {
    await yargs(argv)
      .scriptName('baton')
      .locale('en')
      .strict()
      .usage('baton <command>\n\nBaton: a file queue for AI agents in tmux. Files are the truth.')
      .command(QUEUE_COMMANDS)
      .command(SWARM_COMMANDS)
      .command(REVIEW_COMMAND)
      .command(LEAF_COMMAND)
      .command(HOOKS_COMMAND)
      .command(NATS_COMMAND)
      .command(GC_COMMAND)
      .command(WEB_COMMAND)
      .command(RUN_COMMAND_STUB)
      .demandCommand(1, 'Name a command; see baton --help.')
      .fail((message, err) => {
        throw (
          err ?? new CommandFailure('usage', [`baton: ${message}`, "Run 'baton --help' for usage."])
        );
      })
      .help()
      .version(batonVersion())
      .parseAsync();
  } catch (err) {
    reportFailure('baton', err);
  }
}
