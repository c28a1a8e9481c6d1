// `baton run up <run-id>` and `baton run down <run-id>` (docs/runtime.md §9): the swarm
// for a run. up verifies the run first (it exists, is ACTIVE and, with --request, is that
// request's) and stops with nothing created when it does not; then it starts the swarm of
// swarmforge.conf plus the run's controller role, whose window runs `baton run drive
// <run-id> --reclaim-stale`, and the monitor, and waits for the agents to be ready
// (runtime.md §12.1). It never starts, resumes, approves or cancels
// the run itself. down stops the swarm (the controller with it); the run is untouched.
import { fail } from '../../fsx/commandFailure.js';
import { type ActionReport, type RunContext } from '../../run/record/runContext.js';
import { withExtra } from '../../run/record/runListing.js';
import { readWorkflow } from '../../run/record/runStore.js';
import { binDir, daemonControl } from '../swarmCommands.js';

/**
 * Verifies the run, then starts its swarm and controller (`driveArgs`: checked options of
 * `baton run drive`, --reply-attempts, --reply-timeout and flags, whose values hold no spaces).
 */
export async function runUp(
  ctx: RunContext,
  runId: string,
  request: string | undefined,
  driveArgs: string[] = [],
  readyTimeoutMs?: number,
  agentsUser?: string,
): Promise<ActionReport> {
  const { workflow } = readWorkflow(ctx.root, runId);
  if (request !== undefined && workflow.request_id !== request)
    fail(
      'refused',
      `run ${runId} is request ${workflow.request_id}, not ${request}: nothing started`,
    );
  if (workflow.status !== 'ACTIVE')
    fail(
      'refused',
      `run ${runId} is ${workflow.status}, not ACTIVE: nothing ` +
        `started (its owner resumes or retries it first)`,
    );
  const controller = {
    line: 0,
    role: workflow.roles.controller,
    agent: 'baton',
    worktree: 'master',
    mode: 'task' as const,
    extraArgs: [`run drive ${runId} --reclaim-stale`, ...driveArgs].join(' '),
  };
  const { swarmUp } = await import('../../swarm/up.js');
  const swarm = await swarmUp(ctx.root, {
    binDir: binDir(),
    daemon: await daemonControl(),
    extraWindows: [controller],
    readyTimeoutMs,
    ...(agentsUser === undefined ? {} : { agentsUser }),
  });
  // The report's text form is the run's status: a role not ready is said on stderr too.
  for (const r of swarm.readiness.filter((x) => !x.ready))
    process.stderr.write(`baton run up: role ${r.role} is not ready: ${r.reason}\n`);
  return withExtra(ctx, runId, {
    swarm: {
      session: swarm.session,
      socket: swarm.socket,
      daemon_pid: swarm.daemonPid,
      panes: Object.fromEntries(swarm.panes),
      readiness: swarm.readiness,
    },
  });
}

/** Stops the run's swarm; the run itself is untouched. */
export async function runDown(ctx: RunContext, runId: string): Promise<ActionReport> {
  readWorkflow(ctx.root, runId);
  const { swarmDown } = await import('../../swarm/up.js');
  const stopped = await swarmDown(ctx.root, await daemonControl());
  return withExtra(ctx, runId, {
    swarm_stopped: { daemon_pid: stopped.daemon ?? null, tmux_server: stopped.server },
  });
}
