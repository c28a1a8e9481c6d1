// Figure 10: the run runtime's commands against a bare `node -e 0` (docs/runtime.md):
// (a) `baton run status` (the record read and checked against the schema, every digest
// recomputed); (b–d, g) the mutating actions a controller or owner repeats most (a lease
// heartbeat, a provider report, an owner's pause, an owner's resume; each a locked
// read-check-write with fsyncs); (e) `status` of a record with 1,000 artifacts (1,000 files
// hashed); (f) an agent's `baton run reply` (its file checked, kept as an immutable artifact,
// a run_result queued), each sample answering its own run's work request.
//
// Pause and resume are two figures. Taken in turn as one, the median of 21 samples (11 of
// them resumes) was the fastest resume. Every mutating figure is timed beside its floor
// (bench/support/durableFloor.ts): a bare Node process making the action's durable steps (its
// lock, each file written and fsync'd, each rename, each folder fsync'd) and, for a resume,
// the one `git status` it must run (runtime.md §7: HEAD and no modified tracked file), run
// the way Baton runs it. The floor prints under the figure.
//
// After the figures, a design probe without a verdict (bench/support/residentRunner.ts): what
// a call handed to a resident runner would cost its client, and a heartbeat's work in a warm
// process (docs/decisions.md, "What the run goals would need").
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { BIN_DIR, tempDir } from '../../test/support/project.js';
import { makeRunRepo } from '../../test/support/runs.js';
import { SNAPSHOT_STATUS } from '../../lib/run/gates/repoState.js';
import {
  floorContender,
  pauseFloor,
  recordFloor,
  replyFloor,
  type Floor,
} from '../support/durableFloor.js';
import { interleave, medianAlone } from '../support/interleave.js';
import { startResidentRunner } from '../support/residentRunner.js';
import { runRunCommand } from '../../lib/cli/run/runCommand.js';
import {
  atMost,
  figureOf,
  printFigure,
  printHeading,
  withFloor,
  type Figure,
} from '../support/report.js';
import { expectRun, ownerEnv, nodeStartContender, timedNode } from '../support/spawnNode.js';
import { formatMs, summarize } from '../support/stats.js';

const WARMUP = 3;
const RUNS = 21;
const ARTIFACTS = 1_000;

/** `baton run ARGS` in `root`, synchronously, for setting up; returns its JSON status. */
function setUp(root: string, args: string[]): Record<string, any> {
  return JSON.parse(
    execFileSync(process.execPath, [join(BIN_DIR, 'baton.js'), 'run', ...args], {
      cwd: root,
      encoding: 'utf8',
      env: ownerEnv(),
    }),
  ) as Record<string, any>;
}

/**
 * A run of `request` with its lease held by this process, past one checkpoint (so pause is
 * immediate).
 */
function preparedRun(root: string, request = 'bench'): { runId: string; token: string } {
  const runId = setUp(root, [
    'start',
    '--request',
    request,
    '--task',
    'bench',
    '--spec',
    'spec.md',
    '--acceptance',
    'node accept.mjs',
  ]).run_id as string;
  const token = setUp(root, ['lease', runId, 'acquire', '--pid', String(process.pid)]).lease
    .token as string;
  setUp(root, ['stage-start', runId, 'implementation', '--lease', token]);
  setUp(root, ['acceptance', runId, '--lease', token]);
  fs.writeFileSync(join(root, 'work.md'), 'work\n');
  setUp(root, [
    'checkpoint',
    runId,
    'implementation',
    '--artifact',
    'work.md:work',
    '--lease',
    token,
  ]);
  return { runId, token };
}

/** How a figure's samples are taken beyond its argument vectors. */
interface MeasureOptions {
  env?: NodeJS.ProcessEnv;
  /** Untimed, before each sample (e.g. pausing the run a timed resume resumes). */
  prepare?: () => void;
  /** Untimed, after each sample (e.g. resuming the run a timed pause paused). */
  reset?: () => void;
  /** A third contender timed in the same rounds, printed under the figure as its floor. */
  floor?: Floor;
}

/** One figure: `args` (a list of argument vectors taken in turn) against node -e 0. */
async function measure(
  section: string,
  name: string,
  root: string,
  argsInTurn: string[][],
  goal: number,
  { env = ownerEnv(), prepare, reset, floor }: MeasureOptions = {},
): Promise<Figure> {
  const baton = join(BIN_DIR, 'baton.js');
  let turn = 0;
  const [subject, base, floorMs] = await interleave(
    [
      {
        name,
        prepare,
        run: async () =>
          expectRun(
            name,
            await timedNode([baton, 'run', ...argsInTurn[turn++ % argsInTurn.length]!], root, env),
            '{',
          ),
        reset,
      },
      nodeStartContender(root, env),
      ...(floor === undefined ? [] : [floorContender(floor, root, env)]),
    ],
    WARMUP,
    RUNS,
  );
  const figure = figureOf(
    section,
    name,
    summarize(subject!),
    'node -e 0',
    summarize(base!),
    atMost(goal),
  );
  printFigure(figure);
  return floor === undefined ? figure : withFloor(figure, floor.name, summarize(floorMs!));
}

/** Registers ARTIFACTS files into the run's record (as `artifact` would, in one write). */
function manyArtifacts(root: string, runId: string): void {
  const dir = join(root, '.swarmforge', 'runs', runId);
  const record = JSON.parse(fs.readFileSync(join(dir, 'workflow.json'), 'utf8')) as {
    artifacts: unknown[];
  };
  for (let i = 0; i < ARTIFACTS; i++) {
    const rel = `artifacts/bench-${i}.json`;
    const bytes = JSON.stringify({ kind: 'bench', n: i });
    fs.writeFileSync(join(dir, rel), bytes);
    record.artifacts.push({
      path: rel,
      sha256: createHash('sha256').update(bytes).digest('hex'),
      type: 'bench',
      producer: 'bench',
    });
  }
  fs.writeFileSync(join(dir, 'workflow.json'), `${JSON.stringify(record, null, 2)}\n`);
}

