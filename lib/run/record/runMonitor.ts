// The monitor's durable view of runs (docs/runtime.md §10): beside each pane's observed
// state, what each run's record says: status, phase, cycle, blocking count, the approval
// gate, how long the run has lasted, a worker's open question (from the controller's phase
// file), each agent role's observed state and what is awaited of it with its deadline, and
// the durable block reason, shown even when every pane looks idle; a run that is
// ACTIVE while no live controller holds its lease is shown as missing its controller.
// Reads only; a record that cannot be read is listed with its problem.
import { readPhase } from '../controller/controllerPhase.js';
import { leaseView, readLease } from './lease.js';
import { redactSecrets } from '../gates/redact.js';
import { readWorkflow, runIdsOf } from './runStore.js';
import { isTerminal, type Workflow } from './workflow.js';
import { agentsViewOf, type AgentView } from './agentsView.js';

/** One run as the monitor shows it. */
export interface RunMonitorView {
  run_id: string;
  request_id: string | null;
  status: string;
  phase: string | null;
  review_cycle: number | null;
  max_review_cycles: number | null;
  blocking_findings: number | null;
  approval_gate: boolean;
  duration_s: number | null;
  human_input: null | { question: string; waiting_s: number };
  block_reason: string | null;
  controller: 'live' | 'missing' | 'not needed';
  /** Each agent role's observed state and what is awaited of it (runtime.md §11.6). */
  agents: AgentView[];
  problem: string | null;
}

/** Terminal runs stay in the view this long after their last change. */
const RECENT_MS = 3_600_000;

/**
 * The controller's state for a run: live while a live lease is held, missing when an ACTIVE run has
 * none.
 */
function controllerOf(
  wf: Workflow,
  paths: ReturnType<typeof readWorkflow>['paths'],
  now: Date,
): RunMonitorView['controller'] {
  if (wf.status !== 'ACTIVE' && wf.status !== 'WAITING_FOR_HUMAN_APPROVAL') return 'not needed';
  try {
    const view = leaseView(readLease(paths), now, wf.history);
    return view.held && !view.stale ? 'live' : 'missing';
  } catch {
    return 'missing';
  }
}

/** The view of one readable run. */
function viewOf(
  wf: Workflow,
  paths: ReturnType<typeof readWorkflow>['paths'],
  now: Date,
): RunMonitorView {
  const question = readPhase(paths, now).question;
  const end = isTerminal(wf.status) ? Date.parse(wf.updated_at) : now.getTime();
  return {
    run_id: wf.run_id,
    request_id: wf.request_id,
    status: wf.status,
    phase: wf.phase,
    review_cycle: wf.review_cycle,
    max_review_cycles: wf.max_review_cycles,
    blocking_findings: wf.blocking_findings,
    approval_gate: wf.status === 'WAITING_FOR_HUMAN_APPROVAL',
    duration_s: Math.max(0, Math.round((end - Date.parse(wf.created_at)) / 1000)),
    human_input:
      question === null
        ? null
        : {
            question: redactSecrets(question.text).slice(0, 200),
            waiting_s: Math.max(0, Math.round((now.getTime() - Date.parse(question.since)) / 1000)),
          },
    block_reason: wf.block_reason === null ? null : redactSecrets(wf.block_reason),
    controller: controllerOf(wf, paths, now),
    agents: isTerminal(wf.status) ? [] : agentsViewOf(wf, paths, now),
    problem: null,
  };
}

/** Every run that is not over, and those that ended within the last hour. */
export function runsView(root: string, now = new Date()): RunMonitorView[] {
  const views: RunMonitorView[] = [];
  for (const id of runIdsOf(root)) {
    try {
      const { workflow, paths } = readWorkflow(root, id);
      if (
        isTerminal(workflow.status) &&
        now.getTime() - Date.parse(workflow.updated_at) > RECENT_MS
      )
        continue;
      views.push(viewOf(workflow, paths, now));
    } catch (err) {
      views.push({
        run_id: id,
        request_id: null,
        status: 'UNREADABLE',
        phase: null,
        review_cycle: null,
        max_review_cycles: null,
        blocking_findings: null,
        approval_gate: false,
        duration_s: null,
        human_input: null,
        block_reason: null,
        controller: 'not needed',
        agents: [],
        problem: (err as Error).message.split('\n')[0]!,
      });
    }
  }
  return views;
}

/** The runs as monitor lines (none when there are no runs). */
export function runsText(views: RunMonitorView[]): string {
  if (views.length === 0) return '';
  const lines = views.map((v) => {
    if (v.problem) return `  ${v.run_id}  UNREADABLE: ${v.problem}`;
    const parts = [
      `${v.status}/${v.phase}`,
      `cycle ${v.review_cycle}/${v.max_review_cycles}`,
      `blocking ${v.blocking_findings}`,
      `${v.duration_s}s`,
    ];
    if (v.approval_gate) parts.push('WAITING FOR YOUR APPROVAL');
    if (v.human_input)
      parts.push(`QUESTION waiting ${v.human_input.waiting_s}s: ${v.human_input.question}`);
    if (v.block_reason) parts.push(`BLOCKED: ${v.block_reason}`);
    if (v.controller === 'missing') parts.push('CONTROLLER MISSING (no live lease)');
    const agents = v.agents.map((a) => `\n    ${a.line}`).join('');
    return `  ${v.run_id} (${v.request_id})  ${parts.join('  ')}${agents}`;
  });
  return ['', 'Runs:', ...lines].join('\n') + '\n';
}
