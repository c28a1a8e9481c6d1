// The scripted agent: the test double for a real agent (claude, codex) in a pane. It
// reacts to each wake-up line on stdin (and once at start) by running ready_for_next,
// "works" briefly on each task, commits in its worktree, hands the work on with
// swarm_handoff (a git_handoff to --next, or a note to --final) or, with --review, submits
// it for review (`baton review submit`), and runs done_with_current <id> until NO_TASK. A
// `review_result` it receives is only noted. A run's requests (run_stage, run_review,
// run_validate, run_resolve, run_answer) it answers with `baton run reply`
// (lib/scripted/scriptedRunReplies.ts). It uses only the commands a real agent uses.
// `--help` prints its usage and `--version` the package version, without starting.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { batonVersion } from '../proc/version.js';
import {
  answerRunTask,
  isRunTask,
  runReplyOptions,
  type RunAgentState,
  type RunReplyOptions,
} from './scriptedRunReplies.js';

/** The scripted agent's usage (`baton-scripted-agent --help`). */
export const SCRIPTED_AGENT_USAGE = `Usage: baton-scripted-agent [--next ROLE] [--final ROLE]
         [--review] [--work-ms N]
         [--ask QUESTION] [--findings 'CYCLE=ID SEVERITY TITLE;...|CYCLE=...']
         [--findings-lane structured|independent|both] [--invalid ID,ID]
         [--misbehave KIND[:N][,KIND[:N]]] [--slow-ms N]

A stand-in for a real agent in a swarm pane (the demo's and the tests' agent), started as
the agent of a role in swarmforge.conf. It runs ready_for_next at start and whenever a
line read from stdin mentions ready_for_next (a wake-up), works N milliseconds on each
task (default 150), commits in its worktree, hands the work on with swarm_handoff (a
git_handoff to --next, a note to --final), or with --review submits its output for review
(baton review submit; each 'FINDING: SEVERITY section: text' or 'FINDING(cto): ...' part
of a task message becomes a line of the output), and runs done_with_current <id> until
NO_TASK. Uses $SWARMFORGE_ROLE.

A run's requests it answers with baton run reply, the reply file written under
.baton/replies/ in its worktree: run_stage with an empty commit and a work report (with
--ask, the first run_stage gets the question instead, and its work follows the run_answer);
run_review with a lane file of the cycle's --findings (an empty entry or none: no
findings), reported by the structured lane unless --findings-lane says otherwise;
run_validate judging every listed finding valid except the --invalid ones; run_resolve
with an empty commit and every listed finding resolved.

--misbehave makes it do what real agents do, N times (1 when not said), then behave:
malformed (a run_result queued by hand into its outbox, around baton run reply's checks;
the run_rejected that answers it makes the agent reply again properly), wrong-role (a
reply of another kind first), stale (a reply for another cycle first), self-approve (baton
run approve on its run before it answers), silent (the request is never answered; a re-sent
generation is a new request), crash (the agent is killed with the request in process), slow
(the answer waits --slow-ms, default 3000), edit-while-validating (the validator changes
a tracked file before it answers).`;

/** One task as printed by ready_for_next / done_with_current. */
export interface PrintedTask {
  path: string;
  type: string;
  taskName?: string;
  payload: string;
}

/** Parses the TASK blocks (and the BATCH path, if any) out of ready_for_next's output. */
export function parseTasks(output: string): { batch?: string; tasks: PrintedTask[] } {
  const batch = /^BATCH: (.+)$/m.exec(output)?.[1];
  const tasks: PrintedTask[] = [];
  const blocks = output.split(/^(?=TASK: )/m).filter((b) => b.startsWith('TASK: '));
  for (const block of blocks) {
    const payload = block.split(/^PAYLOAD:\n/m)[1] ?? '';
    tasks.push({
      path: /^TASK: (.+)$/m.exec(block)![1]!,
      type: /^TYPE: (.+)$/m.exec(block)?.[1] ?? 'unknown',
      taskName: /^TASK_NAME: (.+)$/m.exec(block)?.[1],
      payload: payload.replace(/\n\nBATCH_ITEM: \d+\n?$/, '\n'),
    });
  }
  return { batch, tasks };
}

/** The agent's settings (from its extra arguments in swarmforge.conf). */
export interface AgentSettings {
  role: string;
  next?: string;
  final?: string;
  /** Submit each piece of work for review instead of handing it on. */
  review: boolean;
  workMs: number;
  /** How it answers a run's requests. */
  run: RunReplyOptions;
}

/**
 * Parses `--next ROLE`, `--final ROLE`, `--work-ms N`, `--review` and the run options (`--ask`,
 * `--findings`, `--findings-lane`, `--invalid`; a malformed one is refused).
 */
