// The scripted agent's answers to a run's controller (docs/runtime.md §9): what
// baton-scripted-agent does with a `run_stage`, `run_review`, `run_validate`, `run_resolve`
// or `run_answer` task, so a whole run can go from task to approval without a model. Like
// a real agent it uses only its task's file (the TASK: path ready_for_next printed: the
// request's headers are its front matter), git, and `baton run reply` with a file inside
// its own worktree (`<worktree>/.baton/replies/`, untracked); it never reads or writes run
// state. What it answers is configured by its extra arguments:
//   --ask "QUESTION"   the first run_stage is answered with a question; the stage's work
//                      follows when the run_answer arrives
//   --findings "1=id Severity title;id2 ...|2="   the findings of each review cycle
//   --findings-lane structured|independent|both   the lane(s) that report them (structured)
//   --invalid ID,ID    findings the validator judges invalid (every other listed one is valid)
//   --misbehave KIND[:N][,KIND[:N]]   what real agents do, N times (1 if not said), then it
//                      behaves (docs/runtime.md §11): `malformed` (a run_result queued by hand
//                      into its outbox, around baton run reply's check, naming a file that is
//                      not in the run), `wrong-role` (replies as another kind first), `stale`
//                      (replies for another cycle first), `self-approve` (tries baton run
//                      approve on its run before it answers), `silent` (never answers the
//                      request; a re-sent generation is a new request), `crash` (exits with the
//                      request in process), `slow` (answers after --slow-ms, 3000 when not
//                      said), `edit-while-validating` (the validator changes a tracked file)
// Reply files are deterministic (no time, no commit hash), so a task worked twice (an agent
// restarted before done_with_current) replies with the same bytes, which `baton run reply`
// accepts as the same reply.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { fail } from '../fsx/commandFailure.js';
import { parseEnvelope } from '../queue/index.js';
import { queueSystemHandoff } from '../handoff/systemSend.js';
import { findRoot } from '../project/root.js';

/** The task types a run's controller sends to agents. */
export const RUN_TASK_TYPES = [
  'run_stage',
  'run_review',
  'run_validate',
  'run_resolve',
  'run_answer',
  'run_rejected',
] as const;

/** Whether a task is one of a run's requests. */
export function isRunTask(type: string): boolean {
  return (RUN_TASK_TYPES as readonly string[]).includes(type);
}

/** Which review lane(s) report the configured findings. */
export type FindingsLane = 'structured' | 'independent' | 'both';

/** How the agent answers a run (from its extra arguments). */
export interface RunReplyOptions {
  /** The question asked instead of the first run_stage's work. */
  ask: string | undefined;
  /** The findings of each review cycle, each `<id> <Severity> <title>`. */
  findings: Record<number, string[]>;
  findingsLane: FindingsLane;
  /** Finding ids the validator judges invalid. */
  invalid: string[];
  /** Misbehaviours still to show, each with how many times. */
  misbehave: Partial<Record<Misbehaviour, number>>;
  /** How long a `slow` answer waits. */
  slowMs: number;
}

/** What a real agent does wrong that the scripted agent can show (docs/runtime.md §11). */
export const MISBEHAVIOURS = [
  'malformed',
  'wrong-role',
  'stale',
  'self-approve',
  'silent',
  'crash',
  'slow',
  'edit-while-validating',
] as const;
/** One misbehaviour. */
export type Misbehaviour = (typeof MISBEHAVIOURS)[number];

/** Parses `--misbehave KIND[:N][,KIND[:N]]` (N at least 1, 1 when not said). */
export function parseMisbehaveOption(text: string): Partial<Record<Misbehaviour, number>> {
  const out: Partial<Record<Misbehaviour, number>> = {};
  for (const part of text
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const [kind, times = '1'] = part.split(':');
    if (!(MISBEHAVIOURS as readonly string[]).includes(kind!) || !/^[1-9][0-9]*$/.test(times))
      fail(
        'usage',
        `baton-scripted-agent: --misbehave takes KIND[:N] with KIND one of ` +
          `${MISBEHAVIOURS.join(', ')}, not '${part}'`,
      );
    out[kind as Misbehaviour] = Number(times);
  }
  return out;
}

