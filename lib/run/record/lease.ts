// The run's lease, lease.json (docs/runtime.md §5): the one controller process that may
// mutate the run, fenced by a random token every controller action must present.
//
// Concurrency contract: the CALLER holds the run's lock (runStore.withRunLock) around each
// call here, so every read-check-write of lease.json is serialized with every other
// mutation of the run; this module takes no lock of its own.
//
// Crash contract: a write is replaceFile's (temp file in the run folder, fsync, mode
// 0600, rename), then an fsync of the folder; a reader sees the old lease or the new one,
// never a torn one. A release is an unlink plus a folder fsync, idempotent. Symlinks are
// refused before anything is written, never followed.
//
// Liveness: a lease is live while it has not expired and, when it was taken on this host
// (same host name and machine id), its process still runs; otherwise it is stale. A lease
// of another host is live until it expires: its process cannot be seen from here.
//
// A lease nobody holds the token of: the token reaches its holder only in the output of a
// successful acquire, after the record has its history entry. So a lease the record names
// no acquisition of (the acquire was killed between lease.json and the record) has a token
// no one ever saw: it counts as stale, and `--reclaim-stale` takes it over at once instead
// of waiting out its ttl. An acquire killed after the record and before its output leaves a
// live lease whose token its own holder never saw: the same process (same pid identity)
// asking again with `--reclaim-stale` is given a new token at once (the old one is void);
// any other process still finds it busy. So a rerun of `lease acquire --reclaim-stale`
// after a kill at any step succeeds at once.
//
// Pid reuse: the contract lists pid and host; a pid alone would make a lease whose
// holder died look live again as soon as the kernel hands the pid to another process. So
// the lease also records `pid_identity`, `<pid> <start-time> <boot-id> <host>` as
// lib/fsx/lock.ts records a lock owner, and liveness on this host is that identity's
// (same pid, same start time, same boot). It is the one field beyond runtime.md §5.
import { basename } from 'node:path';
import { CommandFailure, fail } from '../../fsx/commandFailure.js';
import { type RunPaths } from '../../project/layout.js';
import { unlinkSynced } from '../../fsx/durable.js';
import { randomHex, sameSecret } from '../../fsx/digests.js';
import { readRecord, writeRecord, type RecordKind } from '../../fsx/records.js';
import { identityAlive, processIdentityOf, systemHostName } from '../../fsx/processIdentity.js';
import { printable } from '../../fsx/printable.js';
import { calendarTimeProblems } from './calendarTime.js';
import { machineId } from './identity.js';
import { validateLeaseSchema } from './leaseValidator.generated.js';
import { type RunHistoryEntry } from './workflow.js';
import { isoOf } from '../../fsx/timestamps.js';

/** lease.json. */
export interface Lease {
  /** 128 random bits, 32 lowercase hex: the fencing token. */
  token: string;
  pid: number;
  /** `<pid> <start-time> <boot-id> <host>` of the holder (lib/fsx/processIdentity.ts). */
  pid_identity: string;
  host: string;
  machine_id: string;
  acquired_at: string;
  heartbeat_at: string;
  expires_at: string;
}

/** A lease as the status object shows it (never the token). */
export type LeaseView =
  { held: false } | { held: true; pid: number; host: string; expires_at: string; stale: boolean };

/** The lease's time to live unless `--ttl` says otherwise. */
export const DEFAULT_LEASE_TTL_S = 60;

/** What acquireLease needs. */
export interface AcquireOptions {
  /** The holder's pid (the CLI passes its parent's unless `--pid`). */
  pid: number;
  ttlS?: number;
  /** Take over a stale lease (`--reclaim-stale`). */
  reclaimStale?: boolean;
}

/** The rules across fields that the schema cannot say. */
function crossFieldProblems(lease: Lease): string[] {
  const problems: string[] = [];
  if (!lease.pid_identity.startsWith(`${lease.pid} `))
    problems.push(`/pid_identity is not pid ${lease.pid}'s`);
  problems.push(
    ...calendarTimeProblems(
      (['acquired_at', 'heartbeat_at', 'expires_at'] as const).map((k) => [`/${k}`, lease[k]]),
    ),
  );
  if (problems.length === 0 && !(Date.parse(lease.heartbeat_at) < Date.parse(lease.expires_at)))
    problems.push('/expires_at must be after heartbeat_at');
  return problems;
}

/**
 * lease.json as a typed record: its schema, the rules across fields, a refusal (exit 2) naming the
 * first problem.
 */
const LEASE: RecordKind<Lease> = {
  what: 'lease',
  validate: validateLeaseSchema,
  invariants: crossFieldProblems,
  invalid: (path, problems) =>
    new CommandFailure('refused', [
      `invalid lease '${path}': ${printable(problems[0] ?? 'invalid')}`,
    ]),
  crashSteps: { written: 'run:lease-written' },
};

/** Reads the run's lease; undefined when there is none, a refusal (exit 2) when it is invalid. */
export function readLease(paths: RunPaths): Lease | undefined {
  return readRecord(paths.lease, LEASE);
}

/** Writes a valid lease atomically (mode 0600), then fsyncs the run folder. */
function writeLease(paths: RunPaths, lease: Lease): void {
  writeRecord(paths.lease, LEASE, lease);
}

/**
 * True when the run's history records the acquisition of `lease` (an acquire or reclaim entry at
 * its acquired_at).
 */
export function leaseRecorded(lease: Lease, history: readonly RunHistoryEntry[]): boolean {
  return history.some(
    (h) =>
      h.at === lease.acquired_at && (h.action === 'lease acquire' || h.action === 'lease reclaim'),
  );
}

