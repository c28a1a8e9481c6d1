// The handoffd command line: options, ROOT, exit codes.
import yargs from 'yargs';
import { runHandoffd } from '../daemon/handoffd.js';
import { findRoot } from '../project/root.js';
import { batonVersion } from '../proc/version.js';
import { exitFinished, reportFailure } from './failure.js';

/** Parses argv and runs the daemon in the foreground; sets process.exitCode. */
export async function runHandoffdCommand(argv: string[]): Promise<void> {
  try {
    const args = await yargs(argv)
      .scriptName('handoffd')
      .locale('en')
      .strict()
      .usage(
        'handoffd [--root DIR] [--poll-interval MS] ' +
          '[--rewake-interval S]\n\nDelivers every outbox file of the ' +
          'project to its recipients and wakes idle panes. Runs in the ' +
          'foreground; TERM, INT or a daemon/stop file stop it after ' +
          'the delivery in progress.',
      )
      .option('root', {
        type: 'string',
        describe: 'Project root (default: found as the agent commands do)',
      })
      .option('poll-interval', {
        type: 'number',
        default: 1000,
        describe: 'Milliseconds between full passes',
      })
      .option('rewake-interval', {
        type: 'number',
        default: 60,
        describe: 'Seconds before an idle recipient with waiting mail is woken again',
      })
      .option('quiet', {
        type: 'boolean',
        default: false,
        describe: 'Do not mirror log lines to stderr',
      })
      .check((a) => {
        if (!(a['poll-interval'] > 0) || !(a['rewake-interval'] > 0))
          throw new Error('intervals must be positive numbers');
        return true;
      })
      .fail((message, err) => {
        throw err ?? new Error(message);
      })
      .help()
      .version(batonVersion())
      .parseAsync();
    const root = findRoot(
      process.cwd(),
      args.root ? { ...process.env, SWARMFORGE_ROOT: args.root } : process.env,
    );
    await runHandoffd({
      root,
      pollIntervalMs: args['poll-interval'],
      rewakeIntervalS: args['rewake-interval'],
      mirror: args.quiet ? undefined : (line) => process.stderr.write(`${line}\n`),
    });
  } catch (err) {
    reportFailure('handoffd', err);
  }
  exitFinished();
}
