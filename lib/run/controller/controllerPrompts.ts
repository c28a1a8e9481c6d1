// The bodies of the controller's requests (docs/runtime.md §9): bounded prompts that say
// what to do, where, and the exact reply command. Facts, not commands dressed as system
// messages; the task and findings are redacted and cut to a bound.
import { redactSecrets } from '../gates/redact.js';
import { type RunFinding, type Workflow } from '../record/workflow.js';

/** At most this many characters of a task or finding title go into a prompt. */
const BOUND = 2000;

const cut = (text: string) =>
  redactSecrets(text.length > BOUND ? `${text.slice(0, BOUND)}…` : text);

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

/** run_review: one lane's review of the cycle. */
export function reviewPrompt(wf: Workflow, lane: string): string {
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
    'Write one line per finding: FINDING <id> ' +
      '<Critical|Important|Minor|Nit> <title> (ids stable across ' +
      'cycles), then reply with:',
    replyCommand(wf, 'review', 'review', lane),
  ].join('\n');
}

const listed = (findings: RunFinding[]) =>
  findings.map((f) => `- ${f.id} ${f.severity} (${f.lane}): ${cut(f.title)}`).join('\n');

/** run_validate: the validator judges the blocking findings, read-only. */
export function validatePrompt(wf: Workflow, blocking: RunFinding[]): string {
  return [
    `Run ${wf.run_id}, review cycle ${wf.review_cycle}: validate ` +
      `these blocking findings. Read only: change nothing.`,
    listed(blocking),
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
