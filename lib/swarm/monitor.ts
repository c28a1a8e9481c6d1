// `baton monitor`: one view of the swarm per refresh: per role the pane's state, the queue
// counts, what is in process and for how long, the last delivery and wake-up; and the
// daemon's health. Reads files, the daemon log's tail and tmux; changes nothing.
// A daemon that was killed leaves its log and health.json behind: only the live holder of
// its lock counts as running, and a problem it logged is shown as the previous run's, never
// as the current state. Each run starts with a `started` line; a run that ended without a
// `stopped` line was killed or crashed. A role whose mail waited through every re-wake and
// is still unclaimed gets a line under the table (status.ts's unclaimedLine). With a
// roster, the bridge as lib/admin/bridgeView.ts reads it: the link, each role's node and
// counts, remote roles marked in the table.
import { Tmux, type PaneInfo } from '../adapters/tmux.js';
import { bridgeLines, bridgeViewOf, roleLabel, type BridgeView } from '../admin/bridgeView.js';
import {
  daemonLogTail,
  daemonStatus,
  parseLogLine,
  type DaemonStatus,
} from '../project/daemonRecord.js';
import { humanDuration, statusOf, unclaimedLine, type RoleStatus } from '../admin/status.js';
import { readPanes, recordedSocketOf } from '../project/tmuxRecord.js';
import { runningWebUrl } from '../project/webRecord.js';
import { isoOf } from '../fsx/timestamps.js';

/** One role's line of the monitor. */
export interface MonitorRole extends RoleStatus {
  pane: string | null;
  pane_state: string;
  last_delivery_at: string | null;
  last_wake_at: string | null;
}

/** The last run of handoffd in its log, shown while none runs. */
export interface PreviousRun {
  pid: string | null;
  started_at: string | null;
  /** When it logged `stopped`; null when it ended without (killed or crashed). */
  stopped_at: string | null;
  /** Its last problem (an error or wake-failed line), or null. */
  last_error: string | null;
}

/** The whole monitor view. */
export interface MonitorView {
  at: string;
  /**
   * `last_error`: the running daemon's last problem since it started (null when none runs);
   * `previous_run`: the last run, when none runs.
   */
  daemon: DaemonStatus & { last_error: string | null; previous_run: PreviousRun | null };
  /** With a roster only (absent without one). */
  bridge?: BridgeView;
  /** The address of the project's running `baton web`, without its token (web.md §1). */
  web?: string;
  roles: MonitorRole[];
}

/**
 * What the log tail says: last delivery and wake-up per role, and the last run with its last
 * problem.
 */
function readLog(root: string): {
  lastDelivery: Map<string, string>;
  lastWake: Map<string, string>;
  run: PreviousRun;
} {
  const lastDelivery = new Map<string, string>();
  const lastWake = new Map<string, string>();
  let run: PreviousRun = { pid: null, started_at: null, stopped_at: null, last_error: null };
  for (const line of daemonLogTail(root)) {
    const entry = parseLogLine(line);
    if (!entry) continue;
    if (entry.event === 'started')
      run = {
        pid: entry.details.pid ?? null,
        started_at: entry.at,
        stopped_at: null,
        last_error: null,
      };
    if (entry.event === 'stopped') run.stopped_at = entry.at;
    if (entry.event === 'delivered')
      for (const r of (entry.details.to ?? '').split(',')) lastDelivery.set(r, entry.at);
    if (entry.event === 'woke' && entry.details.role) lastWake.set(entry.details.role, entry.at);
    if (entry.event === 'error' || entry.event === 'wake-failed') run.last_error = line;
  }
  return { lastDelivery, lastWake, run };
}

async function panesOf(root: string): Promise<Map<string, PaneInfo>> {
  const byId = new Map<string, PaneInfo>();
  const socket = recordedSocketOf(root);
  if (!socket) return byId;
  try {
    for (const pane of await new Tmux(socket).listPanes()) byId.set(pane.id, pane);
  } catch {
    // no swarm running: pane states read "no pane"
  }
  return byId;
}

/**
 * Gathers the monitor view of the project at `root`; an invalid roster fails as readRoster does.
 */
