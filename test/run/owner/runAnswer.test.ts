// lib/run/runAnswer: `baton run answer` in process: a person's answer is queued as one
// run_answer handoff from the run's controller role to itself, only while a worker's
// question is open and the run is not over; the run's record is never touched.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { mailboxOf, runPathsOf } from '../../../lib/project/layout.js';
import { readItem } from '../../../lib/queue/item.js';
import { itemNamesIn } from '../../../lib/queue/names.js';
import { emptyPhase, writePhase } from '../../../lib/run/controller/controllerPhase.js';
import { endStep, startStep, type StartOptions } from '../../../lib/run/owner/ownerSteps.js';
import { answerQuestion } from '../../../lib/run/owner/runAnswer.js';
import { type RunContext } from '../../../lib/run/record/runContext.js';
import { failure } from '../../support/failures.js';
import { makeRunRepo } from '../../support/runs.js';

const START: StartOptions = {
  request: 'req-1',
  task: 'add the thing',
  spec: 'spec.md',
  acceptance: 'true',
  stages: ['implementation'],
  maxCycles: 3,
  acceptanceTimeoutS: 60,
  retryAttempts: 3,
  retryBaseMs: 100,
  roles: {
    worker: 'worker',
    reviewers: ['reviewer-a', 'reviewer-b'],
    validator: 'validator',
    controller: 'ctl',
  },
};

describe('lib/run/owner/runAnswer', () => {
  let root: string;
  let ctx: RunContext;
  let runId: string;
  let clock: number;
  beforeEach(async () => {
    root = makeRunRepo();
    clock = Date.parse('2030-01-01T00:00:00.000Z');
    ctx = { root, cwd: root, env: {}, user: 'alice', now: () => new Date((clock += 1000)) };
    runId = (await startStep(ctx, START)).status.run_id;
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  const paths = () => runPathsOf(root, runId);
  const outbox = () => itemNamesIn(mailboxOf(root, 'ctl').outbox);
  const record = () => fs.readFileSync(paths().workflow);
  const askQuestion = () => {
    const phase = emptyPhase(new Date());
    phase.state = 'WAITING_FOR_HUMAN_INPUT';
    phase.question = {
      text: 'Which database?',
      from: 'worker',
      stage: 'implementation',
      cycle: 1,
      since: new Date().toISOString(),
    };
    writePhase(paths(), phase);
  };

  it('queues the answer as a run_answer from the controller role to itself (priority 10), leaving the record as it was', async () => {
    askQuestion();
    const before = record();
    await answerQuestion(root, runId, 'Use SQLite.', new Date('2030-03-04T05:06:07.000Z'));
    assert.deepEqual(record(), before);
    const names = outbox();
    assert.equal(names.length, 1);
    const item = await readItem(join(mailboxOf(root, 'ctl').outbox, names[0]!));
    assert.deepEqual(
      {
        from: item.headers.from,
        to: item.headers.to,
        priority: item.headers.priority,
        type: item.headers.type,
        run_id: item.headers.run_id,
        kind: item.headers.kind,
        created_at: item.headers.created_at,
      },
      {
        from: 'ctl',
        to: 'ctl',
        priority: '10',
        type: 'run_answer',
        run_id: runId,
        kind: 'answer',
        created_at: '2030-03-04T05:06:07.000Z',
      },
    );
    assert.equal(item.body.toString('utf8'), 'Use SQLite.\n');
  });

  it('refuses when no worker is waiting for an answer (no phase file, or one without a question)', async () => {
    await assert.rejects(
      answerQuestion(root, runId, 'hello'),
      failure('refused', `answer: no worker of run ${runId} is waiting for an answer`),
    );
    writePhase(paths(), emptyPhase(new Date()));
    await assert.rejects(
      answerQuestion(root, runId, 'hello'),
      failure('refused', `answer: no worker of run ${runId} is waiting for an answer`),
    );
    assert.deepEqual(outbox(), []);
  });

  it('refuses a terminal run even with a question open', async () => {
    askQuestion();
    await endStep(ctx, runId, 'fail', 'gave up');
    await assert.rejects(
      answerQuestion(root, runId, 'late'),
      failure('refused', `answer: run ${runId} is FAILED`),
    );
    assert.deepEqual(outbox(), []);
  });

  it('an unknown run is an error, and nothing is queued', async () => {
    await assert.rejects(
      answerQuestion(root, 'run-20300101T000000Z-ffffff', 'x'),
      failure('usage', /^unknown run 'run-20300101T000000Z-ffffff': no /),
    );
    assert.deepEqual(outbox(), []);
  });
});
