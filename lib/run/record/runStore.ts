// Reading and writing workflow.json (docs/runtime.md §1, §2).
//
// Concurrency contract: every mutation of a run is a locked read-modify-write under the
// run's lock (`runs/locks/run-<id>.lock`, lib/fsx/lock.ts: pid, start time, boot id,
// host, token; a dead holder on this host is taken over by exactly one waiter, a live or
// remote one never; a bounded wait, then LockBusy, exit 75). `start` holds the request's
// lock (`runs/locks/request-<id>.lock`) while it looks for a non-terminal run of the
// request and creates its own, so two concurrent starts make exactly one run.
//
// Crash contract: a write is replaceFile's (temp file in the folder, fsync, mode 0600,
// rename) and then an fsync of the folder: a reader sees the old or the new record, never
// a torn one. Symlinks are refused, never followed.
//
// The validator IS the schema: every read checks the version fields on their own (so a
// record of another schema version gets its own message; the exact release is checked by
// resume and retry, §7, so an upgraded baton still shows old runs), then the schema (ajv's
// standalone
// validator of schemas/workflow.schema.json), then the cross-field rules; every write
// checks the schema and the rules first, so no invalid record is ever written.
import * as fs from 'node:fs';
import { join } from 'node:path';
import { CommandFailure, fail } from '../../fsx/commandFailure.js';
import { runLocksDirOf, runPathsOf, runsDirOf, type RunPaths } from '../../project/layout.js';
import { batonVersion } from '../../proc/version.js';
import {
  jsonText,
  parseJsonBytes,
  readNoFollow,
  RECORD_LOCK_WAIT_MS,
  recordProblems,
  SymlinkRefused,
  withLockHeld,
  writeRecord,
  type RecordKind,
} from '../../fsx/records.js';
import { printable } from '../../fsx/printable.js';
import { calendarTimeProblems } from './calendarTime.js';
import { RUN_ID_PATTERN, SCHEMA_VERSION, type Workflow } from './workflow.js';
import { validateWorkflowSchema } from './workflowValidator.generated.js';

/**
 * workflow.json as a typed record: the published schema, the cross-field rules, a refusal (exit 2)
 * naming the first problem.
 */
export const WORKFLOW: RecordKind<Workflow> = {
  what: 'record',
  validate: validateWorkflowSchema,
  invariants: (wf) => crossFieldProblems(wf),
  invalid: (path, problems) =>
    refusalOf(`invalid record '${path}': ${printable(problems[0] ?? 'invalid')}`),
  crashSteps: { written: 'run:workflow-written' },
};

function refusalOf(line: string): CommandFailure {
  return new CommandFailure('refused', [line]);
}

/** The rules across fields that the schema cannot say. */
export function crossFieldProblems(wf: Workflow): string[] {
  const problems: string[] = [];
  for (const field of ['active_stage', 'last_completed_stage'] as const) {
    const stage = wf[field];
    if (stage !== null && !wf.stage_order.includes(stage))
      problems.push(`/${field} '${stage}' is not in stage_order`);
  }
  if (wf.phase === 'STAGE_ACTIVE' && wf.active_stage === null)
    problems.push('/phase STAGE_ACTIVE without an active_stage');
  if (wf.pause_requested !== (wf.phase === 'PAUSE_REQUESTED'))
    problems.push('/pause_requested must be true exactly when the phase is PAUSE_REQUESTED');
  if (wf.review_cycle > wf.max_review_cycles)
    problems.push(
      `/review_cycle ${wf.review_cycle} is above max_review_cycles ${wf.max_review_cycles}`,
    );
  if (wf.status === 'COMPLETED' && wf.phase !== 'DONE')
    problems.push('/phase must be DONE when the status is COMPLETED');
  if (wf.status === 'BLOCKED' && !wf.block_reason)
    problems.push('/block_reason must be set when the status is BLOCKED');
  const paths = new Set<string>();
  for (const a of wf.artifacts) {
    if (paths.has(a.path)) problems.push(`/artifacts: duplicate path '${a.path}'`);
    paths.add(a.path);
  }
  const ids = new Set<string>();
  for (const f of wf.findings) {
    const key = `${f.cycle}/${f.lane}/${f.id}`;
    if (ids.has(key))
      problems.push(`/findings: duplicate id '${f.id}' in cycle ${f.cycle}, lane ${f.lane}`);
    ids.add(key);
  }
  problems.push(...calendarTimeProblems(timeFieldsOf(wf)));
  return problems;
}

/**
 * Every time field of a record, by its JSON pointer (the schema checks their form; calendarTime.ts
 * the calendar).
 */
function timeFieldsOf(wf: Workflow): [string, string | null][] {
  return [
    ...(
      [
        'last_checkpoint_at',
        'last_acceptance_at',
        'last_resolution_at',
        'created_at',
        'updated_at',
      ] as const
    ).map((k): [string, string | null] => [`/${k}`, wf[k]]),
    ['/observations/updated_at', wf.observations.updated_at],
    ...Object.entries(wf.observations.panes).map(([role, pane]): [string, string] => [
      `/observations/panes/${role}/seen_at`,
      pane.seen_at,
    ]),
    ...wf.history.map((h, i): [string, string] => [`/history/${i}/at`, h.at]),
  ];
}

