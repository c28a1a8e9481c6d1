// Figure 1: start-up of the agent commands against a bare `node -e 0` (issue 22's goal:
// each ≤ 1.2×). An agent pays this on every call, so each bin must stay close to Node's own
// start-up: (a) `ready_for_next` on an empty inbox, (b) claiming one item, (c)
// `done_with_current` completing one (`swarm_handoff` is figure 3b).
// Each is measured as an agent calls it after its first task: the agent commands keep V8's
// code cache per command, made by the first call that did the command's work
// (lib/cli/codeCache.ts), so one untimed claim and completion come first. Without that, a
// fresh build's idle `ready_for_next` compiled its bundle from source in every sample.
// A claim and a completion are timed beside their floor (bench/support/durableFloor.ts): a
// bare Node process making the same durable steps, printed under the figure.
import * as fs from 'node:fs';
import { join } from 'node:path';
import { BIN_DIR, makeProject, tempDir, type Project } from '../../test/support/project.js';
import {
  claimFloor,
  completionFloor,
  floorContender,
  type Floor,
} from '../support/durableFloor.js';
import { handoffFile, type HandoffFile } from '../support/handoffFiles.js';
import { interleave, type Contender } from '../support/interleave.js';
import {
  atMost,
  figureOf,
  printFigure,
  printHeading,
  withFloor,
  type Figure,
} from '../support/report.js';
import { agentEnv, expectRun, nodeStartContender, timedNode } from '../support/spawnNode.js';
import { summarize } from '../support/stats.js';

const WARMUP = 5;
const RUNS = 30;
const ROLE = 'reviewer';
const GOAL = 1.2;

/** Removes every entry of the role's inbox folders (untimed), so each run starts alike. */
function emptyInbox(project: Project): void {
  const box = project.box(ROLE);
  for (const dir of [box.inboxNew, box.inProcess, box.completed])
    for (const name of fs.readdirSync(dir)) fs.rmSync(join(dir, name), { force: true });
}

/** One figure: `bin` (with `prepare` before each run) against node -e 0 (and its floor), interleaved. */
async function measure(
  id: string,
  label: string,
  project: Project,
  bin: string,
  expected: string,
  prepare: () => void,
  floor?: Floor,
): Promise<Figure> {
  const env = agentEnv(ROLE);
  const subject: Contender = {
    name: bin,
    prepare,
    run: async () =>
      expectRun(bin, await timedNode([join(BIN_DIR, `${bin}.js`)], project.root, env), expected),
    reset: () => emptyInbox(project),
  };
  const [binMs, nodeMs, floorMs] = await interleave(
    [
      subject,
      nodeStartContender(project.root, env),
      ...(floor === undefined ? [] : [floorContender(floor, project.root, env)]),
    ],
    WARMUP,
    RUNS,
  );
  const figure = figureOf(
    id,
    label,
    summarize(binMs!),
    'node -e 0',
    summarize(nodeMs!),
    atMost(GOAL),
  );
  printFigure(figure);
  return floor === undefined ? figure : withFloor(figure, floor.name, summarize(floorMs!));
}

/** Measures the agent commands' start-up (empty inbox, one claim, one completion) vs `node -e 0`. */
export async function benchStartup(): Promise<Figure[]> {
  printHeading('1. Start-up: the agent commands vs node -e 0');
  const project = makeProject();
  const scratch = tempDir('baton-bench-floors-');
  try {
    const item: HandoffFile = await handoffFile(1, 'coder', [ROLE]);
    const box = project.box(ROLE);
    const place = (dir: string) => () => fs.writeFileSync(join(dir, item.name), item.bytes);
    const env = agentEnv(ROLE);
    place(box.inboxNew)();
    for (const [bin, expected] of [
      ['ready_for_next', 'TASK: '],
      ['done_with_current', 'COMPLETED: '],
    ] as const)
      expectRun(bin, await timedNode([join(BIN_DIR, `${bin}.js`)], project.root, env), expected);
    emptyInbox(project);
    return [
      await measure(
        '1a',
        'ready_for_next, empty inbox',
        project,
        'ready_for_next',
        'NO_TASK\n',
        () => undefined,
      ),
      await measure(
        '1b',
        'ready_for_next, claims one item',
        project,
        'ready_for_next',
        '',
        place(box.inboxNew),
        claimFloor(join(scratch, 'claim'), item.bytes),
      ),
      await measure(
        '1c',
        'done_with_current, completes one item',
        project,
        'done_with_current',
        '',
        place(box.inProcess),
        completionFloor(join(scratch, 'completion'), item.bytes),
      ),
    ];
  } finally {
    project.cleanup();
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}
