// `baton run reply` (docs/runtime.md §9.3): how an agent answers the controller. The
// file is copied into the run's artifacts/ under its cycle-specific name (with the
// generation, `-g<n>`, after the owner retried the run) (never
// overwriting: a second reply of the same kind, stage, cycle and lane is refused), then a
// `run_result` handoff is queued from the agent's role to the run's controller role. The
// agent never writes run state: the copy is evidence the controller registers later.
//
// Crash contract: the copy is a new fsync'd file; the handoff is queued after it. A kill
// between them leaves the copy and no handoff: the rerun finds the copy with the same bytes
// and queues the handoff (a copy with other bytes is refused as an overwrite).
import * as fs from 'node:fs';
import { basename, relative, resolve, sep } from 'node:path';
import { CommandFailure, fail } from '../../fsx/commandFailure.js';
import { worktreeTopOf } from '../../proc/git.js';
import { queueSystemHandoff } from '../../handoff/systemSend.js';
import { printable } from '../../fsx/printable.js';
import { artifactExtensionOf, importArtifactFile, sha256Of } from '../gates/artifacts.js';
import { parseLaneFile, parseResolutionFile, parseValidationFile } from '../gates/evidence.js';
import { generationOf, requestKey, requestKeyParts } from './controllerMail.js';
import { awaitedGenerationOf } from './replyDeadlines.js';
import { mailboxOf, type RunPaths } from '../../project/layout.js';
import { itemNamesIn } from '../../queue/index.js';
import { join } from 'node:path';
import { awaitedKeys, awaitedRoleOf } from './awaited.js';
import { readPhase, type ControllerPhase } from './controllerPhase.js';
import { readWorkflow } from '../record/runStore.js';
import { isTerminal, type Lane, type Workflow } from '../record/workflow.js';

/** The kinds of reply. */
export const REPLY_KINDS = ['work', 'review', 'validation', 'resolution', 'question'] as const;
/** One kind of reply. */
export type ReplyKind = (typeof REPLY_KINDS)[number];

/** What an agent replies. */
export interface Reply {
  runId: string;
  kind: ReplyKind;
  stage: string;
  cycle: number;
  lane?: string;
  file: string;
  role: string;
}

/**
 * The stage a reply of `kind` must name: the active stage for work and questions, `review` for the
 * review kinds.
 */
export function expectedStageOf(wf: Workflow, kind: ReplyKind): string | null {
  if (kind === 'review' || kind === 'validation' || kind === 'resolution') return 'review';
  return wf.active_stage ?? wf.last_completed_stage;
}

/** Refuses a reply that does not belong to the run's current stage and cycle. */
function requireCurrent(wf: Workflow, r: Reply): void {
  if (isTerminal(wf.status))
    fail('refused', `run ${wf.run_id} is ${wf.status}: it takes no replies`);
  if (r.cycle !== wf.review_cycle)
    fail('refused', `run ${wf.run_id} is in cycle ${wf.review_cycle}, not ${r.cycle}`);
  const stage = expectedStageOf(wf, r.kind);
  if (r.stage !== stage)
    fail(
      'refused',
      `a ${r.kind} reply of run ${wf.run_id} names stage ${stage ?? '(none)'}, not ${r.stage}`,
    );
  if (r.kind === 'review' && r.lane !== 'structured' && r.lane !== 'independent')
    fail('usage', 'a review reply names its lane: --lane structured|independent');
}

/**
 * Refuses a reply from a role other than the one asked (when the caller's role is known), or one
 * that nothing awaits now: answered already, or not asked for in this phase (runtime.md §11.2).
 * A worker's question is not a reply to a request.
 */
function requireAwaited(wf: Workflow, phase: ControllerPhase, r: Reply, key: string): void {
  if (r.kind === 'question') return;
  const role = awaitedRoleOf(wf, r.kind, r.lane);
  const lane = r.lane ? ` (${r.lane} lane)` : '';
  if (r.role !== role)
    fail(
      'refused',
      `${r.role} is not asked for the ${r.kind}${lane} of cycle ${r.cycle}: ${role} is`,
    );
  if (key in phase.replies)
    fail('refused', `the ${r.kind}${lane} of cycle ${r.cycle} was answered already`);
  if (!awaitedKeys(wf).includes(key))
    fail(
      'refused',
      `run ${wf.run_id} does not await a ${r.kind}${lane} now (${wf.status}/${wf.phase})`,
    );
}

/**
 * The generation of the request this reply answers (runtime.md §11.2): the newest generation of
 * it the role holds in process; else the one the controller awaits; else none said.
 */
function generationAnswered(root: string, r: Reply, key: string, phase: ControllerPhase) {
  const held = mailboxOf(root, r.role).inProcess;
  let newest: number | undefined;
  for (const name of fs.existsSync(held) ? itemNamesIn(held) : []) {
    const text = fs.readFileSync(join(held, name), 'utf8').slice(0, 8192);
    if (!text.includes(`\nkey: ${key}\n`)) continue;
    const generation = Number(/\ngeneration: ([0-9]+)\n/.exec(text)?.[1] ?? 1);
    newest = Math.max(newest ?? 0, generation);
  }
  return newest ?? awaitedGenerationOf(phase, key);
}

/**
 * The reply a request key names (`--key`): its kind, stage, cycle and lane taken from the key,
 * each of them also given on the command line required to agree.
 */
