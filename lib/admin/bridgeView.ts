// The bridge as `baton status`, `baton monitor` and `baton doctor` show it (docs/bridge.md
// §4), read without the NATS client: the roster says where each role lives (remote roles
// with their node), and bridge.json, which handoffd's bridge rewrites every 2 s and on each
// link change, says whether the link is up and what the server holds per role. bridge.json
// is believed only while the handoffd that wrote it runs: its pid must be the live holder
// of the daemon's lock and the pid in the daemon's pid file. A killed daemon leaves a
// report that still says `connected`, and a pid can be reused; otherwise the link reads
// not connected, with the reason in last_error, and no counts. Reads only; takes no lock.
// The report never holds credentials (the bridge redacts its errors); nothing here reads
// the credentials file.
import * as fs from 'node:fs';
import { printable } from '../fsx/printable.js';
import { runningDaemon } from '../project/daemonRecord.js';
import { readBridgeReport, type BridgeReport } from '../project/bridgeRecord.js';
import { daemonPathsOf } from '../project/layout.js';
import { knownLocalNodeOf, readRoster, type Roster } from '../handoff/roster.js';

/**
 * The bridge as status, monitor and doctor show it: `bridge` in their --json (docs/bridge.md §4):
 * the running handoffd's report without its bookkeeping, and `node`, the local node, null while
 * it is unknown. `remote_roles` maps every role the roster puts on another node to that node;
 * `stream` is null while unknown (no running, connected link).
 */
export type BridgeView = Omit<BridgeReport, 'pid' | 'node' | 'swarm' | 'updated_at'> & {
  node: string | null;
};

/**
 * Where the link state comes from: no handoffd runs, the running one wrote no report, or its
 * report.
 */
export type LinkSource = 'daemon-not-running' | 'no-report' | 'report';

/** The link part of a view, and where it comes from. */
export interface BridgeLink {
  source: LinkSource;
  link: Pick<BridgeView, 'connected' | 'last_error' | 'pending' | 'unacked' | 'stream'>;
}

/** last_error while no handoffd runs. */
export const BRIDGE_DAEMON_NOT_RUNNING = 'handoffd is not running';

/**
 * last_error while the running handoffd has no report (started before nodes.conf existed, or just
 * starting).
 */
export const BRIDGE_NO_REPORT =
  'the running handoffd has written no bridge.json: restart it ' +
  'if it started before nodes.conf existed';

