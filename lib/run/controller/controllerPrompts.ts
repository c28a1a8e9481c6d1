// The bodies of the controller's requests (docs/runtime.md §9): bounded prompts that say
// what to do, where, and the exact reply command. Facts, not commands dressed as system
// messages; the task and findings are redacted and cut to a bound. Evidence an agent must
// read (the lanes' full reports, the last cycle's findings: §11.8) is named by its path in
// the run folder, never pasted in: agents' text reaches another agent only as a file.
import { printable } from '../../fsx/printable.js';
import { runPathsOf } from '../../project/layout.js';
import { redactSecrets } from '../gates/redact.js';
import { type Artifact, type Lane, type RunFinding, type Workflow } from '../record/workflow.js';

/** At most this many characters of a task or finding title go into a prompt. */
const BOUND = 2000;

const cut = (text: string) =>
  redactSecrets(text.length > BOUND ? `${text.slice(0, BOUND)}…` : text);

/**
 * The run folder as an agent finds it when the controller names none: under ROOT as the agent's
 * environment names it (`baton up` sets SWARMFORGE_ROOT for each agent, and the agent's `baton run
 * reply` finds the run there too).
 */
export function agentRunDirOf(wf: Workflow): string {
  return runPathsOf('$SWARMFORGE_ROOT', wf.run_id).dir;
}

/** An artifact's path in the run folder, printable and bounded. */
const pathIn = (runDir: string, a: Artifact) => cut(printable(`${runDir}/${a.path}`));

/** The last registered artifact of `type` whose path matches `name`. */
const lastArtifact = (wf: Workflow, type: string, name: (path: string) => boolean) =>
  wf.artifacts.filter((a) => a.type === type && name(a.path)).at(-1);

/**
 * The findings of `cycle` with their validation and resolution, as resolve-review wrote them
 * (`artifacts/review-c<cycle>-findings[-<n>].json`).
 */
export function carriedFindingsOf(wf: Workflow, cycle: number): Artifact | undefined {
  const name = new RegExp(`^artifacts/review-c${cycle}-findings(-[0-9]+)?\\.json$`);
  return lastArtifact(wf, 'findings', (path) => name.test(path));
}

/** The report of `lane` registered by the review of the current cycle. */
export function laneReportOf(wf: Workflow, lane: Lane): Artifact | undefined {
  const prefix = `artifacts/review-c${wf.review_cycle}-`;
  return wf.artifacts
    .filter((a) => a.type === 'review' && a.path.startsWith(prefix))
    .filter((a) => a.producer === lane || a.path.slice(prefix.length).includes(lane))
    .at(-1);
}

/** The reply command line for a request. */
export function replyCommand(wf: Workflow, kind: string, stage: string, lane?: string): string {
  return (
    `baton run reply ${wf.run_id} --kind ${kind} --stage ${stage} ` +
    `--cycle ${wf.review_cycle}${lane ? ` --lane ${lane}` : ''} ` +
    `--file <your file>`
  );
}

/** run_stage: the worker's stage. */
export function stagePrompt(wf: Workflow, stage: string): string {
  return [
    `Run ${wf.run_id}, stage ${stage}, cycle ${wf.review_cycle}.`,
    `Task: ${cut(wf.task)}`,
    `Repository: ${wf.repo_root} (base ${wf.base_ref}, ${wf.base_commit.slice(0, 12)})`,
    `Spec: ${wf.spec_ref}`,
    'When the work is committed, write a short report and reply with:',
    replyCommand(wf, 'work', stage),
    `A question instead: ${replyCommand(wf, 'question', stage)}`,
  ].join('\n');
}

/**
 * What the reviewers of a cycle after the first get from the one before (§11.8): where its findings
 * are, with their validation and resolution, and that ids stay as they were.
 */
function carriedLines(wf: Workflow, runDir: string): string[] {
  const last = wf.review_cycle - 1;
  if (last < 1) return [];
  const carried = carriedFindingsOf(wf, last);
  return [
    ...(carried === undefined
      ? []
      : [
          `Cycle ${last}'s findings, with their validation and resolution: ` +
            `${pathIn(runDir, carried)}`,
        ]),
    `A finding still there keeps its id from cycle ${last}; a new problem gets a new id; ` +
      'leave out what is fixed.',
  ];
}

