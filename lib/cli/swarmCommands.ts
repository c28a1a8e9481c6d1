// The swarm-level `baton` commands: daemon start|stop|status, up, down, attach, monitor,
// demo. This is where the launcher (lib/swarm) meets the daemon's control (lib/daemon):
// the two never import each other, so the commands hand the launcher a DaemonControl.
// Each handler imports what it runs when it runs (a `baton` call loads only its command).
import * as fs from 'node:fs';
import { dirname, join } from 'node:path';
import type { Argv, CommandModule } from 'yargs';
import { daemonStatus } from '../project/daemonRecord.js';
import { fail } from '../fsx/commandFailure.js';
import { findRoot } from '../project/root.js';
import { type DaemonControl } from '../swarm/up.js';
import { DEFAULT_READY_TIMEOUT_MS, type Readiness } from '../swarm/readiness.js';
import { exitAs } from './failure.js';
import { importLines } from './queueCommands.js';
import { flag, json } from './commandShapes.js';

const write = (text: string): void => {
  process.stdout.write(text);
};
/** The folder of the built bins: the one of the running entry point. */
export const binDir = (): string => dirname(fs.realpathSync(process.argv[1]!));

/** handoffd of the running installation, started and stopped for the launcher. */
export async function daemonControl(): Promise<DaemonControl> {
  const { startDaemon, stopDaemon } = await import('../daemon/control.js');
  return {
    start: (root, extraArgs) =>
      startDaemon({ root, handoffdPath: join(binDir(), 'handoffd.js'), extraArgs }),
    stop: async (root) => (await stopDaemon(root))?.pid,
  };
}
const daemon: CommandModule = {
  command: 'daemon <action>',
  describe:
    'Run handoffd in the background: start, stop (TERM, then KILL after a timeout) or status',
  builder: (y) =>
    json(
      y.positional('action', { choices: ['start', 'stop', 'status'] as const, demandOption: true }),
    ).option('timeout', {
      type: 'number',
      default: 10,
      describe: 'Seconds stop waits before escalating',
    }),
  handler: async (args) => {
    const root = findRoot(process.cwd(), process.env);
    const { startDaemon, stopDaemon } = await import('../daemon/control.js');
    if (args.action === 'start') {
      const pid = await startDaemon({ root, handoffdPath: `${binDir()}/handoffd.js` });
      write(
        args.json ? `${JSON.stringify({ started: true, pid })}\n` : `DAEMON STARTED: pid ${pid}\n`,
      );
    } else if (args.action === 'stop') {
      const stopped = await stopDaemon(root, (args.timeout as number) * 1000);
      if (args.json) write(`${JSON.stringify({ stopped: Boolean(stopped), ...stopped })}\n`);
      else
        write(
          stopped
            ? `DAEMON STOPPED: pid ` +
                `${stopped.pid}${stopped.escalated ? ' (killed after the timeout)' : ''}\n`
            : 'DAEMON NOT RUNNING\n',
        );
    } else {
      const status = daemonStatus(root);
      write(
        args.json
          ? `${JSON.stringify(status)}\n`
          : status.running
            ? `DAEMON RUNNING: pid ${status.pid}, last pass ` +
              `${status.last_pass_at}, delivered ${status.delivered}, ` +
              `failed ${status.failed}, errors ${status.errors}\n`
            : 'DAEMON NOT RUNNING\n',
      );
      if (!status.running) exitAs('notRunning');
    }
  },
};

/** `--ready-timeout` of up and run up (runtime.md §12.1): seconds, checked. */
export function readyTimeoutOption<T>(y: Argv<T>) {
  return y.option('ready-timeout', {
    type: 'number',
    default: DEFAULT_READY_TIMEOUT_MS / 1000,
    describe: "Seconds to wait for each agent to be ready before it is reported 'not ready'",
  });
}

/** The --ready-timeout given, in milliseconds; a usage error unless 0 or more seconds. */
export function readyTimeoutMsOf(args: Record<string, unknown>, command: string): number {
  const seconds = args['ready-timeout'] as number;
  if (!(seconds >= 0) || !Number.isFinite(seconds))
    fail('usage', `${command}: --ready-timeout takes seconds (0 or more), not ${String(seconds)}`);
  return seconds * 1000;
}

