// Entry point shared by the three agent bins. They parse argv by hand (no yargs) because
// an agent pays their start-up on every call; see bench/figures/startup.ts.
import { fail } from '../fsx/commandFailure.js';
import { writeAllSync } from '../fsx/stdio.js';
import { batonVersion } from '../proc/version.js';
import { type UnusableItem, unusableLine } from '../queue/index.js';
import { reportFailure } from './failure.js';

/** One agent command: its name, usage, accepted positional count and action. */
export interface AgentCommand {
  program: string;
  usage: string;
  minArgs: number;
  maxArgs: number;
  run: (args: string[], onSkip: (problem: UnusableItem) => void) => Promise<Buffer | string>;
}

/** Reports an unusable entry on stderr (`skipping ...` or `quarantined ...`, made printable). */
export function reportUnusable(problem: UnusableItem): void {
  process.stderr.write(`${unusableLine(problem)}\n`);
}

/**
 * Parses argv (`--help`/`-h`: the usage, `--version`: the package version), runs the command,
 * prints stdout bytes (through `writeOut`: fd 1, without Node's stream) or the failure; sets
 * process.exitCode.
 */
export async function runAgentCommand(
  command: AgentCommand,
  argv = process.argv.slice(2),
  writeOut: (data: string | Uint8Array) => void = (data) => writeAllSync(1, data),
): Promise<void> {
  if (argv.includes('--help') || argv.includes('-h')) {
    writeOut(`${command.usage}\n`);
    return;
  }
  if (argv.includes('--version')) {
    writeOut(`${batonVersion()}\n`);
    return;
  }
  try {
    if (
      argv.length < command.minArgs ||
      argv.length > command.maxArgs ||
      argv.some((a) => a.startsWith('--'))
    )
      fail('usage', command.usage);
    writeOut(await command.run(argv, reportUnusable));
  } catch (err) {
    reportFailure(command.program, err);
  }
}
