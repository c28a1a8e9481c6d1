// The shapes baton's yargs commands share: --json, boolean flags and command groups.
import { type Argv, type CommandModule } from 'yargs';

/** Adds `--json` (print JSON instead of the lines). */
export const json = <T>(y: Argv<T>) =>
  y.option('json', { type: 'boolean', default: false, describe: 'Print JSON' });

/** A boolean option, false unless given. */
export function flag(describe: string) {
  return { type: 'boolean', default: false, describe } as const;
}

/** `baton <name> <command>`: a group of subcommands, one of which must be named. */
export function commandGroup(
  name: string,
  describe: string,
  commands: CommandModule[],
): CommandModule {
  return {
    command: `${name} <command>`,
    describe,
    builder: (y) =>
      y.command(commands).demandCommand(1, `Name a ${name} command; see baton ${name} --help.`),
    handler: () => undefined,
  };
}