const FINDING = /^(\S+)\s+(\S+)\s+(\S.*)$/;

/**
 * Parses `--findings`: `CYCLE=FINDING;FINDING|CYCLE=...`, each finding `<id> <Severity> <title>`;
 * an empty entry means none.
 */
export function parseFindingsOption(text: string): Record<number, string[]> {
  const byCycle: Record<number, string[]> = {};
  for (const entry of text
    .split('|')
    .map((e) => e.trim())
    .filter(Boolean)) {
    const eq = entry.indexOf('=');
    const cycle = entry.slice(0, Math.max(eq, 0)).trim();
    if (eq < 0 || !/^[1-9][0-9]*$/.test(cycle))
      fail(
        'usage',
        `baton-scripted-agent: --findings: '${entry}' is not ` +
          `CYCLE=FINDINGS (a cycle of 1 or more, then '=')`,
      );
    if (Number(cycle) in byCycle)
      fail('usage', `baton-scripted-agent: --findings names cycle ${cycle} twice`);
    const findings = entry
      .slice(eq + 1)
      .split(';')
      .map((f) => f.trim())
      .filter(Boolean);
    const bad = findings.find((f) => !FINDING.test(f));
    if (bad !== undefined)
      fail('usage', `baton-scripted-agent: --findings: '${bad}' is not '<id> <Severity> <title>'`);
    byCycle[Number(cycle)] = findings.map((f) => f.replace(/\s+/g, ' '));
  }
  return byCycle;
}

/** The value after `flag`, refusing a flag given without one. */
function optionValue(argv: string[], flag: string): string | undefined {
  const i = argv.indexOf(flag);
  if (i < 0) return undefined;
  const value = argv[i + 1];
  if (value === undefined || value.startsWith('--'))
    fail('usage', `baton-scripted-agent: ${flag} needs a value`);
  return value;
}

/** `--slow-ms`: a whole number of milliseconds (3000 when not said). */
function slowMsOf(text: string | undefined): number {
  if (text === undefined) return 3000;
  if (!/^[0-9]+$/.test(text))
    fail('usage', `baton-scripted-agent: --slow-ms takes a whole number, not '${text}'`);
  return Number(text);
}

/**
 * Reads `--ask`, `--findings`, `--findings-lane` and `--invalid`; refuses (usage) a malformed one.
 */
export function runReplyOptions(argv: string[]): RunReplyOptions {
  const ask = optionValue(argv, '--ask');
  if (ask !== undefined && ask.trim() === '')
    fail('usage', 'baton-scripted-agent: --ask needs a question');
  const lane = optionValue(argv, '--findings-lane') ?? 'structured';
  if (lane !== 'structured' && lane !== 'independent' && lane !== 'both')
    fail(
      'usage',
      `baton-scripted-agent: --findings-lane is structured, independent or both, not '${lane}'`,
    );
  const invalid = (optionValue(argv, '--invalid') ?? '')
    .split(',')
    .map((id) => id.trim())
    .filter(Boolean);
  return {
    ask: ask?.trim(),
    findings: parseFindingsOption(optionValue(argv, '--findings') ?? ''),
    findingsLane: lane,
    invalid,
    misbehave: parseMisbehaveOption(optionValue(argv, '--misbehave') ?? ''),
    slowMs: slowMsOf(optionValue(argv, '--slow-ms')),
  };
}

/**
 * What the agent remembers between tasks: whether it asked its question, and the stage waiting for
 * the answer.
 */
export interface RunAgentState {
  asked: boolean;
  pending?: { runId: string; stage: string; cycle: number };
  /** The requests answered, by key: a run_rejected names the one to answer again. */
  requests?: Record<string, RunRequest>;
}