export function replyOfKey(
  key: string,
  given: Partial<Pick<Reply, 'kind' | 'stage' | 'cycle' | 'lane'>>,
): Pick<Reply, 'runId' | 'kind' | 'stage' | 'cycle' | 'lane'> {
  const parts = requestKeyParts(key);
  if (!parts || !(REPLY_KINDS as readonly string[]).includes(parts.kind))
    fail('usage', `reply: --key '${printable(key)}' is not a request key of a run`);
  for (const field of ['kind', 'stage', 'cycle', 'lane'] as const) {
    const value = given[field];
    if (value !== undefined && value !== parts[field])
      fail(
        'usage',
        `reply: --${field} ${value} disagrees with --key, which names ` +
          `${String(parts[field] ?? 'no ' + field)}`,
      );
  }
  return { ...parts, kind: parts.kind as ReplyKind };
}

/** The file, which must be inside the caller's git work tree. */
function requireInsideWorktree(cwd: string, file: string): string {
  const path = resolve(cwd, file);
  if (!fs.existsSync(path)) fail('usage', `no such file '${printable(file)}'`);
  const top = worktreeTopOf(cwd);
  const real = fs.realpathSync(path);
  const rel = relative(top, real);
  if (rel === '' || rel.startsWith('..') || rel.split(sep)[0] === '..')
    fail('refused', `'${printable(file)}' is outside your worktree '${top}'`);
  return real;
}

/**
 * Why the controller could not use a reply file of `kind` for `cycle` (and `lane`), or undefined
 * (runtime.md §11.1): review, validation and resolution files must parse as §6 says; work and
 * questions must say something. The problem names the place and the rule.
 */
export async function replyFileProblem(
  kind: ReplyKind,
  text: string,
  cycle: number,
  lane?: string,
): Promise<string | undefined> {
  if (kind === 'work' || kind === 'question')
    return text.trim() === '' ? 'the file is empty; say what you did or ask' : undefined;
  try {
    if (kind === 'review') await parseLaneFile(text, { lane: lane as Lane, cycle });
    else if (kind === 'validation') await parseValidationFile(text, cycle);
    else await parseResolutionFile(text, cycle);
    return undefined;
  } catch (err) {
    if (!(err instanceof CommandFailure)) throw err;
    return err.lines.join(' ').replace(/^invalid [a-z ]+ file: /, '');
  }
}

/** Refuses (exit 2) a reply file its controller could not use: one line, file, place, rule. */
async function requireUsableFile(r: Reply, source: string): Promise<void> {
  const problem = await replyFileProblem(r.kind, fs.readFileSync(source, 'utf8'), r.cycle, r.lane);
  if (problem !== undefined) fail('invalid', `${printable(basename(r.file))}: ${problem}`);
}

/**
 * The artifact name of a reply: `<stage>-c<cycle>-<kind>[-<lane>][-g<generation>][-a<attempt>]`
 * (after the controller rejected k replies to its request, the next one is attempt k + 1).
 */
function replyNameOf(wf: Workflow, rejected: number, r: Reply, source: string): string {
  const generation = generationOf(wf);
  const lane = r.lane ? `-${r.lane}` : '';
  const retried = generation > 0 ? `-g${generation}` : '';
  const attempt = rejected > 0 ? `-a${rejected + 1}` : '';
  const ext = artifactExtensionOf(source);
  return `${r.stage}-c${r.cycle}-${r.kind}${lane}${retried}${attempt}.${ext}`;
}

/** A reply queued: its artifact's path in the run, and the record it was checked against. */
export interface QueuedReply {
  artifact: string;
  workflow: Workflow;
  paths: RunPaths;
}

/**
 * Copies the reply into the run's artifacts and queues its run_result; returns the artifact's path
 * in the run, with the record read for the checks (`baton run reply` prints its status without
 * reading and checking it again). The clock is read when the run_result is made, after the checks
 * and the artifact's fsync'd copy: its created_at says when the reply was queued, not when the
 * command started.
 */
export async function replyToRun(
  root: string,
  cwd: string,
  r: Reply,
  clock: () => Date = () => new Date(),
): Promise<QueuedReply> {
  const { workflow, paths } = readWorkflow(root, r.runId);
  requireCurrent(workflow, r);
  const key = requestKey(workflow, r.kind, r.stage, r.lane);
  const phase = readPhase(paths);
  requireAwaited(workflow, phase, r, key);
  const source = requireInsideWorktree(cwd, r.file);
  await requireUsableFile(r, source);
  const name = replyNameOf(workflow, phase.rejections?.[key] ?? 0, r, source);
  const target = resolve(paths.artifacts, name);
  let sha256: string;
  if (fs.existsSync(target)) {
    sha256 = sha256Of(target);
    if (sha256 !== sha256Of(source))
      fail(
        'refused',
        `already replied: ${relative(paths.dir, target)} exists with ` +
          `other bytes; a reply is never overwritten`,
      );
  } else {
    sha256 = importArtifactFile(paths, source, cwd, [], {
      type: r.kind,
      producer: r.role,
      name,
    }).sha256;
  }
  const artifact = relative(paths.dir, target);
  const generation = generationAnswered(root, r, key, phase);
  const question = r.kind === 'question' ? fs.readFileSync(source, 'utf8').slice(0, 4096) : '';
  await queueSystemHandoff(
    root,
    r.role,
    {
      to: [workflow.roles.controller],
      priority: '40',
      type: 'run_result',
      headers: {
        run_id: r.runId,
        stage: r.stage,
        cycle: String(r.cycle),
        kind: r.kind,
        ...(r.lane ? { lane: r.lane } : {}),
        key,
        ...(generation === undefined ? {} : { generation: String(generation) }),
        artifact,
        sha256,
      },
      body:
        `${r.kind} reply of ${r.role} for run ${r.runId}, stage ` +
        `${r.stage}, cycle ${r.cycle}: ${artifact}\n${question}`,
    },
    clock(),
  );
  return { artifact, workflow, paths };
}