export async function monitorView(
  root: string,
  now = Date.now(),
  env: NodeJS.ProcessEnv = process.env,
): Promise<MonitorView> {
  const bridge = bridgeViewOf(root, env);
  const { lastDelivery, lastWake, run } = readLog(root);
  const panes = await panesOf(root);
  const paneIds = readPanes(root);
  const roles = statusOf(root, now).map((row) => {
    const paneId = paneIds.get(row.role) ?? null;
    const pane = paneId ? panes.get(paneId) : undefined;
    return {
      ...row,
      pane: paneId,
      pane_state: !pane ? 'no pane' : pane.dead ? 'dead' : pane.command,
      last_delivery_at: lastDelivery.get(row.role) ?? null,
      last_wake_at: lastWake.get(row.role) ?? null,
    };
  });
  const status = daemonStatus(root);
  const ran = run.started_at !== null || run.last_error !== null;
  const daemon = status.running
    ? { ...status, last_error: run.last_error, previous_run: null }
    : { ...status, last_error: null, previous_run: ran ? run : null };
  const web = runningWebUrl(root);
  return {
    at: isoOf(new Date(now)),
    daemon,
    ...(bridge ? { bridge } : {}),
    ...(web ? { web } : {}),
    roles,
  };
}

function ago(iso: string | null, now: number): string {
  return iso === null
    ? '-'
    : `${humanDuration(Math.max(0, Math.round((now - Date.parse(iso)) / 1000)))} ago`;
}

/**
 * What the monitor says of the last run while no daemon runs: when it started and how it ended, and
 * its last problem, labelled as that run's.
 */
function previousRunLines(run: PreviousRun | null, now: number): string[] {
  if (!run) return [];
  const ended = run.stopped_at
    ? `stopped ${ago(run.stopped_at, now)}`
    : 'ended without logging stopped (killed or crashed)';
  const started = run.started_at ? `started ${ago(run.started_at, now)}, ` : '';
  return [
    `previous run${run.pid ? ` (pid ${run.pid})` : ''}: ${started}${ended}`,
    ...(run.last_error ? [`previous run's last problem: ${run.last_error}`] : []),
  ];
}

/** The lines about handoffd: running with its counts, or not, with what its previous run left. */
function daemonLines(d: MonitorView['daemon'], now: number): string[] {
  if (!d.running)
    return [
      'handoffd: NOT RUNNING: start it with baton daemon start',
      ...previousRunLines(d.previous_run, now),
    ];
  const counts = `delivered ${d.delivered}, failed ${d.failed}, errors ${d.errors}`;
  return [
    `handoffd: running (pid ${d.pid}), last pass ${ago(d.last_pass_at, now)}, ${counts}`,
    ...(d.last_error ? [`last problem: ${d.last_error}`] : []),
  ];
}

const ROLE_COLUMNS = [
  'ROLE',
  'PANE',
  'NEW',
  'IN_PROCESS',
  'DONE',
  'FAILED',
  'WORKING_FOR',
  'LAST_DELIVERY',
  'LAST_WAKE',
];

/** The per-role table, each column as wide as its widest cell. */
function roleTable(view: MonitorView, now: number): string[] {
  const rows = view.roles.map((r) => [
    roleLabel(r.role, view.bridge),
    r.pane_state,
    String(r.new),
    String(r.in_process),
    String(r.completed),
    String(r.failed),
    humanDuration(r.in_process_s),
    ago(r.last_delivery_at, now),
    ago(r.last_wake_at, now),
  ]);
  const widths = ROLE_COLUMNS.map((h, i) =>
    Math.max(h.length, ...rows.map((row) => row[i]!.length)),
  );
  return [ROLE_COLUMNS, ...rows].map((row) =>
    row
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd(),
  );
}

/** The view as text for a terminal. */
export function monitorText(view: MonitorView): string {
  const now = Date.parse(view.at);
  const current = view.roles
    .filter((r) => r.in_process_path)
    .map((r) => `  ${r.role}: ${r.in_process_path!.split('/').pop()}`);
  const unclaimed = view.roles
    .filter((r) => r.rewakes_spent)
    .map((r) => unclaimedLine(r.role, r.unclaimed_min ?? 0));
  const roles = view.roles.map((r) => r.role);
  const bridge = view.bridge ? bridgeLines(view.bridge, roles) : [];
  const lines = [
    `Baton monitor  ${view.at}`,
    ...daemonLines(view.daemon, now),
    ...(view.web ? [`web: ${view.web}`] : []),
    ...bridge,
    '',
    ...roleTable(view, now),
    ...(unclaimed.length ? ['', ...unclaimed] : []),
    ...(current.length ? ['', 'In process:', ...current] : []),
  ];
  return `${lines.join('\n')}\n`;
}
