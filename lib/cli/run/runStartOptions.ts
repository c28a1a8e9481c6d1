// `baton run start`'s options, checked and turned into what lib/run/owner/ownerSteps.ts starts a
// run with (defaults of docs/runtime.md §4: stage `implementation`, 3 review cycles, 1800 s
// acceptance timeout, 3 provider attempts from 1000 ms; roles worker, reviewer-a and
// reviewer-b, validator, controller).
import { fail } from '../../fsx/commandFailure.js';
import { type ActionReport, type RunContext } from '../../run/record/runContext.js';
import { required, wholeNumber, type RunValues } from './runActionTable.js';

const ROLE = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;
const STAGE = /^[a-z][a-z0-9_-]{0,31}$/;

/** A role option, checked. */
function roleOf(v: RunValues, name: string, fallback: string): string {
  const role = (v[name] as string | undefined) ?? fallback;
  if (!ROLE.test(role)) fail('usage', `start: --${name} '${role}' is not a role name`);
  return role;
}

/** Starts a run from start's parsed options. */
export async function startFromValues(ctx: RunContext, v: RunValues): Promise<ActionReport> {
  const stages = ((v.stages as string | undefined) ?? 'implementation')
    .split(',')
    .map((s) => s.trim());
  const badStage = stages.find((s) => !STAGE.test(s));
  if (badStage !== undefined)
    fail(
      'usage',
      `start: --stages: '${badStage}' is not a stage name (lowercase letters, digits, '-', '_')`,
    );
  if (new Set(stages).size !== stages.length) fail('usage', 'start: --stages names a stage twice');
  const reviewers = ((v.reviewers as string | undefined) ?? 'reviewer-a,reviewer-b')
    .split(',')
    .map((r) => r.trim());
  if (reviewers.length !== 2 || reviewers.some((r) => !ROLE.test(r)))
    fail('usage', 'start: --reviewers takes two role names, A,B');
  const { startStep } = await import('../../run/owner/ownerSteps.js');
  return startStep(ctx, {
    request: required(v, 'request', 'start'),
    task: required(v, 'task', 'start'),
    spec: required(v, 'spec', 'start'),
    acceptance: required(v, 'acceptance', 'start'),
    repo: v.repo as string | undefined,
    base: v.base as string | undefined,
    stages,
    maxCycles: wholeNumber(v, 'max-cycles', 'start', 3, 1),
    acceptanceTimeoutS: wholeNumber(v, 'acceptance-timeout', 'start', 1800, 1),
    retryAttempts: wholeNumber(v, 'retry-attempts', 'start', 3, 1),
    retryBaseMs: wholeNumber(v, 'retry-base-ms', 'start', 1000, 0),
    roles: {
      worker: roleOf(v, 'worker', 'worker'),
      reviewers: [reviewers[0]!, reviewers[1]!],
      validator: roleOf(v, 'validator', 'validator'),
      controller: roleOf(v, 'controller', 'controller'),
    },
  });
}