/** Checks a run id's form; a malformed one is a usage error (exit 1). */
export function requireRunId(runId: string): string {
  if (!RUN_ID_PATTERN.test(runId))
    fail(
      'usage',
      `malformed run id '${printable(runId)}': expected run-<YYYYMMDDTHHMMSSZ>-<6 hex>`,
    );
  return runId;
}

/** The ids of every run folder that holds a record, sorted (oldest first). */
export function runIdsOf(root: string): string[] {
  let names: string[];
  try {
    names = fs.readdirSync(runsDirOf(root));
  } catch {
    return [];
  }
  return names
    .filter((n) => RUN_ID_PATTERN.test(n) && fs.existsSync(runPathsOf(root, n).workflow))
    .sort();
}

/**
 * A run file's bytes (`what`: record, lease), never through a symlink; undefined when there is no
 * such file.
 */
export function readRunFile(path: string, what: string): Buffer | undefined {
  try {
    return readNoFollow(path);
  } catch (err) {
    if (err instanceof SymlinkRefused) fail('refused', `invalid ${what} '${path}': is a symlink`);
    throw err;
  }
}

/** Parses and checks a record's bytes; throws a refusal (exit 2) naming the first problem. */
export function parseWorkflow(bytes: Buffer, path: string, runId?: string): Workflow {
  const parsed = parseJsonBytes(bytes);
  if ('problem' in parsed) throw WORKFLOW.invalid(path, [parsed.problem]);
  const data = parsed.value;
  if (typeof data !== 'object' || data === null || Array.isArray(data))
    fail('refused', `invalid record '${path}': not a JSON object`);
  const version = (data as Record<string, unknown>).schema_version;
  if (version !== SCHEMA_VERSION)
    fail(
      'refused',
      `run was created with schema version ` +
        `${printable(JSON.stringify(version) ?? 'none')}; this baton ` +
        `supports ${SCHEMA_VERSION}`,
    );
  const release = (data as Record<string, unknown>).runtime_release;
  if (typeof release !== 'string' || release === '')
    fail(
      'refused',
      `invalid record '${path}': no runtime_release (this is baton ${batonVersion()})`,
    );
  const problems = recordProblems(WORKFLOW, data);
  if (problems.length === 0 && runId !== undefined && (data as Workflow).run_id !== runId)
    problems.push(`/run_id '${(data as Workflow).run_id}' is not the run's folder '${runId}'`);
  if (problems.length > 0) throw WORKFLOW.invalid(path, problems);
  return data as Workflow;
}

/** Reads and checks run `runId`'s record; an unknown run is a usage error (exit 1). */
export function readWorkflow(
  root: string,
  runId: string,
): { workflow: Workflow; bytes: Buffer; paths: RunPaths } {
  const paths = runPathsOf(root, requireRunId(runId));
  const bytes = readRunFile(paths.workflow, 'record');
  if (bytes === undefined) fail('usage', `unknown run '${runId}': no ${paths.workflow}`);
  return { workflow: parseWorkflow(bytes, paths.workflow, runId), bytes, paths };
}

/** The bytes a record is written as. */
export function workflowText(wf: Workflow): string {
  return jsonText(wf);
}

/** Writes a valid record atomically (mode 0600), then fsyncs its folder. */
export function writeWorkflow(path: string, wf: Workflow): void {
  writeRecord(path, WORKFLOW, wf);
}

/**
 * Runs `fn` (which may await) holding the lock named `name` in the runs' lock folder (bounded wait,
 * then LockBusy, exit 75).
 */
function withRunsLock<T>(
  root: string,
  name: string,
  timeoutMs: number,
  fn: () => Promise<T> | T,
): Promise<T> {
  return withLockHeld(join(runLocksDirOf(root), `${name}.lock`), timeoutMs, fn);
}

/** A runs-folder lock held around `fn`: `id` names the run or request; `timeoutMs` bounds waits. */
type RunsLock = <T>(
  root: string,
  id: string,
  fn: () => Promise<T> | T,
  timeoutMs?: number,
) => Promise<T>;

/** Runs `fn` holding run `runId`'s lock. */
export const withRunLock: RunsLock = (root, runId, fn, timeoutMs = RECORD_LOCK_WAIT_MS) =>
  withRunsLock(root, `run-${requireRunId(runId).slice(4)}`, timeoutMs, fn);

/** Runs `fn` holding request `requestId`'s lock (a checked request id). */
export const withRequestLock: RunsLock = (root, requestId, fn, timeoutMs = RECORD_LOCK_WAIT_MS) =>
  withRunsLock(root, `request-${requestId}`, timeoutMs, fn);