/** The pid in the daemon's pid file, or undefined. */
function pidFileOf(root: string): number | undefined {
  try {
    const pid = Number(fs.readFileSync(daemonPathsOf(root).pid, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The pid of the project's running handoffd when its lock and its pid file agree on it, else
 * undefined.
 */
export function runningHandoffdOf(root: string): number | undefined {
  const holder = runningDaemon(root);
  return holder !== undefined && pidFileOf(root) === holder ? holder : undefined;
}

/**
 * The link as the running handoffd reported it, or not connected with the reason when none runs or
 * it wrote no report.
 */
export function bridgeLinkOf(root: string): BridgeLink {
  const down = (source: LinkSource, reason: string): BridgeLink => ({
    source,
    link: { connected: false, last_error: reason, pending: {}, unacked: {}, stream: null },
  });
  const pid = runningHandoffdOf(root);
  if (pid === undefined) return down('daemon-not-running', BRIDGE_DAEMON_NOT_RUNNING);
  const report = readBridgeReport(root);
  if (report === undefined || report.pid !== pid) return down('no-report', BRIDGE_NO_REPORT);
  return {
    source: 'report',
    link: {
      connected: report.connected,
      last_error: report.last_error,
      pending: report.pending,
      unacked: report.unacked,
      stream: report.stream,
    },
  };
}

/**
 * The view of ROOT's bridge with its roster already read; `link` defaults to bridgeLinkOf(root).
 */
export function bridgeViewWith(
  root: string,
  roster: Roster,
  env: NodeJS.ProcessEnv = process.env,
  link = bridgeLinkOf(root).link,
): BridgeView {
  const node = knownLocalNodeOf(root, roster, env) ?? null;
  const remote: Record<string, string> = {};
  for (const [role, at] of roster.nodeOfRole) if (at !== node) remote[role] = at;
  return {
    node,
    connected: link.connected,
    last_error: link.last_error,
    remote_roles: remote,
    pending: link.pending,
    unacked: link.unacked,
    stream: link.stream,
  };
}

/**
 * The view of ROOT's bridge, or undefined without swarmforge/nodes.conf; an invalid roster fails as
 * readRoster does.
 */
export function bridgeViewOf(
  root: string,
  env: NodeJS.ProcessEnv = process.env,
): BridgeView | undefined {
  const roster = readRoster(root);
  return roster === undefined ? undefined : bridgeViewWith(root, roster, env);
}

/**
 * The link in words: `node a, connected` or `node a, not connected: <last_error>` (`local node
 * unknown` while it is).
 */
export function bridgeLinkText(view: BridgeView): string {
  const node = view.node === null ? 'local node unknown' : `node ${view.node}`;
  if (view.connected) return `${node}, connected`;
  return (
    `${node}, not ` +
    `connected${view.last_error === null ? '' : `: ${printable(view.last_error)}`}`
  );
}

/**
 * One line per role: `local role coder on node a: pending 0, unacked 0` or `remote role reviewer on
 * node b: ...` (`-` for a count the report lacks); `roles` in the order to show, roles only the
 * view knows after them.
 */
export function bridgeRoleLines(view: BridgeView, roles: string[]): string[] {
  const all = [
    ...new Set([
      ...roles,
      ...Object.keys(view.remote_roles),
      ...Object.keys(view.pending),
      ...Object.keys(view.unacked),
    ]),
  ];
  const count = (counts: Record<string, number>, role: string) =>
    Object.hasOwn(counts, role) ? String(counts[role]) : '-';
  return all.map((role) => {
    const remote = Object.hasOwn(view.remote_roles, role) ? view.remote_roles[role] : undefined;
    const where =
      remote === undefined
        ? `local role ${role}${view.node === null ? '' : ` on node ${view.node}`}`
        : `remote role ${role} on node ${remote}`;
    return (
      `${printable(where)}: pending ${count(view.pending, role)}, ` +
      `unacked ${count(view.unacked, role)}`
    );
  });
}

/**
 * Where the stream lives (§5): `BRIDGE STREAM: leader n1, replicas n2 (current), n3 (lagging)`
 * (`leader none` during an election, `replicas none` on a lone server); undefined while unknown.
 */
export function bridgeStreamLine(view: BridgeView): string | undefined {
  if (view.stream === null) return undefined;
  const { leader, replicas } = view.stream;
  const others = replicas.map((r) => `${r.name} (${r.current ? 'current' : 'lagging'})`);
  return printable(
    `BRIDGE STREAM: leader ${leader ?? 'none'}, replicas ${others.join(', ') || 'none'}`,
  );
}

/**
 * `baton status`'s and `baton monitor`'s lines of the bridge: `bridge: <link>`, where the stream
 * lives once known, then a line per role.
 */
export function bridgeLines(view: BridgeView, roles: string[]): string[] {
  const stream = bridgeStreamLine(view);
  return [
    `bridge: ${bridgeLinkText(view)}`,
    ...(stream ? [stream] : []),
    ...bridgeRoleLines(view, roles),
  ];
}

/** bridgeLines as text, a newline after each line; empty without a view (no roster). */
export function bridgeText(view: BridgeView | undefined, roles: string[]): string {
  return view === undefined
    ? ''
    : bridgeLines(view, roles)
        .map((line) => `${line}\n`)
        .join('');
}

/**
 * A role's name as a per-role listing shows it: `reviewer (on node b)` for a remote role, else the
 * name.
 */
export function roleLabel(role: string, view: BridgeView | undefined): string {
  const node =
    view !== undefined && Object.hasOwn(view.remote_roles, role)
      ? view.remote_roles[role]
      : undefined;
  return node === undefined ? role : `${role} (on node ${node})`;
}
