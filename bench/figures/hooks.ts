// Figure 11: the agent hooks against a bare `node -e 0`, each run as an agent runs it (the
// shipped hooks/ script, its JSON on stdin): (a) hooks/session-start on the path that
// reads the most (a task in process whose header is read, handoffs waiting, an unfinished
// run read through the run store's validated read); (b) hooks/stop on its blocking path
// (handoffs waiting, nothing in process). An agent waits for SessionStart before its first
// reply and for Stop at the end of every turn.
import { resolve } from 'node:path';
import { runPathsOf } from '../../lib/project/layout.js';
import { writeWorkflow } from '../../lib/run/record/runStore.js';
import { makeProject, placeItem } from '../../test/support/project.js';
import { sampleWorkflow } from '../../test/run/sampleWorkflow.js';
import { interleave } from '../support/interleave.js';
import { atMost, figureOf, printFigure, printHeading, type Figure } from '../support/report.js';
import { agentEnv, expectRun, nodeStartContender, timedNode } from '../support/spawnNode.js';
import { formatMs, summarize } from '../support/stats.js';

const WARMUP = 5;
const RUNS = 30;
/** The absolute budget per hook, reported beside the ratio (it depends on the machine's `node -e 0`). */
const BUDGET_MS = 150;

/** Measures both hooks vs `node -e 0`, interleaved, on one project. */
export async function benchHooks(): Promise<Figure[]> {
  printHeading('11. Agent hooks: session-start and stop vs node -e 0');
  const project = makeProject();
  try {
    const reviewer = project.box('reviewer');
    await placeItem(reviewer.inProcess, {
      type: 'git_handoff',
      task: 'task-1',
      commit: 'a1b2c3d9e8',
    });
    await placeItem(reviewer.inboxNew, {});
    const coder = project.box('coder');
    await placeItem(coder.inboxNew, {});
    await placeItem(coder.inboxNew, {});
    const wf = sampleWorkflow(project.root, 'a'.repeat(40), {
      status: 'ACTIVE',
      phase: 'STAGE_ACTIVE',
      active_stage: 'implementation',
    });
    writeWorkflow(runPathsOf(project.root, wf.run_id).workflow, wf);
    const script = (name: string) => resolve('hooks', name);
    const stdin = (event: string) =>
      JSON.stringify({
        session_id: 's',
        transcript_path: '/t.jsonl',
        cwd: project.root,
        permission_mode: 'default',
        hook_event_name: event,
        source: 'startup',
        stop_hook_active: false,
      });
    const cases = [
      {
        id: '11a',
        name: 'hooks/session-start: task in process, mail, a run',
        script: script('session-start'),
        env: agentEnv('reviewer'),
        input: stdin('SessionStart'),
        expected: '{"hookSpecificOutput":',
      },
      {
        id: '11b',
        name: 'hooks/stop: mail waiting, blocks',
        script: script('stop'),
        env: agentEnv('coder'),
        input: stdin('Stop'),
        expected: '{"decision":"block",',
      },
    ];
    const figures: Figure[] = [];
    for (const c of cases) {
      const [hookMs, nodeMs] = await interleave(
        [
          {
            name: c.name,
            run: async () =>
              expectRun(
                c.name,
                await timedNode([c.script], project.root, c.env, c.input),
                c.expected,
              ),
          },
          nodeStartContender(project.root, c.env),
        ],
        WARMUP,
        RUNS,
      );
      const figure = figureOf(
        c.id,
        c.name,
        summarize(hookMs!),
        'node -e 0',
        summarize(nodeMs!),
        atMost(1.2),
      );
      printFigure(figure);
      const median = figure.subject.median;
      console.log(
        `    budget  : ${formatMs(median)} vs ${BUDGET_MS} ms ${median < BUDGET_MS ? 'under' : 'over'} (node -e 0 alone: ${formatMs(figure.baseline.median)})`,
      );
      figures.push(figure);
    }
    return figures;
  } finally {
    project.cleanup();
  }
}
