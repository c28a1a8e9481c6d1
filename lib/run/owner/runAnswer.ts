// `baton run answer <run-id> TEXT` (docs/runtime.md §9.5): a person's answer to a worker's
// question. It is queued as a `run_answer` handoff to the run's controller role, which
// forwards it to the worker that asked and leaves WAITING_FOR_HUMAN_INPUT; the run's
// record is not touched (the question never made the run BLOCKED); the handoff's `channel`
// header says how the owner answered (runtime.md §11.7).
import { queueSystemHandoff } from '../../handoff/systemSend.js';
import { fail } from '../../fsx/commandFailure.js';
import { readPhase } from '../controller/controllerPhase.js';
import { readWorkflow } from '../record/runStore.js';
import { isTerminal } from '../record/workflow.js';

/** Queues the answer for the controller; refused when the run is over or no question is open. */
export async function answerQuestion(
  root: string,
  runId: string,
  text: string,
  now = new Date(),
  channel: 'cli' | 'web' = 'cli',
): Promise<void> {
  const { workflow, paths } = readWorkflow(root, runId);
  if (isTerminal(workflow.status)) fail('refused', `answer: run ${runId} is ${workflow.status}`);
  if (readPhase(paths).question === null)
    fail('refused', `answer: no worker of run ${runId} is waiting for an answer`);
  const controller = workflow.roles.controller;
  await queueSystemHandoff(
    root,
    controller,
    {
      to: [controller],
      priority: '10',
      type: 'run_answer',
      headers: { run_id: runId, kind: 'answer', channel },
      body: `${text}\n`,
    },
    now,
  );
}