/** One line per role: how its agent was found ready, or why it is not. */
export function readinessLines(readiness: readonly Readiness[]): string {
  const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  return readiness
    .map((r) =>
      r.ready
        ? `READY: ${r.role} (${r.sign}, ${seconds(r.after_ms)}` +
          `${r.enter_sent ? ', first prompt submitted with one Enter' : ''})\n`
        : `NOT READY: ${r.role} (${r.reason}, ${seconds(r.after_ms)})\n`,
    )
    .join('');
}

const up: CommandModule = {
  command: 'up',
  describe:
    'Start the swarm: worktrees, roles.tsv, tmux (one window per role + monitor), handoffd, ' +
    'agents; waits until each agent is ready',
  builder: (y) =>
    readyTimeoutOption(json(y))
      .option('poll-interval', {
        type: 'number',
        default: 1000,
        describe: 'handoffd: milliseconds between full passes',
      })
      .option('rewake-interval', {
        type: 'number',
        default: 60,
        describe: 'handoffd: seconds before an idle recipient with mail is woken again',
      })
      .option('agents-user', {
        type: 'string',
        describe:
          'Run the agents as this OS user, through sudo (after baton share; ' +
          'docs/runtime.md, "A hard boundary")',
      }),
  handler: async (args) => {
    const readyTimeoutMs = readyTimeoutMsOf(args, 'baton up');
    const daemonArgs = [
      '--poll-interval',
      String(args['poll-interval']),
      '--rewake-interval',
      String(args['rewake-interval']),
    ];
    const { swarmUp } = await import('../swarm/up.js');
    const swarm = await swarmUp(process.cwd(), {
      binDir: binDir(),
      daemon: await daemonControl(),
      daemonArgs,
      readyTimeoutMs,
      ...(args['agents-user'] === undefined ? {} : { agentsUser: String(args['agents-user']) }),
    });
    if (args.json) {
      write(
        `${JSON.stringify({
          session: swarm.session,
          socket: swarm.socket,
          daemon_pid: swarm.daemonPid,
          panes: Object.fromEntries(swarm.panes),
          readiness: swarm.readiness,
          imports: swarm.imports,
        })}\n`,
      );
      return;
    }
    const panes = [...swarm.panes].map(([r, p]) => `PANE: ${r} ${p}\n`).join('');
    const attach = `baton attach   (or: tmux -S ${swarm.socket} attach -t ${swarm.session})`;
    write(
      `SWARM UP: session ${swarm.session}\nDAEMON: pid ${swarm.daemonPid}\n` +
        `${panes}${readinessLines(swarm.readiness)}ATTACH: ${attach}\n` +
        importLines(swarm.imports),
    );
  },
};

const down: CommandModule = {
  command: 'down',
  describe: "Stop handoffd and the swarm's tmux server (worktrees and roles.tsv stay)",
  handler: async () => {
    const { swarmDown } = await import('../swarm/up.js');
    const stopped = await swarmDown(process.cwd(), await daemonControl());
    const what = stopped.daemon
      ? `daemon pid ${stopped.daemon} stopped`
      : stopped.server
        ? 'tmux server stopped'
        : 'nothing was running';
    write(`SWARM DOWN: ${what}\n`);
  },
};

const restart: CommandModule = {
  command: 'restart <role>',
  describe:
    "Restart one role's agent in its pane (TERM, then KILL after --grace), the rest untouched",
  builder: (y) =>
    json(y.positional('role', { type: 'string', demandOption: true })).option('grace', {
      type: 'number',
      default: 5,
      describe: 'Seconds between SIGTERM and SIGKILL',
    }),
  handler: async (args) => {
    const grace = args.grace as number;
    if (!(grace >= 0) || !Number.isFinite(grace))
      fail('usage', `baton restart: --grace takes seconds (0 or more), not ${String(grace)}`);
    const { restartRole } = await import('../swarm/restart.js');
    const done = await restartRole(process.cwd(), args.role as string, {
      binDir: binDir(),
      graceMs: grace * 1000,
    });
    write(
      args.json
        ? `${JSON.stringify(done)}\n`
        : `RESTARTED: ${done.role} in pane ${done.pane}, pid ${done.pid}\n`,
    );
  },
};