export function agentSettings(argv: string[], env: NodeJS.ProcessEnv): AgentSettings {
  const value = (flag: string) => {
    const i = argv.indexOf(flag);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  return {
    role: env.SWARMFORGE_ROLE ?? 'agent',
    next: value('--next'),
    final: value('--final'),
    review: argv.includes('--review'),
    workMs: Number(value('--work-ms') ?? 150),
    run: runReplyOptions(argv),
  };
}

function run(command: string, args: string[]): string {
  try {
    return execFileSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string };
    return `${e.stdout ?? ''}${e.stderr ?? ''}`;
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let drafts = 0;

function send(settings: AgentSettings, lines: string[]): void {
  drafts += 1;
  const draft = join(tmpdir(), `baton-agent-${settings.role}-${process.pid}-${drafts}.txt`);
  fs.writeFileSync(draft, lines.join('\n') + '\n');
  process.stdout.write(run('swarm_handoff', [draft]));
}

/**
 * Submits a piece of work for review; each `FINDING: ...` (or `FINDING(cto|coo): ...`) part of the
 * task's message goes into the output on a line of its own.
 */
function submitForReview(settings: AgentSettings, message: string): void {
  const [name, ...findings] = message.split(/ (?=FINDING(?:\((?:cto|coo)\))?: )/);
  drafts += 1;
  const output = join(tmpdir(), `baton-agent-${settings.role}-${process.pid}-${drafts}.out`);
  fs.writeFileSync(output, `Implemented ${name}.\n${findings.map((f) => `${f}\n`).join('')}`);
  const submitted = run('baton', ['review', 'submit', '--task', name!, '--output-file', output]);
  fs.rmSync(output, { force: true }); // the bookbag holds its text now
  process.stdout.write(`[${settings.role}] submitted ${name} for review: ${submitted.trim()}\n`);
}

async function work(
  settings: AgentSettings,
  task: PrintedTask,
  state: RunAgentState,
): Promise<void> {
  if (isRunTask(task.type)) {
    await answerRunTask(settings.role, settings.run, state, task.path, (line) =>
      process.stdout.write(`${line}\n`),
    );
    return;
  }
  const message = task.payload.trim().split('\n').pop() ?? '';
  if ((task.type === 'note' && message.startsWith('QA passed')) || task.type === 'review_result') {
    process.stdout.write(
      `[${settings.role}] noted: ` +
        `${task.type === 'review_result' ? task.payload.trim().split('\n')[0] : message}\n`,
    );
    return;
  }
  const name = task.taskName ?? message;
  process.stdout.write(`[${settings.role}] working on ${name}\n`);
  await sleep(settings.workMs);
  run('git', ['commit', '-q', '--allow-empty', '-m', `${settings.role}: ${name}`]);
  const commit = run('git', ['rev-parse', '--short=10', 'HEAD']).trim();
  if (settings.next)
    send(settings, [
      'type: git_handoff',
      `to: ${settings.next}`,
      'priority: 50',
      `task: ${name}`,
      `commit: ${commit}`,
    ]);
  if (settings.final)
    send(settings, [
      'type: note',
      `to: ${settings.final}`,
      'priority: 50',
      `message: QA passed ${name}`,
    ]);
  if (settings.review) submitForReview(settings, name);
}

/** What the agent remembers across tasks (the run question it asked). */
export function newAgentState(): RunAgentState {
  return { asked: false };
}

/** Runs ready_for_next, works through everything it hands out, until NO_TASK. */
export async function drainInbox(
  settings: AgentSettings,
  state: RunAgentState = newAgentState(),
): Promise<void> {
  let output = run('ready_for_next', []);
  for (;;) {
    const { batch, tasks } = parseTasks(output);
    if (tasks.length === 0) {
      process.stdout.write(`[${settings.role}] idle (${output.trim().split('\n')[0]})\n`);
      return;
    }
    for (const task of tasks) await work(settings, task, state);
    const id = batch ? batch.split('/').pop()! : tasks[0]!.path.split('/').pop()!;
    output = run('done_with_current', [id]);
  }
}

/**
 * What `--help`/`-h` (the usage) or else `--version` (the package version) asks for, as stdout
 * text; undefined when the agent should start.
 */
export function answerWithoutStarting(argv: string[]): string | undefined {
  if (argv.includes('--help') || argv.includes('-h')) return `${SCRIPTED_AGENT_USAGE}\n`;
  if (argv.includes('--version')) return `${batonVersion()}\n`;
  return undefined;
}

/**
 * The agent's main loop: drain once, then again after every wake-up line (unless --help or
 * --version asked for an answer only).
 */
export async function runScriptedAgent(argv: string[], env: NodeJS.ProcessEnv): Promise<void> {
  const answer = answerWithoutStarting(argv);
  if (answer !== undefined) {
    process.stdout.write(answer);
    return;
  }
  const settings = agentSettings(argv, env);
  const state = newAgentState();
  process.stdout.write(`[${settings.role}] scripted agent ready\n`);
  let running = Promise.resolve();
  let queued = false;
  const trigger = () => {
    if (queued) return;
    queued = true;
    running = running.then(async () => {
      queued = false;
      await drainInbox(settings, state);
    });
  };
  trigger();
  const lines = createInterface({ input: process.stdin });
  for await (const line of lines) if (line.includes('ready_for_next')) trigger();
  await running;
}
