// Figure 8: the review stage's commands against a bare `node -e 0`: (a) `baton review
// verdict` on a fresh bead, the whole wall time of a reviewer's call (start-up, schema
// validation, locked write, fsyncs); (b) `baton review list` over a bookbag folder of 1,000
// beads, each read and checked (schema and invariants). The verdict is timed beside its floor
// (bench/support/durableFloor.ts): a bare Node process replacing one record under its lock.
import * as fs from 'node:fs';
import { join } from 'node:path';
import { reviewPathsOf } from '../../lib/project/layout.js';
import { newBead } from '../../lib/review/bookbag/beads.js';
import { bookbagPathOf, writeBookbag } from '../../lib/review/bookbag/store.js';
import { submitReview } from '../../lib/review/lens/submit.js';
import { newBookbag, type Submission } from '../../lib/review/bookbag/transitions.js';
import { BIN_DIR, makeProject, tempDir } from '../../test/support/project.js';
import { fixtureText } from '../../test/support/fixtures.js';
import { floorContender, recordFloor } from '../support/durableFloor.js';
import { interleave } from '../support/interleave.js';
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

const WARMUP = 3;
const RUNS = 21;
const LISTED = 1_000;

const SUBMISSION: Submission = {
  task: 'a task',
  output: 'the output',
  student: 'coder',
  domain: 'bench',
  difficulty: 'medium',
  verification: '',
  summary: '',
  acMet: [],
  filesChanged: [],
  blockers: [],
  submittedBy: 'coder',
  replyTo: 'coder',
  branch: '',
  commit: '',
  ctoRole: 'cto',
  cooRole: 'coo',
};

/** Measures verdict and list against node -e 0, interleaved. */
export async function benchReview(): Promise<Figure[]> {
  printHeading('8. Review stage: baton review verdict, and list over 1,000 beads, vs node -e 0');
  const project = makeProject(fixtureText('conf', 'review.conf'));
  const scratch = tempDir('baton-bench-floors-');
  try {
    const env = agentEnv('cto');
    const baton = join(BIN_DIR, 'baton.js');
    const floor = recordFloor(scratch, "a verdict's durable steps");
    let bead = '';
    const [verdictMs, nodeMs, floorMs] = await interleave(
      [
        {
          name: 'verdict',
          prepare: async () => void (bead = (await submitReview(project.root, SUBMISSION)).bead),
          run: async () =>
            expectRun(
              'verdict',
              await timedNode(
                [baton, 'review', 'verdict', bead, '--lens', 'cto', '--finding', 'LOW:style:a nit'],
                project.root,
                env,
              ),
              'VERDICT: ',
            ),
        },
        nodeStartContender(project.root, env),
        floorContender(floor, project.root, env),
      ],
      WARMUP,
      RUNS,
    );
    const measured = figureOf(
      '8a',
      'review verdict, wall time',
      summarize(verdictMs!),
      'node -e 0',
      summarize(nodeMs!),
      atMost(1.2),
    );
    printFigure(measured);
    const verdict = withFloor(measured, floor.name, summarize(floorMs!));
    const paths = reviewPathsOf(project.root);
    const now = new Date();
    for (let i = 0; i < LISTED; i++) {
      const b = newBead('coder', 'bench');
      writeBookbag(bookbagPathOf(paths, b), newBookbag(b, SUBMISSION, now));
    }
    const [listMs, baseMs] = await interleave(
      [
        {
          name: 'list',
          run: async () =>
            expectRun(
              'list',
              await timedNode([baton, 'review', 'list'], project.root, env),
              'coder-',
            ),
        },
        nodeStartContender(project.root, env),
      ],
      WARMUP,
      RUNS,
    );
    const list = figureOf(
      '8b',
      `review list, ${LISTED.toLocaleString('en')}+ beads`,
      summarize(listMs!),
      'node -e 0',
      summarize(baseMs!),
      atMost(3),
    );
    printFigure(list);
    return [verdict, list];
  } finally {
    project.cleanup();
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}