/** A run request, from its task file: the headers the controller wrote and the body. */
export interface RunRequest {
  type: string;
  runId: string;
  stage: string;
  cycle: number;
  lane?: string;
  body: string;
  /** The request's key (a run_rejected: the key of the request to answer again). */
  key?: string;
  /** The controller role that sent it. */
  from?: string;
}

/**
 * Reads a run request from its task file (front matter headers, then the body); undefined with a
 * reason when a header it needs is missing.
 */
export async function readRunRequest(path: string): Promise<RunRequest | string> {
  const { headers, body } = await parseEnvelope(fs.readFileSync(path));
  const type = headers.type ?? '';
  if (!headers.run_id) return `${type} without a run_id header`;
  if (type !== 'run_answer' && !/^[1-9][0-9]*$/.test(headers.cycle ?? ''))
    return `${type} without a cycle header`;
  if (type === 'run_stage' && !headers.stage) return 'run_stage without a stage header';
  if (type === 'run_review' && headers.lane !== 'structured' && headers.lane !== 'independent')
    return 'run_review without a lane header (structured or independent)';
  const stage = headers.stage ?? (type === 'run_answer' ? '' : 'review');
  return {
    type,
    runId: headers.run_id,
    stage,
    cycle: Number(headers.cycle ?? 0),
    lane: headers.lane,
    body: body.toString('utf8'),
    key: type === 'run_rejected' ? headers.reply_key : headers.key,
    from: headers.from,
  };
}

/**
 * The finding ids a run_validate or run_resolve body lists (lines `- <id> <Severity> (<lane>):
 * <title>`), each once, in order.
 */
export function listedFindingIds(body: string): string[] {
  const ids = body
    .split(/\r?\n/)
    .flatMap((line) => /^- (\S+) \S+ \([^)]*\):/.exec(line)?.[1] ?? []);
  return [...new Set(ids)];
}

/** The kinds of reply. */
export type RunReplyKind = 'work' | 'review' | 'validation' | 'resolution' | 'question';

/** One reply the agent will make: what it says, in which file, and whether it commits first. */
export interface ReplyPlan {
  kind: RunReplyKind;
  runId: string;
  stage: string;
  cycle: number;
  lane?: string;
  fileName: string;
  text: string;
  commit: boolean;
}

/** The reply file's name: `<run>-<stage>-c<cycle>-<kind>[-<lane>].<ext>`. */
export function replyFileName(
  kind: RunReplyKind,
  runId: string,
  stage: string,
  cycle: number,
  lane?: string,
): string {
  const ext =
    kind === 'review' ? 'txt' : kind === 'validation' || kind === 'resolution' ? 'json' : 'md';
  return `${runId}-${stage}-c${cycle}-${kind}${lane ? `-${lane}` : ''}.${ext}`;
}

/** The report of a stage's work (with the answer it was waiting for, if any). */
export function workReportText(
  role: string,
  runId: string,
  stage: string,
  cycle: number,
  answer?: string,
): string {
  return [
    `# Work report: run ${runId}, stage ${stage}, cycle ${cycle}`,
    '',
    `The scripted agent (role ${role}) did the stage's work: an empty commit in its worktree.`,
    ...(answer === undefined ? [] : ['', `It asked a question first and was answered: ${answer}`]),
    '',
  ].join('\n');
}

/** A review lane in text form: `LANE:`, `CYCLE:`, then one `FINDING` line per finding. */
export function laneText(lane: string, cycle: number, findings: string[]): string {
  return [`LANE: ${lane}`, `CYCLE: ${cycle}`, ...findings.map((f) => `FINDING ${f}`), ''].join(
    '\n',
  );
}

/** A validation file judging every id (valid unless listed in `invalid`). */
export function validationText(cycle: number, ids: string[], invalid: string[]): string {
  const findings = ids.map((id) =>
    invalid.includes(id)
      ? { id, valid: false, reason: 'not reproduced by the scripted validator' }
      : { id, valid: true, reason: 'reproduced by the scripted validator' },
  );
  return `${JSON.stringify({ cycle, findings }, null, 2)}\n`;
}