const share: CommandModule = {
  command: 'share',
  describe:
    'Share the project with agents run as another OS user in --group: mailboxes and replies ' +
    'writable, the run records only readable (docs/runtime.md, "A hard boundary")',
  builder: (y) =>
    json(y)
      .option('group', {
        type: 'string',
        demandOption: true,
        describe: "The group the owner and the agents' user share (a name or a gid)",
      })
      .option('dry-run', flag('Count what would change; change nothing')),
  handler: async (args) => {
    const { shareProject } = await import('../admin/share.js');
    const root = findRoot(process.cwd(), process.env);
    const report = shareProject(root, String(args.group), args['dry-run'] === true);
    if (args.json) return write(`${JSON.stringify(report)}\n`);
    const verb = report.dryRun ? 'WOULD SHARE' : 'SHARED';
    for (const part of report.parts)
      write(`${verb}: ${part.path} (${part.changed} of ${part.entries} changed)\n`);
    write(`${verb}: group ${report.group} (gid ${report.gid})\n`);
  },
};

const attach: CommandModule = {
  command: 'attach',
  describe: "Attach this terminal to the swarm's tmux session",
  handler: async () => {
    const [{ swarmAddress }, { attachSession }] = await Promise.all([
      import('../swarm/up.js'),
      import('../adapters/tmux.js'),
    ]);
    const { socket, session } = swarmAddress(process.cwd());
    const code = await attachSession(socket, session);
    if (code !== 0)
      fail(
        'environment',
        `baton: tmux attach-session ended with ${code === null ? 'a signal' : `exit ${code}`}`,
      );
  },
};

const monitor: CommandModule = {
  command: 'monitor',
  describe:
    'Live view of every role and the daemon, and with a roster ' +
    'the bridge (refreshes every second; q quits)',
  builder: (y) => json(y).option('once', flag('Print one view and exit')),
  handler: async (args) => {
    const root = findRoot(process.cwd(), process.env);
    if (!args.once)
      return (await import('./liveMonitor.js')).liveMonitor(root, args.json as boolean, write);
    const { monitorText, monitorView } = await import('../swarm/monitor.js');
    const { runsText, runsView } = await import('../run/record/runMonitor.js');
    const view = { ...(await monitorView(root)), runs: runsView(root) };
    write(args.json ? `${JSON.stringify(view)}\n` : `${monitorText(view)}${runsText(view.runs)}`);
  },
};

const demo: CommandModule = {
  command: 'demo',
  describe:
    'Run a swarm of scripted agents end to end in a private tmux ' +
    'server: coder → reviewer → qa; --review: a coder and two ' +
    'review teachers; --run: a durable run and its controller',
  builder: (y) =>
    y
      .option('tasks', {
        type: 'number',
        describe: 'How many tasks to push through (default 4, or 2 with --review)',
      })
      .option('review', {
        type: 'boolean',
        default: false,
        describe:
          'The review stage: a coder, a CTO and a COO teacher; every other task fails review',
      })
      .option('run', {
        type: 'boolean',
        default: false,
        describe:
          'A durable run driven by its controller: stage, two review ' +
          'cycles, validation, resolution, approval',
      })
      .option('attach', {
        type: 'boolean',
        default: false,
        describe: 'Attach to the swarm to watch it live (detach with C-b d)',
      })
      .option('keep', {
        type: 'boolean',
        default: false,
        describe: 'Keep the demo project on disk',
      })
      .option('timeout', {
        type: 'number',
        default: 180,
        describe: 'Seconds before the demo gives up',
      })
      .check((a) => !(a.review && a.run) || '--review and --run are two demos: choose one')
      .check(
        (a) =>
          a.tasks === undefined ||
          (Number.isInteger(a.tasks) && (a.tasks as number) >= 1) ||
          '--tasks must be a whole number of at least 1',
      ),
  handler: async (args) => {
    const options = {
      binDir: binDir(),
      daemon: await daemonControl(),
      tasks: (args.tasks as number | undefined) ?? (args.review ? 2 : 4),
      attach: args.attach as boolean,
      keep: args.keep as boolean,
      timeoutMs: (args.timeout as number) * 1000,
      out: write,
    };
    if (args.run) await (await import('../scripted/runDemo.js')).runRunDemo(options);
    else if (args.review) await (await import('../scripted/reviewDemo.js')).runReviewDemo(options);
    else await (await import('../scripted/demo.js')).runDemo(options);
  },
};

/** The swarm commands, for the `baton` command line. */
export const SWARM_COMMANDS: CommandModule[] = [
  daemon,
  up,
  down,
  restart,
  share,
  attach,
  monitor,
  demo,
];
