// The gates of a run with their I/O (docs/runtime.md §4, §6, §8): acceptance runs the
// configured command (outside the run's lock: it may take minutes; the result is recorded
// under the lock after checking that the run is still ACTIVE and the lease still the
// caller's), review and resolve-review parse their evidence files before the lock and
// register them under it; a positive resolve-review also writes the cycle's findings with
// their validation and resolution (`review-c<n>-findings.json`) for the next cycle's
// reviewers (§11.8). A failed gate is a blocking outcome with its evidence.
import * as fs from 'node:fs';
import { resolve } from 'node:path';
import { fail } from '../../fsx/commandFailure.js';
import { runAcceptance, type AcceptanceRecord } from './acceptance.js';
import {
  artifactExtensionOf,
  artifactNameOf,
  evidenceStageOf,
  writeEvidence,
} from './artifacts.js';
import { splitAcceptanceCommand } from './commandWords.js';
import { importAll, takenIn } from './controllerActions.js';
import {
  parseLaneFile,
  parseResolutionFile,
  parseValidationFile,
  resolutionGaps,
  validationGaps,
} from './evidence.js';
import { requireLeaseToken } from '../record/lease.js';
import { badArtifactsOf } from '../owner/ownerSteps.js';
import {
  blockingIdsOf,
  recordReview,
  requireResolvable,
  requireReviewable,
  resolveReview,
  type LaneFindings,
  type Resolution,
} from './reviewActions.js';
import { changeRunUnderLease, type ActionReport, type RunContext } from '../record/runContext.js';
import { blockRun, logged, requireState, stateOf } from '../record/runMutation.js';
import { readWorkflow } from '../record/runStore.js';
import { type RunPaths } from '../../project/layout.js';
import { reviewerOfLane, type Artifact, type Lane, type Workflow } from '../record/workflow.js';
import { isoOf } from '../../fsx/timestamps.js';

/** Why an acceptance run failed, in one line; undefined when it passed. */
function failureOf(r: AcceptanceRecord, timeoutS: number): string | undefined {
  if (r.outcome === 'passed') return undefined;
  if (r.outcome === 'timed-out') return `acceptance timed out after ${timeoutS} s`;
  if (r.outcome === 'unstartable') return `acceptance could not start: ${r.argv[0] ?? ''}`;
  return `acceptance failed: ${r.signal ? `killed by ${r.signal}` : `exit ${r.exit_code}`}`;
}

/** acceptance: runs the configured command and records its evidence; a failure blocks the run. */
export async function acceptanceStep(
  ctx: RunContext,
  runId: string,
  token: string,
  command?: string,
): Promise<ActionReport> {
  const { workflow: before, paths } = readWorkflow(ctx.root, runId);
  requireLeaseToken(paths, token, ctx.now());
  requireState(before, 'acceptance', ['ACTIVE']);
  if (command !== undefined && command !== before.acceptance_command)
    fail(
      'refused',
      'acceptance: --command differs from the command configured at ' +
        'start; the configured one is the only one that counts',
    );
  splitAcceptanceCommand(before.acceptance_command);
  const record = await runAcceptance({
    command: before.acceptance_command,
    cwd: before.repo_root,
    timeoutMs: before.acceptance_timeout_s * 1000,
  });
  return changeRunUnderLease(ctx, runId, token, (wf, p, now) => {
    requireState(wf, 'acceptance', ['ACTIVE']);
    const failure = failureOf(record, wf.acceptance_timeout_s);
    const kind = failure === undefined ? 'acceptance' : 'validation-failure';
    const name = artifactNameOf(evidenceStageOf(wf), wf.review_cycle, kind, 'json', takenIn(wf, p));
    const evidence: Artifact = {
      ...writeEvidence(p, name, kind, record, now),
      type: kind,
      producer: 'baton',
    };
    const at = isoOf(now);
    const next: Workflow = {
      ...wf,
      last_acceptance_at: at,
      last_acceptance_ok: failure === undefined,
    };
    if (failure !== undefined)
      return blockRun(next, wf.roles.controller, 'acceptance', failure, now, [evidence]);
    return {
      workflow: logged({ ...next, artifacts: [...wf.artifacts, evidence] }, now, {
        actor: wf.roles.controller,
        action: 'acceptance',
        from: stateOf(wf),
        detail: `passed in ${record.duration_ms} ms`,
      }),
    };
  });
}

/** A named evidence file's text; a missing one is a usage error. */
function readNamed(ctx: RunContext, action: string, file: string): string {
  const path = resolve(ctx.cwd, file);
  if (!fs.existsSync(path)) fail('usage', `${action}: no such file '${file}'`);
  return fs.readFileSync(path, 'utf8');
}

/** `LANE=FILE` of review's --lane. */
function parseLaneArg(arg: string): { lane: Lane; file: string } {
  const at = arg.indexOf('=');
  const lane = arg.slice(0, at);
  if (at <= 0 || (lane !== 'structured' && lane !== 'independent') || at === arg.length - 1)
    fail('usage', `review: --lane takes structured=FILE or independent=FILE, not '${arg}'`);
  return { lane, file: arg.slice(at + 1) };
}

/**
 * Copies each file of a review cycle into the run, named by its part (a lane or a kind);
 * nothing when an artifact of the run is bad (the action then blocks instead).
 */