/** A resolution file resolving every id. */
export function resolutionText(cycle: number, ids: string[]): string {
  const resolved = ids.map((id) => ({
    id,
    change: 'fixed by the scripted agent',
    tests: 'a regression test',
  }));
  return `${JSON.stringify({ cycle, resolved }, null, 2)}\n`;
}

function plan(
  kind: RunReplyKind,
  r: { runId: string; stage: string; cycle: number; lane?: string },
  text: string,
  commit = false,
): ReplyPlan {
  return {
    kind,
    runId: r.runId,
    stage: r.stage,
    cycle: r.cycle,
    ...(r.lane ? { lane: r.lane } : {}),
    fileName: replyFileName(kind, r.runId, r.stage, r.cycle, r.lane),
    text,
    commit,
  };
}

/**
 * A person's answer: its note, and the work of the stage that asked, when a question of mine waits
 * for it.
 */
function answerPlan(
  role: string,
  state: RunAgentState,
  req: RunRequest,
): { notes: string[]; reply?: ReplyPlan } {
  const answer = req.body.trim().split(/\r?\n/).join(' ');
  const pending = state.pending;
  delete state.pending;
  const notes = [
    `answer: ${answer}`,
    ...(pending ? [] : ['no question of mine is waiting for it']),
  ];
  if (!pending) return { notes };
  const report = workReportText(role, pending.runId, pending.stage, pending.cycle, answer);
  return { notes, reply: plan('work', pending, report, true) };
}

/**
 * What to do with a run request: the lines to note and the reply to make (none while waiting, or
 * for an answer nobody waits for). Updates `state`.
 */
export function planRunReply(
  role: string,
  options: RunReplyOptions,
  state: RunAgentState,
  req: RunRequest,
): { notes: string[]; reply?: ReplyPlan } {
  switch (req.type) {
    case 'run_stage':
      if (options.ask !== undefined && !state.asked) {
        state.asked = true;
        state.pending = { runId: req.runId, stage: req.stage, cycle: req.cycle };
        return { notes: [], reply: plan('question', req, `${options.ask}\n`) };
      }
      return {
        notes: [],
        reply: plan('work', req, workReportText(role, req.runId, req.stage, req.cycle), true),
      };
    case 'run_answer':
      return answerPlan(role, state, req);
    case 'run_review': {
      const reports = options.findingsLane === 'both' || options.findingsLane === req.lane;
      return {
        notes: [],
        reply: plan(
          'review',
          req,
          laneText(req.lane!, req.cycle, reports ? (options.findings[req.cycle] ?? []) : []),
        ),
      };
    }
    case 'run_validate':
      return {
        notes: [],
        reply: plan(
          'validation',
          req,
          validationText(req.cycle, listedFindingIds(req.body), options.invalid),
        ),
      };
    case 'run_resolve':
      return {
        notes: [],
        reply: plan('resolution', req, resolutionText(req.cycle, listedFindingIds(req.body)), true),
      };
    default:
      return { notes: [`not a run request: ${req.type}`] };
  }
}

/** What a command did: whether it exited 0, and its output (stdout then stderr). */
export interface CommandResult {
  ok: boolean;
  output: string;
}

/** The commands the agent runs (git and baton from PATH, in its worktree); replaceable in tests. */
export interface RunCommands {
  run: (command: 'git' | 'baton', args: string[], cwd: string) => CommandResult;
  /** Kills the agent there and then, its request in process (the `crash` misbehaviour). */
  crash: () => never;
}

/** Runs git and baton for real (an argument vector, no shell). */
export const REAL_COMMANDS: RunCommands = {
  run: (command, args, cwd) => {
    try {
      return {
        ok: true,
        output: execFileSync(command, args, {
          cwd,
          encoding: 'utf8',
          stdio: ['ignore', 'pipe', 'pipe'],
        }),
      };
    } catch (err) {
      const e = err as { stdout?: string; stderr?: string; message?: string };
      return { ok: false, output: `${e.stdout ?? ''}${e.stderr ?? ''}` || (e.message ?? 'failed') };
    }
  },
  crash: () => {
    process.kill(process.pid, 'SIGKILL');
    throw new Error('still alive after SIGKILL');
  },
};

