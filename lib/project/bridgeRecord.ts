// bridge.json, the bridge's report on disk (docs/bridge.md §4): handoffd's bridge writes
// it (lib/bridge/bridgeReport.ts), status, monitor and doctor read it (lib/admin/bridgeView.ts).
// One home for its shape, below both.
import * as fs from 'node:fs';
import { bridgePathsOf } from './layout.js';

/**
 * Where the swarm's stream lives (docs/bridge.md §5), servers by their server_name: the leader
 * (null while none is elected) and the other replicas, each current or lagging.
 */
export interface StreamPlacement {
  leader: string | null;
  replicas: { name: string; current: boolean }[];
}

/**
 * The content of bridge.json, written by handoffd's bridge (lib/bridge/bridgeReport.ts) and read
 * here.
 */
export interface BridgeReport {
  pid: number;
  node: string;
  swarm: string;
  connected: boolean;
  last_error: string | null;
  remote_roles: Record<string, string>;
  pending: Record<string, number>;
  unacked: Record<string, number>;
  /** Null while not connected (and in a report of a handoffd from before §5). */
  stream: StreamPlacement | null;
  updated_at: string;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The counts of a report field: its entries that are whole numbers of at least 0, or undefined when
 * it is not an object.
 */
function countsIn(value: unknown): Record<string, number> | undefined {
  if (!isRecord(value)) return undefined;
  return Object.fromEntries(
    Object.entries(value).filter(
      (e): e is [string, number] => Number.isSafeInteger(e[1]) && (e[1] as number) >= 0,
    ),
  );
}

/** A report's stream placement, or null when it has none or not of that shape. */
function placementIn(value: unknown): StreamPlacement | null {
  if (!isRecord(value) || (value.leader !== null && typeof value.leader !== 'string')) return null;
  if (!Array.isArray(value.replicas)) return null;
  const replicas = value.replicas.filter(
    (r): r is { name: string; current: boolean } =>
      isRecord(r) && typeof r.name === 'string' && typeof r.current === 'boolean',
  );
  return {
    leader: value.leader,
    replicas: replicas.map(({ name, current }) => ({ name, current })),
  };
}

/** ROOT's bridge.json, or undefined when it is missing, unreadable or not a report. */
export function readBridgeReport(root: string): BridgeReport | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(fs.readFileSync(bridgePathsOf(root).state, 'utf8'));
  } catch {
    return undefined;
  }
  if (
    !isRecord(parsed) ||
    !Number.isSafeInteger(parsed.pid) ||
    typeof parsed.connected !== 'boolean'
  )
    return undefined;
  const pending = countsIn(parsed.pending);
  const unacked = countsIn(parsed.unacked);
  const lastError = parsed.last_error;
  if (!pending || !unacked || (lastError !== null && typeof lastError !== 'string'))
    return undefined;
  return {
    ...(parsed as unknown as BridgeReport),
    pending,
    unacked,
    stream: placementIn(parsed.stream),
  };
}
