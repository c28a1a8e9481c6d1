// lib/run/controllerPrompts: the bodies of the controller's requests: what to do, where, and
// the exact reply command; the task and finding titles redacted and cut to 2000 characters.
import assert from 'node:assert/strict';
import {
  replyCommand,
  resolvePrompt,
  reviewPrompt,
  stagePrompt,
  validatePrompt,
} from '../../../lib/run/controller/controllerPrompts.js';
import { type RunFinding } from '../../../lib/run/record/workflow.js';
import { sampleWorkflow } from '../sampleWorkflow.js';

const BASE = '0123456789abcdef0123456789abcdef01234567';
const HEAD = 'fedcba9876543210fedcba9876543210fedcba98';

describe('lib/run/controller/controllerPrompts', () => {
  const wf = sampleWorkflow('/repo', BASE, {
    status: 'ACTIVE',
    phase: 'STAGE_ACTIVE',
    active_stage: 'implementation',
    review_cycle: 2,
    current_commit: HEAD,
    spec_ref: '/repo/spec.md',
  });
  const id = wf.run_id;
  const finding = (over: Partial<RunFinding>): RunFinding => ({
    id: 'F1',
    severity: 'Critical',
    lane: 'structured',
    title: 'broken',
    cycle: 2,
    blocking: true,
    validation: null,
    resolved: false,
    ...over,
  });

  it('replyCommand: run, kind, stage, cycle, the lane when there is one, and the file placeholder', () => {
    assert.equal(
      replyCommand(wf, 'work', 'implementation'),
      `baton run reply ${id} --kind work --stage implementation --cycle 2 --file <your file>`,
    );
    assert.equal(
      replyCommand(wf, 'review', 'review', 'independent'),
      `baton run reply ${id} --kind review --stage review --cycle 2 --lane independent --file <your file>`,
    );
  });

  it('stagePrompt: the stage, task, repository at its base, spec, and the work and question reply commands', () => {
    assert.equal(
      stagePrompt(wf, 'implementation'),
      [
        `Run ${id}, stage implementation, cycle 2.`,
        'Task: add the thing',
        `Repository: /repo (base main, ${BASE.slice(0, 12)})`,
        'Spec: /repo/spec.md',
        'When the work is committed, write a short report and reply with:',
        `baton run reply ${id} --kind work --stage implementation --cycle 2 --file <your file>`,
        `A question instead: baton run reply ${id} --kind question --stage implementation --cycle 2 --file <your file>`,
      ].join('\n'),
    );
  });

  it('the task is redacted and cut to 2000 characters with an ellipsis', () => {
    const secret = stagePrompt(
      { ...wf, task: 'deploy with API_TOKEN=abc123supersecret please' },
      'implementation',
    );
    assert.ok(!secret.includes('abc123supersecret'));
    assert.match(secret, /^Task: deploy with API_TOKEN=\[REDACTED\] please$/m);
    const long = stagePrompt({ ...wf, task: 'x'.repeat(2500) }, 'implementation');
    assert.match(long, new RegExp(`^Task: x{2000}…$`, 'm'));
    assert.match(
      stagePrompt({ ...wf, task: 'y'.repeat(2000) }, 'implementation'),
      /^Task: y{2000}$/m,
    );
  });

  it("reviewPrompt: the lane, the commit under review, the finding format and the lane's reply command; the independent lane adds an architecture pass", () => {
    const structured = reviewPrompt(wf, 'structured');
    assert.equal(structured.split('\n')[0], `Run ${id}, review cycle 2, lane structured.`);
    assert.ok(
      structured.includes(`Repository: /repo at ${HEAD.slice(0, 12)}; spec /repo/spec.md.`),
    );
    assert.ok(structured.includes('Review against the spec, line by line.'));
    assert.ok(structured.includes('FINDING <id> <Critical|Important|Minor|Nit> <title>'));
    assert.ok(
      structured.endsWith(
        `baton run reply ${id} --kind review --stage review --cycle 2 --lane structured --file <your file>`,
      ),
    );
    const independent = reviewPrompt(wf, 'independent');
    assert.ok(independent.includes('architecture pass'));
    assert.ok(!independent.includes('line by line'));
    assert.ok(independent.endsWith('--lane independent --file <your file>'));
  });

  it('validatePrompt and resolvePrompt list each finding (id, severity, lane, redacted title) with the JSON to write and the reply command', () => {
    const findings = [
      finding({}),
      finding({
        id: 'F2',
        severity: 'Important',
        lane: 'independent',
        title: 'leaks password=hunter22',
      }),
    ];
    const v = validatePrompt(wf, findings);
    assert.ok(
      v.startsWith(
        `Run ${id}, review cycle 2: validate these blocking findings. Read only: change nothing.\n- F1 Critical (structured): broken\n- F2 Important (independent): leaks password=[REDACTED]\n`,
      ),
    );
    assert.ok(!v.includes('hunter22'));
    assert.ok(v.includes('"valid": true|false'));
    assert.ok(
      v.endsWith(
        `baton run reply ${id} --kind validation --stage review --cycle 2 --file <your file>`,
      ),
    );
    const r = resolvePrompt(wf, findings.slice(0, 1));
    assert.ok(
      r.startsWith(
        `Run ${id}, review cycle 2: resolve these validated findings.\n- F1 Critical (structured): broken\nCommit the fixes`,
      ),
    );
    assert.ok(!r.includes('F2'));
    assert.ok(
      r.endsWith(
        `baton run reply ${id} --kind resolution --stage review --cycle 2 --file <your file>`,
      ),
    );
  });
});