/** Writes a reply file into `<worktree>/.baton/replies/` (made if missing); returns its path. */
export function writeReplyFile(worktree: string, fileName: string, text: string): string {
  const dir = join(worktree, '.baton', 'replies');
  fs.mkdirSync(dir, { recursive: true });
  const path = join(dir, fileName);
  fs.writeFileSync(path, text);
  return path;
}

const firstLine = (text: string) => text.trim().split('\n')[0] ?? '';

/**
 * Makes a planned reply in the worktree of `cwd`: the commit (if any), the file, `baton run reply`;
 * returns the line to print.
 */
export function makeReply(
  role: string,
  p: ReplyPlan,
  cwd: string,
  commands: RunCommands = REAL_COMMANDS,
): string {
  const what =
    `${p.kind} for run ${p.runId} stage ${p.stage} cycle ` +
    `${p.cycle}${p.lane ? ` lane ${p.lane}` : ''}`;
  const top = commands.run('git', ['rev-parse', '--show-toplevel'], cwd);
  if (!top.ok) return `reply ${what} failed: no git worktree here: ${firstLine(top.output)}`;
  if (p.commit) {
    const commit = commands.run(
      'git',
      [
        'commit',
        '-q',
        '--allow-empty',
        '-m',
        `${role}: ${p.kind} of run ${p.runId} stage ${p.stage} cycle ${p.cycle}`,
      ],
      cwd,
    );
    if (!commit.ok) return `reply ${what} failed: git commit: ${firstLine(commit.output)}`;
  }
  const file = writeReplyFile(top.output.trim(), p.fileName, p.text);
  const args = [
    'run',
    'reply',
    p.runId,
    '--kind',
    p.kind,
    '--stage',
    p.stage,
    '--cycle',
    String(p.cycle),
    ...(p.lane ? ['--lane', p.lane] : []),
    '--file',
    file,
  ];
  const reply = commands.run('baton', args, cwd);
  if (!reply.ok) return `reply ${what} failed: ${firstLine(reply.output)}`;
  return (
    `replied ` +
    `${what}${p.kind === 'question' ? ` (waiting for the answer): ${firstLine(p.text)}` : ''}`
  );
}

/** Takes one showing of `kind` when any is left; true when the agent misbehaves now. */
function takeMisbehaviour(options: RunReplyOptions, kind: Misbehaviour): boolean {
  const left = options.misbehave[kind] ?? 0;
  if (left <= 0) return false;
  options.misbehave[kind] = left - 1;
  return true;
}

/**
 * A run_result written by hand into the agent's outbox (as an agent writing the file itself
 * would), around `baton run reply`'s checks, naming an artifact that is not in the run.
 */
async function queueByHand(role: string, req: RunRequest, p: ReplyPlan, cwd: string) {
  const root = findRoot(cwd, process.env);
  const artifact = `artifacts/${p.fileName}`;
  await queueSystemHandoff(root, role, {
    to: [req.from ?? 'controller'],
    priority: '40',
    type: 'run_result',
    headers: {
      run_id: p.runId,
      stage: p.stage,
      cycle: String(p.cycle),
      kind: p.kind,
      ...(p.lane ? { lane: p.lane } : {}),
      key: req.key ?? '',
      artifact,
      sha256: '0'.repeat(64),
    },
    body: `${p.kind} reply of ${role}, by hand\n`,
  });
  return `queued a ${p.kind} reply by hand (malformed: ${artifact} is not in the run)`;
}

/**
 * What a misbehaving agent does before (or instead of) its reply: the lines to say, and whether
 * the proper reply follows now (a hand-queued reply waits for its run_rejected).
 */
