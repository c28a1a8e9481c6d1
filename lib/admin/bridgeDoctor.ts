// `baton doctor` with a roster (docs/bridge.md §1, §4). Problems, which fail doctor as any
// other: nodes.conf invalid (each error as readRoster gives it), the local node unknown
// (handoffd and `baton up` refuse to start), the credentials file not readable by this
// user. Warnings, which do not: handoffd not running, or running with the link down (the
// bridge retries by itself and keeps mail for remote roles in the outbox meanwhile), or
// without a bridge report. And what doctor shows besides: the roster, the credentials
// file's path (checked with access(2), never opened, so its content cannot leak), the link
// and each role's node and counts, as status shows them.
import * as fs from 'node:fs';
import {
  bridgeLinkOf,
  bridgeLinkText,
  bridgeRoleLines,
  bridgeViewWith,
  BRIDGE_NO_REPORT,
  type BridgeLink,
  type BridgeView,
} from './bridgeView.js';
import { type DoctorFinding, type DoctorReport } from './doctor.js';
import { CommandFailure } from '../fsx/commandFailure.js';
import { bridgePathsOf } from '../project/layout.js';
import { readRoster, type Roster } from '../handoff/roster.js';
import { DAEMON_DOWN_REMEDY } from './remedies.js';

/** The roster as doctor reports it. */
export interface RosterSummary {
  file: string;
  swarm: string;
  nodes: Record<string, string[]>;
  /** The credentials file's path (never its content), or null without one. */
  credentials: string | null;
}

/** What doctor adds when swarmforge/nodes.conf exists. */
export interface BridgeChecks {
  /**
   * Problems (doctor exits 2): an invalid roster, an unknown local node, an unreadable credentials
   * file.
   */
  findings: DoctorFinding[];
  /**
   * Worth knowing, not a problem of this project's files: handoffd not running, the link down, no
   * bridge report.
   */
  warnings: DoctorFinding[];
  /** null when the roster is invalid. */
  roster: RosterSummary | null;
  /** The bridge as status shows it; null when the roster is invalid. */
  bridge: BridgeView | null;
}

/** The problem the local node is when it is unknown, else none. */
function localNodeFindings(
  root: string,
  roster: Roster,
  view: BridgeView,
  env: NodeJS.ProcessEnv,
): DoctorFinding[] {
  if (view.node !== null) return [];
  const problem = env.BATON_NODE
    ? `local node unknown: BATON_NODE is '${env.BATON_NODE}', which is not a node of nodes.conf`
    : 'local node unknown: set BATON_NODE or run baton init --node NAME';
  const remedy =
    `run baton init --node NAME (or set BATON_NODE=NAME), NAME ` +
    `one of: ${[...roster.nodes.keys()].join(', ')}; handoffd and ` +
    `baton up refuse to start until then`;
  return [{ path: bridgePathsOf(root).node, problem, kind: 'local-node', remedy }];
}

/**
 * The problem the credentials file is when this user cannot read it (access(2) only: never opened,
 * never read).
 */
function credentialsFindings(roster: Roster): DoctorFinding[] {
  if (roster.credentials === undefined) return [];
  try {
    fs.accessSync(roster.credentials, fs.constants.R_OK);
    return [];
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'unreadable';
    return [
      {
        path: roster.credentials,
        kind: 'credentials',
        problem: `credentials file is not readable: ${code}`,
        remedy: 'let the user that runs handoffd read it (owned by that user, chmod 600)',
      },
    ];
  }
}

/**
 * The warning the link is: handoffd not running, no report from the running one, or not connected.
 */
function linkWarnings(root: string, roster: Roster, { source, link }: BridgeLink): DoctorFinding[] {
  const path = bridgePathsOf(root).state;
  if (source === 'daemon-not-running') {
    return [
      {
        path,
        kind: 'bridge-daemon-not-running',
        problem:
          'handoffd is not running: nothing is sent to or received from roles on other nodes',
        remedy: DAEMON_DOWN_REMEDY,
      },
    ];
  }
  if (source === 'no-report')
    return [
      {
        path,
        kind: 'bridge-no-report',
        problem: BRIDGE_NO_REPORT,
        remedy: 'restart handoffd: baton daemon stop, then baton daemon start',
      },
    ];
  if (link.connected) return [];
  return [
    {
      path,
      kind: 'bridge-not-connected',
      problem: `bridge not connected: ${link.last_error ?? 'no error reported yet'}`,
      remedy:
        `check that a NATS server answers at ${roster.urls.join(', ')} ` +
        `(on one machine: baton nats up); handoffd retries by itself ` +
        `and keeps mail for remote roles in its outbox meanwhile`,
    },
  ];
}

/** The checks of ROOT's roster and bridge, or undefined without swarmforge/nodes.conf. */
export function bridgeChecks(
  root: string,
  env: NodeJS.ProcessEnv = process.env,
): BridgeChecks | undefined {
  let roster: Roster | undefined;
  try {
    roster = readRoster(root);
  } catch (err) {
    if (!(err instanceof CommandFailure)) throw err;
    const path = bridgePathsOf(root).roster;
    const remedy = `fix ${path} (docs/bridge.md §1), then run baton init: it rewrites nodes.tsv`;
    return {
      findings: err.lines.map((problem) => ({ path, problem, kind: 'roster', remedy })),
      warnings: [],
      roster: null,
      bridge: null,
    };
  }
  if (roster === undefined) return undefined;
  const link = bridgeLinkOf(root);
  const bridge = bridgeViewWith(root, roster, env, link.link);
  return {
    findings: [...localNodeFindings(root, roster, bridge, env), ...credentialsFindings(roster)],
    warnings: linkWarnings(root, roster, link),
    roster: {
      file: roster.file,
      swarm: roster.swarm,
      nodes: Object.fromEntries(roster.nodes),
      credentials: roster.credentials ?? null,
    },
    bridge,
  };
}

/**
 * Doctor's `BRIDGE:` lines: the roster, the credentials file's path when it is readable, the link,
 * each role's node and counts; none when the roster is invalid.
 */
export function bridgeDoctorLines(
  checks: Pick<DoctorReport, 'findings' | 'roster' | 'bridge'>,
): string[] {
  const { roster, bridge } = checks;
  if (!roster || !bridge) return [];
  const unreadable = checks.findings.some((f) => f.kind === 'credentials');
  const lines = [
    `roster ${roster.file}: swarm ${roster.swarm}, nodes ${Object.keys(roster.nodes).join(', ')}`,
    ...(roster.credentials === null || unreadable
      ? []
      : [`credentials ${roster.credentials}: readable`]),
    bridgeLinkText(bridge),
    ...bridgeRoleLines(bridge, Object.values(roster.nodes).flat()),
  ];
  return lines.map((line) => `BRIDGE: ${line}`);
}
