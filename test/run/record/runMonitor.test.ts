// lib/run/runMonitor: the monitor's durable view of runs, read from real run records: status,
// phase, cycle, blocking count, the approval gate, duration, a worker's open question, the
// block reason (redacted), a controller missing from an ACTIVE run, terminal runs for an
// hour only, an unreadable record listed with its problem; and the lines it prints.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { runPathsOf } from '../../../lib/project/layout.js';
import { emptyPhase, writePhase } from '../../../lib/run/controller/controllerPhase.js';
import { blockStep, leaseAcquireStep } from '../../../lib/run/gates/controllerActions.js';
import { endStep, startStep, type StartOptions } from '../../../lib/run/owner/ownerSteps.js';
import { type RunContext } from '../../../lib/run/record/runContext.js';
import { runsText, runsView, type RunMonitorView } from '../../../lib/run/record/runMonitor.js';
import { readWorkflow } from '../../../lib/run/record/runStore.js';
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
const T0 = Date.parse('2030-01-01T00:00:00.000Z');

describe('lib/run/record/runMonitor', () => {
  let root: string;
  let clock: number;
  let ctx: RunContext;
  beforeEach(() => {
    root = makeRunRepo();
    clock = T0;
    ctx = { root, cwd: root, env: {}, user: 'alice', now: () => new Date((clock += 1000)) };
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  const start = async (request: string) =>
    (await startStep(ctx, { ...START, request })).status.run_id;
  const at = (s: number) => new Date(T0 + s * 1000);

  it('no runs: an empty view and no lines', () => {
    assert.deepEqual(runsView(root, at(0)), []);
    assert.equal(runsText([]), '');
  });

  it("an ACTIVE run: its record's fields and duration; its controller missing without a live lease, live with one, missing once the lease is stale", async () => {
    const runId = await start('req-1');
    assert.deepEqual(runsView(root, at(61)), [
      {
        run_id: runId,
        request_id: 'req-1',
        status: 'ACTIVE',
        phase: 'IDLE',
        review_cycle: 1,
        max_review_cycles: 3,
        blocking_findings: 0,
        approval_gate: false,
        duration_s: 60,
        human_input: null,
        block_reason: null,
        controller: 'missing',
        agents: ['worker', 'reviewer-a', 'reviewer-b', 'validator'].map((role) => ({
          role,
          state: 'unknown',
          since: null,
          pane: null,
          awaiting: null,
          line: `${role}: unknown`,
        })),
        problem: null,
      },
    ]);
    await leaseAcquireStep(ctx, runId, { pid: process.pid, ttlS: 100, reclaimStale: false });
    assert.equal(runsView(root, at(50))[0]!.controller, 'live');
    assert.equal(runsView(root, at(500))[0]!.controller, 'missing');
    const text = runsText(runsView(root, at(500)));
    assert.equal(
      text,
      `\nRuns:\n  ${runId} (req-1)  ACTIVE/IDLE  cycle 1/3  blocking 0  499s  CONTROLLER MISSING (no live lease)` +
        '\n    worker: unknown\n    reviewer-a: unknown\n    reviewer-b: unknown\n    validator: unknown\n',
    );
  });

  it("a worker's open question (from the controller's phase file, redacted and cut to 200 characters) with how long it has waited", async () => {
    const runId = await start('req-1');
    const phase = emptyPhase(at(0));
    phase.question = {
      text: `password=hunter22 ${'q'.repeat(300)}`,
      from: 'worker',
      stage: 'implementation',
      cycle: 1,
      since: at(10).toISOString(),
    };
    writePhase(runPathsOf(root, runId), phase);
    const view = runsView(root, at(70))[0]!;
    assert.equal(view.human_input!.waiting_s, 60);
    assert.equal(view.human_input!.question.length, 200);
    assert.ok(view.human_input!.question.startsWith('password=[REDACTED] qqq'));
    assert.match(
      runsText([view]),
      /  QUESTION waiting 60s: password=\[REDACTED\] q+  CONTROLLER MISSING/,
    );
  });

  it('a BLOCKED run shows its reason (redacted), needs no controller; the approval gate is flagged', async () => {
    const runId = await start('req-1');
    const token = (
      (await leaseAcquireStep(ctx, runId, { pid: process.pid, ttlS: 3600, reclaimStale: false }))
        .status.lease as { token: string }
    ).token;
    await blockStep(ctx, runId, token, 'the API_TOKEN=abc123supersecret expired');
    const view = runsView(root, at(100))[0]!;
    assert.deepEqual(
      [view.status, view.block_reason, view.controller, view.approval_gate],
      ['BLOCKED', 'the API_TOKEN=[REDACTED] expired', 'not needed', false],
    );
    assert.match(
      runsText([view]),
      new RegExp(
        `^  ${runId} \\(req-1\\)  BLOCKED/IDLE  cycle 1/3  blocking 0  \\d+s  BLOCKED: the API_TOKEN=\\[REDACTED\\] expired$`,
        'm',
      ),
    );
    const gate: RunMonitorView = {
      ...view,
      status: 'WAITING_FOR_HUMAN_APPROVAL',
      approval_gate: true,
      block_reason: null,
      controller: 'live',
    };
    assert.ok(runsText([gate]).includes('  WAITING FOR YOUR APPROVAL'));
    assert.ok(!runsText([gate]).includes('CONTROLLER MISSING'));
  });

  it('a terminal run stays for an hour after its last change, with its duration fixed at its end; then it leaves the view', async () => {
    const runId = await start('req-1');
    await endStep(ctx, runId, 'cancel', 'not needed');
    const ended = Date.parse(readWorkflow(root, runId).workflow.updated_at);
    const soon = runsView(root, new Date(ended + 3_600_000));
    assert.deepEqual(
      soon.map((v) => [v.run_id, v.status, v.duration_s, v.controller]),
      [[runId, 'CANCELLED', 1, 'not needed']],
    );
    assert.deepEqual(runsView(root, new Date(ended + 3_600_001)), []);
  });

  it('an unreadable record is listed with its problem, beside the readable runs', async () => {
    const good = await start('req-1');
    const bad = await start('req-2');
    fs.writeFileSync(runPathsOf(root, bad).workflow, '{ torn');
    const views = runsView(root, at(100));
    const unreadable = views.find((v) => v.run_id === bad)!;
    assert.equal(unreadable.status, 'UNREADABLE');
    assert.ok(
      unreadable.problem && unreadable.problem.length > 0 && !unreadable.problem.includes('\n'),
    );
    assert.equal(views.find((v) => v.run_id === good)!.status, 'ACTIVE');
    assert.ok(runsText(views).includes(`  ${bad}  UNREADABLE: ${unreadable.problem}\n`));
  });
});