async function misbehave(
  [role, options, req]: [string, RunReplyOptions, RunRequest],
  p: ReplyPlan,
  cwd: string,
  commands: RunCommands,
): Promise<{ lines: string[]; replyNow: boolean }> {
  const lines: string[] = [];
  if (takeMisbehaviour(options, 'silent'))
    return { lines: [`silent: not answering ${req.type} ${req.key ?? ''}`], replyNow: false };
  if (takeMisbehaviour(options, 'crash')) return commands.crash();
  if (takeMisbehaviour(options, 'slow')) {
    await new Promise((done) => setTimeout(done, options.slowMs));
    lines.push(`slow: answering after ${options.slowMs} ms`);
  }
  if (p.kind === 'validation' && takeMisbehaviour(options, 'edit-while-validating'))
    lines.push(editTrackedFile(cwd, commands));
  if (takeMisbehaviour(options, 'self-approve')) {
    const r = commands.run('baton', ['run', 'approve', p.runId], cwd);
    lines.push(`tried baton run approve ${p.runId}: ${firstLine(r.output) || 'exit 0'}`);
  }
  if (p.kind !== 'question' && takeMisbehaviour(options, 'malformed'))
    return { lines: [...lines, await queueByHand(role, req, p, cwd)], replyNow: false };
  if (takeMisbehaviour(options, 'wrong-role')) {
    const other = p.kind === 'validation' ? 'resolution' : 'validation';
    const wrong = { ...p, kind: other as RunReplyKind, lane: undefined, stage: 'review' };
    lines.push(`first as the wrong role: ${makeReply(role, wrong, cwd, commands)}`);
  }
  if (takeMisbehaviour(options, 'stale')) {
    const stale = { ...p, cycle: p.cycle > 1 ? p.cycle - 1 : p.cycle + 1 };
    lines.push(`first for another cycle: ${makeReply(role, stale, cwd, commands)}`);
  }
  return { lines, replyNow: true };
}

/** Appends a line to the first tracked file of the worktree (a validator that writes). */
function editTrackedFile(cwd: string, commands: RunCommands): string {
  const top = commands.run('git', ['rev-parse', '--show-toplevel'], cwd).output.trim();
  const first = commands.run('git', ['ls-files'], cwd).output.split('\n')[0];
  if (!top || !first) return 'edit-while-validating: no tracked file to change';
  fs.appendFileSync(join(top, first), 'edited by the validator while validating\n');
  return `edited ${first} while validating`;
}

/** The request a run_rejected names, to answer again; a reason when it is not known. */
function rejectedRequest(state: RunAgentState, req: RunRequest): RunRequest | string {
  const original = req.key === undefined ? undefined : state.requests?.[req.key];
  return original ?? `a run_rejected for a request I did not answer (${req.key ?? 'no key'})`;
}

/** Answers one run task (its file at `path`): prints `[role] ...` lines through `say`. */
export async function answerRunTask(
  role: string,
  options: RunReplyOptions,
  state: RunAgentState,
  path: string,
  say: (line: string) => void,
  cwd = process.cwd(),
  commands: RunCommands = REAL_COMMANDS,
): Promise<void> {
  let req: RunRequest | string;
  try {
    req = await readRunRequest(path);
  } catch (err) {
    req = `unreadable task file: ${(err as Error).message}`;
  }
  if (typeof req !== 'string' && req.type === 'run_rejected') req = rejectedRequest(state, req);
  if (typeof req === 'string') {
    say(`[${role}] ignored ${path}: ${req}`);
    return;
  }
  if (req.key !== undefined) (state.requests ??= {})[req.key] = req;
  const { notes, reply } = planRunReply(role, options, state, req);
  for (const note of notes) say(`[${role}] ${note}`);
  if (!reply) return;
  const shown = await misbehave([role, options, req], reply, cwd, commands);
  for (const line of shown.lines) say(`[${role}] ${line}`);
  if (shown.replyNow) say(`[${role}] ${makeReply(role, reply, cwd, commands)}`);
}
