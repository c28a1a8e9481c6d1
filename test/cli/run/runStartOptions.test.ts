// lib/cli/runStartOptions: `baton run start`'s options checked and turned into a run:
// the defaults of runtime.md §4, stage and role names, the two reviewers, whole numbers;
// every bad option a usage error (exit 1) before any run is made.
//
// Loaded with import(), as the CLI loads it (see test/cli/runActionTable.test.ts): the
// runtime it starts is imported with import() and throws that graph's CommandFailure.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { type RunValues } from '../../../lib/cli/run/runActionTable.js';
import type * as StartOptions from '../../../lib/cli/run/runStartOptions.js';
import type * as Errors from '../../../lib/fsx/commandFailure.js';
import { runsDirOf } from '../../../lib/project/layout.js';
import { type RunContext } from '../../../lib/run/record/runContext.js';
import { readWorkflow } from '../../../lib/run/record/runStore.js';
import { git } from '../../support/project.js';
import { makeRunRepo } from '../../support/runs.js';

let startFromValues: typeof StartOptions.startFromValues;
let CommandFailure: typeof Errors.CommandFailure;

const REQUIRED: RunValues = {
  request: 'req-1',
  task: 'add the thing',
  spec: 'spec.md',
  acceptance: 'node accept.mjs',
};

describe('lib/cli/run/runStartOptions', () => {
  let root: string;
  let ctx: RunContext;
  before(async () => {
    ({ startFromValues } = await import('../../../lib/cli/run/runStartOptions.js'));
    ({ CommandFailure } = await import('../../../lib/fsx/commandFailure.js'));
  });
  beforeEach(() => {
    root = makeRunRepo();
    ctx = {
      root,
      cwd: root,
      env: {},
      user: 'alice',
      now: () => new Date('2030-01-01T00:00:00.000Z'),
    };
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  const recordOf = async (v: RunValues) =>
    readWorkflow(root, (await startFromValues(ctx, v)).status.run_id).workflow;

  function usage(message: string): (err: unknown) => boolean {
    return (err: unknown) => {
      assert.ok(err instanceof CommandFailure, `not a CommandFailure: ${String(err)}`);
      assert.deepEqual([err.kind, err.message], ['usage', message]);
      return true;
    };
  }

  it('the defaults: stage implementation, 3 review cycles, 1800 s, 3 attempts from 1000 ms, the default roles, HEAD of the current work tree', async () => {
    const wf = await recordOf(REQUIRED);
    assert.deepEqual(
      [
        wf.request_id,
        wf.task,
        wf.spec_ref,
        wf.acceptance_command,
        wf.stage_order,
        wf.max_review_cycles,
        wf.acceptance_timeout_s,
        wf.retry_policy,
        wf.roles,
        wf.repo_root,
        wf.base_ref,
        wf.base_commit,
      ],
      [
        'req-1',
        'add the thing',
        join(root, 'spec.md'),
        'node accept.mjs',
        ['implementation'],
        3,
        1800,
        { max_attempts: 3, base_delay_ms: 1000 },
        {
          worker: 'worker',
          reviewers: ['reviewer-a', 'reviewer-b'],
          validator: 'validator',
          controller: 'controller',
        },
        root,
        'HEAD',
        git(root, 'rev-parse', 'HEAD'),
      ],
    );
  });

  it('every option given: stages (spaces trimmed), numbers, roles, reviewers, repository and base', async () => {
    const wf = await recordOf({
      ...REQUIRED,
      stages: 'design, build ,docs',
      'max-cycles': '5',
      'acceptance-timeout': '30',
      'retry-attempts': '1',
      'retry-base-ms': '0',
      worker: 'coder',
      reviewers: 'alpha , beta',
      validator: 'qa',
      controller: 'conductor',
      repo: '.',
      base: 'main',
    });
    assert.deepEqual(
      [
        wf.stage_order,
        wf.max_review_cycles,
        wf.acceptance_timeout_s,
        wf.retry_policy,
        wf.roles,
        wf.base_ref,
      ],
      [
        ['design', 'build', 'docs'],
        5,
        30,
        { max_attempts: 1, base_delay_ms: 0 },
        { worker: 'coder', reviewers: ['alpha', 'beta'], validator: 'qa', controller: 'conductor' },
        'main',
      ],
    );
  });

  const refusals: [string, RunValues, string][] = [
    [
      'a stage name with capitals',
      { stages: 'Design' },
      "start: --stages: 'Design' is not a stage name (lowercase letters, digits, '-', '_')",
    ],
    [
      'an empty stage',
      { stages: 'design,,build' },
      "start: --stages: '' is not a stage name (lowercase letters, digits, '-', '_')",
    ],
    [
      'a stage name too long',
      { stages: `s${'x'.repeat(32)}` },
      `start: --stages: 's${'x'.repeat(32)}' is not a stage name (lowercase letters, digits, '-', '_')`,
    ],
    ['a stage twice', { stages: 'build,docs,build' }, 'start: --stages names a stage twice'],
    ['one reviewer', { reviewers: 'alpha' }, 'start: --reviewers takes two role names, A,B'],
    ['three reviewers', { reviewers: 'a,b,c' }, 'start: --reviewers takes two role names, A,B'],
    [
      'a reviewer that is no role name',
      { reviewers: 'alpha,1beta' },
      'start: --reviewers takes two role names, A,B',
    ],
    [
      'a worker that is no role name',
      { worker: 'co der' },
      "start: --worker 'co der' is not a role name",
    ],
    ['an empty validator', { validator: '' }, "start: --validator '' is not a role name"],
    [
      'a controller that is no role name',
      { controller: '-ctl' },
      "start: --controller '-ctl' is not a role name",
    ],
    ['no request', { request: undefined }, 'start: --request is required'],
    ['a blank task', { task: '  ' }, 'start: --task must not be empty'],
    ['no spec', { spec: undefined }, 'start: --spec is required'],
    ['no acceptance command', { acceptance: undefined }, 'start: --acceptance is required'],
    [
      'zero review cycles',
      { 'max-cycles': '0' },
      "start: --max-cycles takes a whole number of at least 1, not '0'",
    ],
    [
      'a fractional timeout',
      { 'acceptance-timeout': '1.5' },
      "start: --acceptance-timeout takes a whole number of at least 1, not '1.5'",
    ],
    [
      'zero attempts',
      { 'retry-attempts': '0' },
      "start: --retry-attempts takes a whole number of at least 1, not '0'",
    ],
    [
      'a negative backoff',
      { 'retry-base-ms': '-5' },
      "start: --retry-base-ms takes a whole number of at least 0, not '-5'",
    ],
    [
      'a malformed request id',
      { request: 'a/b' },
      "start: malformed request id 'a/b': letters, digits, '.', '_' and '-', at most 64",
    ],
    ['a spec that does not exist', { spec: 'missing.md' }, "start: no such spec file 'missing.md'"],
  ];
  for (const [what, change, message] of refusals) {
    it(`${what}: a usage error, no run made`, async () => {
      await assert.rejects(startFromValues(ctx, { ...REQUIRED, ...change }), usage(message));
      assert.equal(fs.existsSync(runsDirOf(root)), false);
    });
  }

  it('a well-formed start that the runtime refuses (a shell operator) is a refusal, not a usage error', async () => {
    await assert.rejects(
      startFromValues(ctx, { ...REQUIRED, acceptance: 'node accept.mjs && rm -rf /' }),
      (err: unknown) => err instanceof CommandFailure && err.kind === 'refused',
    );
    assert.equal(fs.existsSync(runsDirOf(root)), false);
  });
});
