// `baton run new` (docs/runtime.md §12.4): the interactive way into a run. On a terminal it
// asks for what `baton run start` needs (request id, task, repository, spec path,
// acceptance command, base ref, roles), offering the last answers as defaults
// (`.swarmforge/run-defaults.json`, 0600, saved once a start succeeds), shows the resulting
// `start` command, asks to go on, then runs `baton run start` and `baton run up`. Each
// question can be answered by the option of `start` with its name instead; `--yes` asks
// nothing (and needs no terminal). It is not a second state machine: start and up run as
// the built `baton` itself (an argument vector, no shell), their output passes through as
// it is, and a refusal of either is printed as they print it, with its exit code.
// Questions and hints go to stderr: stdout holds the START:/UP: lines and the two commands'
// own output.
import { spawnSync } from 'node:child_process';
import { createInterface, type Interface } from 'node:readline';
import { fail } from '../../fsx/commandFailure.js';
import { printable } from '../../fsx/printable.js';
import { readNoFollow, replaceJson } from '../../fsx/records.js';
import { mkdirSynced } from '../../fsx/durable.js';
import { runDefaultsPathOf, swarmDirOf } from '../../project/layout.js';
import { type RunContext } from '../../run/record/runContext.js';
import { shellWord } from '../../swarm/agentLaunch.js';
import { exitAsCommand } from '../failure.js';
import { type RunValues } from './runActionTable.js';

/** One question: the start option it answers, its words, the default when none was kept. */
interface Question {
  option: string;
  ask: string;
  fallback?: string;
}

/** The questions, in the order they are asked. */
export const RUN_NEW_QUESTIONS: readonly Question[] = [
  { option: 'request', ask: 'Request id' },
  { option: 'task', ask: 'Task' },
  { option: 'repo', ask: 'Repository', fallback: '.' },
  { option: 'spec', ask: 'Spec path' },
  { option: 'acceptance', ask: 'Acceptance command' },
  { option: 'base', ask: 'Base ref', fallback: 'HEAD' },
  { option: 'worker', ask: 'Worker role', fallback: 'worker' },
  { option: 'reviewers', ask: 'Reviewer roles (A,B)', fallback: 'reviewer-a,reviewer-b' },
  { option: 'validator', ask: 'Validator role', fallback: 'validator' },
  { option: 'controller', ask: 'Controller role', fallback: 'controller' },
];

/** start's options that are not asked but passed on when given. */
const PASSED_ON = [
  'stages',
  'max-cycles',
  'acceptance-timeout',
  'retry-attempts',
  'retry-base-ms',
] as const;

/** The answers kept from the last run new; none when the file is missing or not ours. */
export function readRunDefaults(root: string): Record<string, string> {
  let bytes: Buffer | undefined;
  try {
    bytes = readNoFollow(runDefaultsPathOf(root));
  } catch {
    process.stderr.write('baton run new: ignoring run-defaults.json (a symlink or unreadable)\n');
    return {};
  }
  if (bytes === undefined) return {};
  try {
    const data = JSON.parse(bytes.toString('utf8')) as unknown;
    if (typeof data !== 'object' || data === null || Array.isArray(data)) throw new Error();
    const kept: Record<string, string> = {};
    for (const q of RUN_NEW_QUESTIONS) {
      const value = (data as Record<string, unknown>)[q.option];
      if (typeof value === 'string' && value.trim() !== '') kept[q.option] = value;
    }
    return kept;
  } catch {
    process.stderr.write('baton run new: ignoring run-defaults.json (not a JSON object)\n');
    return {};
  }
}

/** Asks one line on the terminal; fails when the input ends first. */
function askLine(rl: Interface, prompt: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const ended = () =>
      reject(new Error('the input ended before every question was answered; nothing started'));
    rl.once('close', ended);
    rl.question(prompt, (answer) => {
      rl.off('close', ended);
      resolve(answer.trim());
    });
  });
}