function importCycleFiles(
  ctx: RunContext,
  [wf, p, cycle, bad]: [Workflow, RunPaths, number, string[]],
  files: { file: string; type: string; producer: string; part: string }[],
): Artifact[] {
  if (bad.length > 0) return [];
  const named = files.map((f) => ({
    source: f.file,
    type: f.type,
    producer: f.producer,
    name: artifactNameOf(
      'review',
      cycle,
      f.part,
      artifactExtensionOf(f.file),
      takenIn(wf, p),
    ).slice('artifacts/'.length),
  }));
  return importAll(p, ctx.cwd, wf.artifacts, named);
}

/** review: both lanes of the cycle parsed and checked, then registered and recorded. */
export async function reviewStep(
  ctx: RunContext,
  runId: string,
  token: string,
  cycle: number,
  laneArgs: string[],
): Promise<ActionReport> {
  const given = laneArgs.map(parseLaneArg);
  if (given.length !== 2 || new Set(given.map((g) => g.lane)).size !== 2)
    fail('usage', 'review: give both lanes, --lane structured=FILE --lane independent=FILE');
  const texts = given.map((g) => readNamed(ctx, 'review', g.file));
  const { workflow: before, paths } = readWorkflow(ctx.root, runId);
  requireLeaseToken(paths, token, ctx.now());
  requireReviewable(before, cycle);
  const lanes: LaneFindings[] = [];
  for (const [i, g] of given.entries())
    lanes.push({
      lane: g.lane,
      findings: (await parseLaneFile(texts[i]!, { lane: g.lane, cycle })).findings,
    });
  return changeRunUnderLease(ctx, runId, token, (wf, p, now) => {
    requireReviewable(wf, cycle);
    const bad = badArtifactsOf(wf, p);
    const files = importCycleFiles(
      ctx,
      [wf, p, cycle, bad],
      given.map((g) => ({
        file: g.file,
        type: 'review',
        producer: reviewerOfLane(wf, g.lane),
        part: g.lane,
      })),
    );
    return recordReview(wf, cycle, lanes, files, bad, wf.roles.controller, now);
  });
}

/** What the validation and resolution files say, against the run's blocking findings. */
async function resolutionOf(
  wf: Workflow,
  cycle: number,
  validationText: string | undefined,
  resolutionText: string,
): Promise<Resolution> {
  const resolution = await parseResolutionFile(resolutionText, cycle);
  const resolvedIds = new Set(resolution.resolved.map((r) => r.id));
  const changes = new Map(
    resolution.resolved.map((r) => [r.id, { change: r.change, tests: r.tests }]),
  );
  if (validationText === undefined) return { resolvedIds, gaps: [], changes };
  const validation = await parseValidationFile(validationText, cycle);
  const validations = new Map(
    validation.findings.map((f) => [f.id, { valid: f.valid, reason: f.reason }]),
  );
  const gaps = validationGaps(validation, blockingIdsOf(wf));
  if (gaps.length === 0)
    gaps.push(
      ...resolutionGaps(
        resolution,
        validation.findings.filter((f) => f.valid).map((f) => f.id),
      ),
    );
  return { validations, resolvedIds, gaps, changes };
}

/**
 * Writes the findings of a resolved cycle with their validation and resolution, which the
 * reviewers of the next cycle are pointed to (runtime.md §11.8), and registers it in `next`.
 */
function withCarriedFindings(
  next: Workflow,
  p: RunPaths,
  [cycle, changes]: [number, Resolution['changes']],
  now: Date,
): Workflow {
  const findings = next.findings
    .filter((f) => f.cycle === cycle)
    .map((f) => ({ ...f, resolution: changes?.get(f.id) ?? null }));
  const name = artifactNameOf('review', cycle, 'findings', 'json', takenIn(next, p));
  const entry: Artifact = {
    ...writeEvidence(p, name, 'findings', { cycle, findings }, now),
    type: 'findings',
    producer: 'baton',
  };
  return { ...next, artifacts: [...next.artifacts, entry] };
}

/**
 * resolve-review: the validation and resolution parsed and checked, then registered and recorded
 * (or the run blocks).
 */
export async function resolveReviewStep(
  ctx: RunContext,
  runId: string,
  token: string,
  cycle: number,
  files: { validation?: string; resolution: string },
): Promise<ActionReport> {
  const validationText =
    files.validation === undefined ? undefined : readNamed(ctx, 'resolve-review', files.validation);
  const resolutionText = readNamed(ctx, 'resolve-review', files.resolution);
  const { workflow: before, paths } = readWorkflow(ctx.root, runId);
  requireLeaseToken(paths, token, ctx.now());
  requireResolvable(before, cycle);
  const parsed = await resolutionOf(before, cycle, validationText, resolutionText);
  return changeRunUnderLease(ctx, runId, token, (wf, p, now) => {
    requireResolvable(wf, cycle);
    const bad = badArtifactsOf(wf, p);
    const named = [
      ...(files.validation === undefined ? [] : [{ file: files.validation, kind: 'validation' }]),
      { file: files.resolution, kind: 'resolution' },
    ];
    const registered = importCycleFiles(
      ctx,
      [wf, p, cycle, bad],
      named.map((n) => ({
        file: n.file,
        type: n.kind,
        producer: n.kind === 'validation' ? wf.roles.validator : wf.roles.worker,
        part: n.kind,
      })),
    );
    const outcome = resolveReview(wf, cycle, parsed, registered, bad, wf.roles.controller, now);
    if (outcome.blocked !== undefined || outcome.workflow === undefined) return outcome;
    return {
      ...outcome,
      workflow: withCarriedFindings(outcome.workflow, p, [cycle, parsed.changes], now),
    };
  });
}
