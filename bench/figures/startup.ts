// Figure 1: start-up of `ready_for_next` on an empty inbox against a bare `node -e 0`.
// An agent pays this on every call, so the bin must stay close to Node's own start-up.
import { join } from 'node:path';
import { BIN_DIR, makeProject } from '../../test/support/project.js';
import { interleave } from '../support/interleave.js';
import { atMost, figureOf, printFigure, printHeading, type Figure } from '../support/report.js';
import { agentEnv, expectRun, timedNode } from '../support/spawnNode.js';
import { summarize } from '../support/stats.js';

const WARMUP = 5;
const RUNS = 30;

/** Measures `node dist/bin/ready_for_next.js` (empty inbox, role reviewer) vs `node -e 0`, interleaved. */
export async function benchStartup(): Promise<Figure[]> {
  printHeading('1. Start-up: ready_for_next on an empty inbox vs node -e 0');
  const project = makeProject();
  try {
    const env = agentEnv('reviewer');
    const bin = join(BIN_DIR, 'ready_for_next.js');
    const [binMs, nodeMs] = await interleave(
      [
        {
          name: 'ready_for_next',
          run: async () =>
            expectRun('ready_for_next', await timedNode([bin], project.root, env), 'NO_TASK\n'),
        },
        {
          name: 'node -e 0',
          run: async () =>
            expectRun('node -e 0', await timedNode(['-e', '0'], project.root, env), ''),
        },
      ],
      WARMUP,
      RUNS,
    );
    const figure = figureOf(
      '1',
      'start-up: ready_for_next, empty inbox',
      summarize(binMs!),
      'node -e 0',
      summarize(nodeMs!),
      atMost(1.5),
    );
    printFigure(figure);
    return [figure];
  } finally {
    project.cleanup();
  }
}