/** Every answer: from the options, else asked (with its default), else the default (--yes). */
async function gatherAnswers(
  v: RunValues,
  kept: Record<string, string>,
  rl: Interface | undefined,
): Promise<Record<string, string>> {
  const answers: Record<string, string> = {};
  for (const q of RUN_NEW_QUESTIONS) {
    const given = v[q.option];
    if (typeof given === 'string') {
      answers[q.option] = given;
      continue;
    }
    const fallback = kept[q.option] ?? q.fallback;
    if (rl === undefined) {
      if (fallback === undefined)
        fail('usage', `--${q.option} is needed with --yes (there is no one to ask)`);
      answers[q.option] = fallback;
      continue;
    }
    for (;;) {
      const shown = fallback === undefined ? '' : ` [${printable(fallback)}]`;
      const answer = (await askLine(rl, `${q.ask}${shown}: `)) || fallback;
      if (answer !== undefined) {
        answers[q.option] = answer;
        break;
      }
      process.stderr.write(`  ${q.ask.toLowerCase()} has no default: an answer is needed\n`);
    }
  }
  return answers;
}

/** `baton run start`'s arguments for the answers (and the passed-on options). */
export function startArgsOf(answers: Record<string, string>, v: RunValues): string[] {
  const args = ['run', 'start'];
  for (const q of RUN_NEW_QUESTIONS) args.push(`--${q.option}`, answers[q.option]!);
  for (const name of PASSED_ON)
    if (typeof v[name] === 'string') args.push(`--${name}`, v[name] as string);
  return args;
}

/** Runs the built baton with `args`; its stderr passes through, stdout is returned. */
function runBaton(args: string[], cwd: string): { code: number; stdout: string } {
  const r = spawnSync(process.execPath, [process.argv[1]!, ...args], {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return { code: r.status ?? 1, stdout: r.stdout ?? '' };
}

/** The run id in start's JSON status, or undefined. */
function runIdOf(stdout: string): string | undefined {
  try {
    const id = (JSON.parse(stdout) as { run_id?: unknown }).run_id;
    return typeof id === 'string' ? id : undefined;
  } catch {
    return undefined;
  }
}

/** `baton run new`: asks, shows, runs start then up; sets the exit code. */
export async function runNew(ctx: RunContext, v: RunValues): Promise<void> {
  const yes = v.yes === true;
  if (!yes && !process.stdin.isTTY)
    fail('usage', 'stdin is not a terminal: answer with the options of start and --yes');
  const kept = readRunDefaults(ctx.root);
  const rl = yes
    ? undefined
    : createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  try {
    const answers = await gatherAnswers(v, kept, rl);
    const args = startArgsOf(answers, v);
    process.stdout.write(`START: baton ${args.map(shellWord).join(' ')}\n`);
    if (rl !== undefined) {
      const go = (await askLine(rl, 'Start this run and its swarm? [Y/n] ')).toLowerCase();
      if (go !== '' && go !== 'y' && go !== 'yes') {
        process.stderr.write('baton run new: not started; nothing was created\n');
        return;
      }
    }
    rl?.close();
    const started = runBaton(args, ctx.cwd);
    process.stdout.write(started.stdout);
    const runId = runIdOf(started.stdout);
    if (started.code !== 0 || runId === undefined) {
      process.stderr.write(`baton run new: baton run start exited ${started.code}\n`);
      exitAsCommand(started.code || 1);
      return;
    }
    mkdirSynced(swarmDirOf(ctx.root));
    replaceJson(runDefaultsPathOf(ctx.root), answers, { mode: 0o600 });
    const upArgs = ['run', 'up', runId, '--request', answers.request!];
    for (const option of ['ready-timeout', 'agents-user'])
      if (typeof v[option] === 'string') upArgs.push(`--${option}`, v[option]);
    process.stdout.write(`UP: baton ${upArgs.map(shellWord).join(' ')}\n`);
    const up = runBaton(upArgs, ctx.cwd);
    process.stdout.write(up.stdout);
    if (up.code !== 0) {
      process.stderr.write(
        `baton run new: baton run up exited ${up.code}; run ${runId} is started: ` +
          `baton run up ${runId} once the cause is mended\n`,
      );
      exitAsCommand(up.code);
    }
  } catch (err) {
    if (err instanceof Error && err.message.startsWith('the input ended'))
      fail('usage', err.message);
    throw err;
  } finally {
    rl?.close();
  }
}