/**
 * Why a lease is stale at `now` (unrecorded, expired, or its process gone on this host), or
 * undefined while it is live.
 */
function staleReason(
  lease: Lease,
  now: Date,
  history: readonly RunHistoryEntry[],
): string | undefined {
  if (!leaseRecorded(lease, history))
    return 'its acquisition was never recorded: the acquire was killed, and no one has its token';
  return lapseReason(lease, now);
}

/** Why a lease has lapsed at `now` (expired, or its process gone on this host), or undefined. */
function lapseReason(lease: Lease, now: Date): string | undefined {
  if (now.getTime() >= Date.parse(lease.expires_at)) return `expired at ${lease.expires_at}`;
  const onThisHost = lease.host === systemHostName() && lease.machine_id === machineId();
  if (onThisHost && !identityAlive(lease.pid_identity))
    return `pid ${lease.pid} is no longer running`;
  return undefined;
}

/**
 * The lease as the status object shows it: not held, or held (live or stale) by whom until when;
 * `history` is the run's.
 */
export function leaseView(
  lease: Lease | undefined,
  now: Date,
  history: readonly RunHistoryEntry[],
): LeaseView {
  if (lease === undefined) return { held: false };
  return {
    held: true,
    pid: lease.pid,
    host: lease.host,
    expires_at: lease.expires_at,
    stale: staleReason(lease, now, history) !== undefined,
  };
}

/** `pid N on HOST`, for messages. */
function holderOf(lease: Lease): string {
  return `pid ${lease.pid} on ${printable(lease.host)}`;
}

/** Checks acquireLease's numbers; a bad one is a usage error (exit 1). */
function checkAcquireOptions(pid: number, ttlS: number): void {
  if (!Number.isSafeInteger(pid) || pid < 1)
    fail('usage', `malformed pid '${pid}': expected a positive integer`);
  if (!Number.isSafeInteger(ttlS) || ttlS < 1)
    fail('usage', `malformed lease ttl '${ttlS}': expected a positive number of seconds`);
}

/**
 * Takes the run's lease for `pid`: a live lease is busy (exit 75) unless `pid` itself holds
 * it and asks with reclaimStale (its token lost to a kill, header); a stale one is taken
 * over only with reclaimStale (exit 2 without); the new lease has a new token. `history` is
 * the run's (an unrecorded lease is stale).
 */
export function acquireLease(
  paths: RunPaths,
  options: AcquireOptions,
  now: Date,
  history: readonly RunHistoryEntry[],
): { lease: Lease; reclaimed: boolean } {
  const { pid, ttlS = DEFAULT_LEASE_TTL_S, reclaimStale = false } = options;
  checkAcquireOptions(pid, ttlS);
  const identity = processIdentityOf(pid);
  if (identity === undefined)
    fail('refused', `pid ${pid} is not running: a lease needs a live holder`);
  const current = readLease(paths);
  if (current !== undefined) {
    const stale = staleReason(current, now, history);
    const ownAgain = reclaimStale && current.pid_identity === identity;
    if (stale === undefined && !ownAgain)
      fail('temporary', `lease held by ${holderOf(current)} until ${current.expires_at}`);
    if (stale !== undefined && !reclaimStale)
      fail(
        'refused',
        `stale lease of ${holderOf(current)} (${stale}): take it over with --reclaim-stale`,
      );
  }
  const at = isoOf(now);
  const lease: Lease = {
    token: randomHex(16),
    pid,
    pid_identity: identity,
    host: systemHostName(),
    machine_id: machineId(),
    acquired_at: at,
    heartbeat_at: at,
    expires_at: isoOf(new Date(now.getTime() + ttlS * 1000)),
  };
  writeLease(paths, lease);
  return { lease, reclaimed: current !== undefined };
}

/** True when `given` is `token`, compared in constant time. */
function sameToken(given: string, token: string): boolean {
  return sameSecret(Buffer.from(given), Buffer.from(token));
}

/**
 * The run's live lease when `token` is its token; else a refusal (exit 2): no lease, a wrong
 * token, a stale lease. A token matches only a lease whose acquire printed it, so the
 * record's history need not be asked here: only expiry and the holder's life.
 */
export function requireLeaseToken(paths: RunPaths, token: string, now: Date): Lease {
  const runId = basename(paths.dir);
  const lease = readLease(paths);
  if (lease === undefined)
    fail(
      'refused',
      `run ${runId} has no lease: acquire one with 'baton run lease ${runId} acquire'`,
    );
  if (!sameToken(token, lease.token))
    fail('refused', `wrong lease token for run ${runId}: its lease is held by ${holderOf(lease)}`);
  const stale = lapseReason(lease, now);
  if (stale !== undefined)
    fail(
      'refused',
      `stale lease token for run ${runId}: the lease of ` +
        `${holderOf(lease)} is stale (${stale}); take it over with ` +
        `--reclaim-stale`,
    );
  return lease;
}

/**
 * Extends the live lease `token` names by its time to live from `now` (the ttl is its expiry minus
 * its last heartbeat).
 */
export function heartbeatLease(paths: RunPaths, token: string, now: Date): Lease {
  const lease = requireLeaseToken(paths, token, now);
  const ttlMs = Date.parse(lease.expires_at) - Date.parse(lease.heartbeat_at);
  const renewed: Lease = {
    ...lease,
    heartbeat_at: isoOf(now),
    expires_at: isoOf(new Date(now.getTime() + ttlMs)),
  };
  writeLease(paths, renewed);
  return renewed;
}

/**
 * Removes the run's lease (nothing when there is none) and fsyncs the run folder; true if one was
 * removed.
 */
export function releaseLease(paths: RunPaths): boolean {
  return unlinkSynced(paths.lease);
}
