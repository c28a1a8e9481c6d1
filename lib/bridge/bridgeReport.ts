// bridge.json: handoffd's view of the link for `baton status`, `baton monitor` and
// `baton doctor` (docs/bridge.md §4). Advisory, like health.json: written by replacement
// (temp + rename, no fsync), never read back by the daemon. Counts come from the server:
// per role, `unacked` is what its consumer delivered without an acknowledgement yet and
// `pending` what it has yet to deliver (the stream's count for the role's subject while no
// consumer exists: its node never connected), and where the stream lives (§5: its leader
// and replicas by server_name; a lone server, which names no cluster, is the leader).
// Credentials never reach it (only the node, the roles and redacted errors do).
import * as fs from 'node:fs';
import { type StreamInfo } from '@nats-io/jetstream';
import { type BridgeReport, type StreamPlacement } from '../project/bridgeRecord.js';
import { type Roster } from '../handoff/roster.js';
import { type Wire } from './bridgeLink.js';
import { orphansAmong } from './orphanSweep.js';
import { consumerNameOf, streamNameOf, streamSubjectsOf, subjectOf } from './wireNames.js';
import { isoOf } from '../fsx/timestamps.js';

/** What a report is made of. */
export interface ReportInput {
  connected: boolean;
  last_error: string | null;
  node: string;
  roster: Roster;
  wire: Wire | undefined;
}

/**
 * The stream's leader and other replicas; a server that is not clustered gives no cluster part
 * and is itself the leader.
 */
export function placementOf(info: StreamInfo, connectedTo: string | undefined): StreamPlacement {
  if (!info.cluster) return { leader: connectedTo ?? null, replicas: [] };
  const leader = info.cluster.leader ?? null;
  return {
    leader,
    replicas: (info.cluster.replicas ?? [])
      .filter((r) => r.name !== leader)
      .map((r) => ({ name: r.name, current: r.current })),
  };
}

/**
 * Per role, the server's pending and unacknowledged counts, and the stream's placement (empty and
 * null when not connected).
 */
async function countsOf(
  wire: Wire | undefined,
  roster: Roster,
): Promise<Pick<BridgeReport, 'pending' | 'unacked' | 'stream'>> {
  const pending: Record<string, number> = {};
  const unacked: Record<string, number> = {};
  if (!wire) return { pending, unacked, stream: null };
  const stream = streamNameOf(roster.swarm);
  const info = await wire.jsm.streams.info(stream, {
    subjects_filter: streamSubjectsOf(roster.swarm),
  });
  for (const role of roster.nodeOfRole.keys()) {
    const consumer = await wire.jsm.consumers
      .info(stream, consumerNameOf(role))
      .catch(() => undefined);
    unacked[role] = consumer?.num_ack_pending ?? 0;
    // What the consumer has yet to deliver, and the stream's orphans behind its ack floor
    // (orphanSweep.ts), which handoffd copies or finds held and then removes.
    const stored = info.state.subjects?.[subjectOf(roster.swarm, role)] ?? 0;
    pending[role] = consumer ? consumer.num_pending + orphansAmong(stored, consumer) : stored;
  }
  return { pending, unacked, stream: placementOf(info, wire.nc.info?.server_name) };
}

/** Writes bridge.json; a failure to count or to write is ignored (the report is advisory). */
export async function writeBridgeReport(path: string, input: ReportInput): Promise<void> {
  const remote: Record<string, string> = {};
  for (const [role, node] of input.roster.nodeOfRole) if (node !== input.node) remote[role] = node;
  const counts = await countsOf(input.wire, input.roster).catch(() => ({
    pending: {},
    unacked: {},
    stream: null,
  }));
  const report: BridgeReport = {
    pid: process.pid,
    node: input.node,
    swarm: input.roster.swarm,
    connected: input.connected,
    last_error: input.last_error,
    remote_roles: remote,
    ...counts,
    updated_at: isoOf(new Date()),
  };
  try {
    fs.writeFileSync(`${path}.tmp`, `${JSON.stringify(report)}\n`, { mode: 0o600 });
    fs.renameSync(`${path}.tmp`, path);
  } catch {
    // advisory
  }
}