/** run_review: one lane's review of the cycle (`runDir`: the run folder as agents reach it). */
export function reviewPrompt(wf: Workflow, lane: string, runDir = agentRunDirOf(wf)): string {
  const extra =
    lane === 'independent'
      ? 'Review independently of the other lane, and add an ' +
        'architecture pass: structure, boundaries, what will be hard ' +
        'to change.'
      : 'Review against the spec, line by line.';
  return [
    `Run ${wf.run_id}, review cycle ${wf.review_cycle}, lane ${lane}.`,
    `Task: ${cut(wf.task)}`,
    `Repository: ${wf.repo_root} at ${wf.current_commit.slice(0, 12)}; spec ${wf.spec_ref}.`,
    extra,
    ...carriedLines(wf, runDir),
    'Write one line per finding: FINDING <id> ' +
      '<Critical|Important|Minor|Nit> <title> (ids stable across ' +
      'cycles), then reply with:',
    replyCommand(wf, 'review', 'review', lane),
  ].join('\n');
}

/** One line per finding; a title is an agent's text, so it cannot start a line of its own. */
const listed = (findings: RunFinding[]) =>
  findings.map((f) => `- ${f.id} ${f.severity} (${f.lane}): ${cut(printable(f.title))}`).join('\n');

/** Where each lane's full report of the cycle is. */
function reportLines(wf: Workflow, runDir: string): string[] {
  return [
    "Each lane's full report (read it: a title is not the whole finding):",
    ...(['structured', 'independent'] as const).map((lane) => {
      const report = laneReportOf(wf, lane);
      return `  ${lane}: ${report === undefined ? '(none registered)' : pathIn(runDir, report)}`;
    }),
  ];
}

/**
 * run_validate: the validator judges the blocking findings, read-only, from both lanes' full
 * reports (`runDir`: the run folder as the agent reaches it).
 */
export function validatePrompt(
  wf: Workflow,
  blocking: RunFinding[],
  runDir = agentRunDirOf(wf),
): string {
  return [
    `Run ${wf.run_id}, review cycle ${wf.review_cycle}: validate ` +
      `these blocking findings. Read only: change nothing.`,
    listed(blocking),
    ...reportLines(wf, runDir),
    'Write JSON {"cycle": N, "findings": [{"id", "valid": ' +
      'true|false, "reason"}]} covering each, then reply with:',
    replyCommand(wf, 'validation', 'review'),
  ].join('\n');
}

/** run_resolve: the worker fixes the validated findings. */
export function resolvePrompt(wf: Workflow, valid: RunFinding[]): string {
  return [
    `Run ${wf.run_id}, review cycle ${wf.review_cycle}: resolve these validated findings.`,
    listed(valid),
    'Commit the fixes, write JSON {"cycle": N, "resolved": ' +
      '[{"id", "change", "tests"}]} covering each, then reply with:',
    replyCommand(wf, 'resolution', 'review'),
  ].join('\n');
}

/** The persona of each kind of request's role (review.md §7's `student-<role>` names). */
export const STUDENT_PERSONA_OF = {
  work: 'student-worker',
  resolution: 'student-worker',
  review: 'student-reviewer',
  validation: 'student-validator',
} as const;

/** A persona as a request carries it: its name, the file it came from, its text. */
export interface PromptPersona {
  name: string;
  /** The file used; undefined for Baton's one-line default. */
  path?: string;
  text: string;
}

/** At most this many characters of a persona go into a request. */
const PERSONA_BOUND = 6000;

/**
 * A request's body with the role's persona after it, under its own heading that names the
 * file (the request comes first: what to do, then who to be while doing it).
 */
export function withPersona(body: string, persona: PromptPersona | undefined): string {
  if (persona === undefined) return body;
  const text =
    persona.text.length > PERSONA_BOUND ? `${persona.text.slice(0, PERSONA_BOUND)}…` : persona.text;
  const from = persona.path === undefined ? "Baton's default" : printable(persona.path);
  return `${body}\n\nYour persona (${persona.name}, from ${from}):\n${text}`;
}
