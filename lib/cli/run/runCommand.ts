// `baton run <action>` (docs/runtime.md §4). It is dispatched by bin/baton.ts before yargs
// loads: `baton run status` must start within 1.5× of `node -e 0`, and loading yargs alone
// costs about half of Node's own start-up (docs/decisions.md). Its options are parsed with
// node:util parseArgs (strict: an unknown option is a usage error, exit 1), each action's
// table entry in lib/cli/run/runActionTable.ts. Success prints the run's JSON status; a
// blocking outcome prints the status too, its reason on stderr, exit 2; a refusal prints
// one line and changes nothing.
import { parseArgs } from 'node:util';
import { fail, CommandFailure } from '../../fsx/commandFailure.js';
import { printable } from '../../fsx/printable.js';
import { writeAllSync } from '../../fsx/stdio.js';
import { exitAs, reportFailure } from '../failure.js';
import { OWNER_ACTIONS } from '../../run/owner/ownerActionNames.js';
import { RUN_ACTIONS, type RunAction, type RunValues } from './runActionTable.js';

/** What this bundle compiles before its code cache is saved (lib/cli/codeCache.ts). */
export { warmRunValidators as warmCodeCache } from '../../run/record/validatorWarmup.js';

let printedActionHelp = false;

/**
 * False after `baton run <action> --help`: each action keeps a code cache of its own
 * (lib/cli/codeCache.ts), and one made by printing its usage would leave every later call of the
 * action to compile the action's code.
 */
export function codeCacheWorthy(): boolean {
  return !printedActionHelp;
}

/**
 * Prints to fd 1 without Node's stdout stream, whose first use loads the stream modules: about
 * 5 ms of every `baton run` call the controller and the agents make (lib/fsx/stdio.ts).
 */
const toStdout = (text: string): void => writeAllSync(1, text);

/** `baton run --help`. */
export function runUsage(): string {
  const lines = Object.entries(RUN_ACTIONS).map(([name, a]) => `  ${name.padEnd(16)}${a.describe}`);
  return (
    `Usage: baton run <action> [RUN-ID] [options]\n\nDurable ` +
    `runs: one workflow.json per run decides every ` +
    `transition.\n\nActions:\n${lines.join('\n')}\n\n` +
    ("Every action prints the run's JSON status; refusals print " +
      'one line and change nothing (exit 1: the command line; 2: ' +
      'refused; 75: busy).\n') +
    "Run 'baton run <action> --help' for its options.\n"
  );
}

/** `baton run <action> --help`. */
function actionUsage(name: string, a: RunAction): string {
  return `Usage: baton run ${a.usage}\n\n${a.describe}.\n`;
}

/** The parsed values and positionals of an action's arguments; usage errors name the action. */
export function parseAction(
  name: string,
  a: RunAction,
  args: string[],
): { values: RunValues; positionals: string[]; help: boolean } {
  let parsed: { values: RunValues; positionals: string[] };
  try {
    parsed = parseArgs({
      args,
      options: { ...a.options, help: { type: 'boolean' } },
      allowPositionals: true,
      strict: true,
    }) as typeof parsed;
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    const option = /'(-[^']*)'/.exec(e.message)?.[1] ?? '';
    if (e.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION')
      fail('usage', `unknown option '${printable(option)}'; see baton run ${name} --help`);
    fail('usage', `${printable(e.message.split('. ')[0]!)}; see baton run ${name} --help`);
  }
  if (parsed.values.help === true) return { ...parsed, help: true };
  const needed = a.positionals.filter((p) => !p.endsWith('?')).length;
  if (parsed.positionals.length < needed)
    fail(
      'usage',
      `missing ` +
        `${a.positionals.slice(parsed.positionals.length).join(' ')}; ` +
        `usage: baton run ${a.usage}`,
    );
  if (parsed.positionals.length > a.positionals.length)
    fail(
      'usage',
      `unexpected argument ` +
        `'${parsed.positionals[a.positionals.length]}'; usage: baton ` +
        `run ${a.usage}`,
    );
  return { ...parsed, help: false };
}

/**
 * Prefixes each line of a failure with the command and action (when known): a refusal
 * that names several failed checks (resume, retry) prints one self-contained line each.
 * A usage text (lines holding line breaks of their own) is prefixed on its first line only.
 */
function named(err: unknown, action: string | undefined): unknown {
  if (!(err instanceof CommandFailure)) return err;
  const prefix = `baton run${action === undefined ? '' : ` ${action}`}: `;
  const lines = err.lines.length === 0 ? [err.kind] : err.lines;
  if (lines.some((l) => l.includes('\n')))
    return new CommandFailure(err.kind, [`${prefix}${lines[0]}`, ...lines.slice(1)]);
  return new CommandFailure(
    err.kind,
    lines.map((l) => `${prefix}${l}`),
  );
}

/**
 * Runs `baton run` with its arguments (after `run`), printing through `write`; sets the exit
 * code.
 */
export async function runRunCommand(argv: string[], write = toStdout): Promise<void> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h') {
    write(runUsage());
    if (name === undefined) exitAs('usage');
    return;
  }
  const action = RUN_ACTIONS[name];
  try {
    if (action === undefined)
      fail('usage', `unknown action '${printable(name)}'; see baton run --help`);
    const wantsHelp = rest.includes('--help') || rest.includes('-h');
    // The owner fence comes before anything else about an owner action (runtime.md §11.7).
    if (OWNER_ACTIONS.has(name) && !wantsHelp)
      await (
        await import('../../run/owner/ownerFence.js')
      ).requireOwnerChannel(process.cwd(), process.env, name);
    const { values, positionals, help } = parseAction(name, action, rest);
    if (help) {
      printedActionHelp = true;
      return write(actionUsage(name, action));
    }
    const { runContextOf } = await import('../../run/record/runContext.js');
    const ctx = runContextOf(process.cwd(), process.env);
    if (name === 'status' && values.watch === true)
      return await (await import('./runWatch.js')).watchStatus(ctx, positionals[0]);
    const result = await action.run(ctx, values, positionals);
    if (result === undefined) return; // the action printed its own output (new)
    if (Array.isArray(result)) return write(`${JSON.stringify(result, null, 2)}\n`);
    write(`${JSON.stringify(result.status, null, 2)}\n`);
    if (result.blocked !== undefined) {
      const { redactSecrets } = await import('../../run/gates/redact.js');
      process.stderr.write(
        `baton run ${name}: blocked: ${printable(redactSecrets(result.blocked))}\n`,
      );
      exitAs('refused');
    }
  } catch (err) {
    reportFailure('baton run', named(err, action === undefined ? undefined : name));
  }
}