/**
 * Runs whose implementation stage is started (the worker's work awaited), one per sample of
 * the reply figure: a run takes one work reply.
 */
function runsAwaitingWork(root: string, count: number): string[] {
  fs.writeFileSync(join(root, 'work.md'), 'the work\n');
  return Array.from({ length: count }, (_, i) => {
    const runId = setUp(root, [
      'start',
      ...['--request', `reply-${i}`, '--task', 'bench', '--spec', 'spec.md'],
      ...['--acceptance', 'node accept.mjs'],
    ]).run_id as string;
    const token = setUp(root, ['lease', runId, 'acquire', '--pid', String(process.pid)]).lease
      .token as string;
    setUp(root, ['stage-start', runId, 'implementation', '--lease', token]);
    return runId;
  });
}

/**
 * What a resident runner would cost (decisions.md, "What the run goals would need"), printed
 * without a verdict: its clients' hand-off against `node -e 0`, and a heartbeat's work as the
 * runner would do it, `runRunCommand` in this warm process (on a run of its own, its output
 * kept in memory).
 */
async function residentRunnerProbe(root: string, scratch: string): Promise<void> {
  const runner = await startResidentRunner(join(scratch, 'runner'), ownerEnv());
  try {
    const [nodeMs, fifoMs, socketMs] = await interleave(
      [nodeStartContender(root, ownerEnv()), runner.fifoClient, runner.socketClient],
      WARMUP,
      RUNS,
    );
    const base = summarize(nodeMs!).median;
    const { runId, token } = preparedRun(root, 'bench-runner');
    let printed = '';
    const from = process.cwd();
    process.chdir(root);
    const warm = await medianAlone(
      async () => {
        printed = '';
        await runRunCommand(['lease', runId, 'heartbeat', '--lease', token], (text) => {
          printed += text;
        });
        if (!printed.startsWith('{')) throw new Error(`a warm heartbeat printed ${printed}`);
      },
      WARMUP,
      RUNS,
    ).finally(() => process.chdir(from));
    console.log('  a resident runner (not built; a design probe, no goal):');
    for (const [what, ms] of [
      [runner.fifoClient.name, fifoMs!],
      [runner.socketClient.name, socketMs!],
    ] as const) {
      const median = summarize(ms).median;
      const ratio = (median / base).toFixed(2);
      console.log(`    ${what} handing a call over: ${formatMs(median)}, ${ratio}× node -e 0`);
    }
    const fifo = summarize(fifoMs!).median;
    console.log(`    a heartbeat's work in a warm process: ${formatMs(warm)}`);
    console.log(
      `    so a heartbeat handed over through the FIFO: about ${formatMs(fifo + warm)}, ` +
        `${((fifo + warm) / base).toFixed(2)}× node -e 0 (goal of 10b: ≤ 1.3×)`,
    );
  } finally {
    await runner.stop();
  }
}

/** Measures status, the mutating actions (each beside its floor), and status over 1,000 artifacts. */
export async function benchRuns(): Promise<Figure[]> {
  printHeading('10. Runs: baton run status and mutating actions vs node -e 0');
  const root = makeRunRepo();
  const scratch = tempDir('baton-bench-floors-');
  const floorIn = (name: string) => join(scratch, name);
  try {
    const { runId, token } = preparedRun(root);
    const figures = [
      await measure('10a', 'run status', root, [['status', runId]], 1.3),
      await measure(
        '10b',
        'run lease heartbeat',
        root,
        [['lease', runId, 'heartbeat', '--lease', token]],
        1.3,
        { floor: recordFloor(floorIn('heartbeat'), "a heartbeat's durable steps") },
      ),
      await measure(
        '10c',
        'run provider --succeeded',
        root,
        [['provider', runId, '--name', 'p', '--succeeded', '--lease', token]],
        1.3,
        { floor: recordFloor(floorIn('provider'), "a provider report's durable steps") },
      ),
      await measure('10d', 'run pause', root, [['pause', runId]], 1.3, {
        reset: () => void setUp(root, ['resume', runId]),
        floor: pauseFloor(floorIn('pause')),
      }),
      await measure('10g', 'run resume', root, [['resume', runId]], 1.3, {
        prepare: () => void setUp(root, ['pause', runId]),
        floor: recordFloor(floorIn('resume'), "a resume's git status and durable steps", {
          before: [['git', [...SNAPSHOT_STATUS]]],
        }),
      }),
    ];
    const replying = runsAwaitingWork(root, WARMUP + RUNS);
    figures.push(
      await measure(
        '10f',
        'run reply (an agent, one work reply)',
        root,
        replying.map((id) => [
          'reply',
          id,
          ...['--kind', 'work', '--stage', 'implementation', '--cycle', '1', '--file', 'work.md'],
        ]),
        1.2,
        { env: { ...ownerEnv(), SWARMFORGE_ROLE: 'worker' }, floor: replyFloor(floorIn('reply')) },
      ),
    );
    await residentRunnerProbe(root, scratch);
    manyArtifacts(root, runId);
    figures.push(
      await measure(
        '10e',
        `run status, ${ARTIFACTS.toLocaleString('en')} artifacts`,
        root,
        [['status', runId]],
        3,
      ),
    );
    return figures;
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}
