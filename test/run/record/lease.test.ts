import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { CommandFailure, type FailureKind } from '../../../lib/fsx/commandFailure.js';
import { runPathsOf, type RunPaths } from '../../../lib/project/layout.js';
import { processIdentityOf } from '../../../lib/fsx/processIdentity.js';
import {
  acquireLease,
  heartbeatLease,
  leaseView,
  readLease,
  releaseLease,
  requireLeaseToken,
  type Lease,
} from '../../../lib/run/record/lease.js';
import { type RunHistoryEntry } from '../../../lib/run/record/workflow.js';
import { deadIdentity, startSleeper } from '../../support/deadProcess.js';
import { waitFor } from '../../support/daemon.js';
import { tempDir } from '../../support/project.js';

const RUN_ID = 'run-20250101T000000Z-abcdef';
const T0 = new Date('2025-01-01T00:00:00.000Z');
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);

/** `kind: first line` of the CommandFailure `fn` throws. */
function failureOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    if (err instanceof CommandFailure) return `${err.kind}: ${err.lines[0]}`;
    throw err;
  }
  assert.fail('expected a failure');
}

describe('lib/run/record/lease', () => {
  let root: string;
  let paths: RunPaths;
  const fileBytes = () => fs.readFileSync(paths.lease);
  /** Replaces lease.json with `lease` changed by `change` (a hand-made record, as another process or host would leave it). */
  const placeLease = (lease: Lease, change: Partial<Lease>) =>
    fs.writeFileSync(paths.lease, JSON.stringify({ ...lease, ...change }), { mode: 0o600 });
  /** The run's history as the record would hold it: each acquire below is recorded, as the action records it. */
  let history: RunHistoryEntry[];
  const record = (lease: Lease, reclaimed: boolean) =>
    history.push({
      at: lease.acquired_at,
      actor: `pid ${lease.pid}`,
      action: reclaimed ? 'lease reclaim' : 'lease acquire',
      from: 'ACTIVE/IDLE',
      to: 'ACTIVE/IDLE',
      detail: '',
    });
  const acquire = (
    now = T0,
    more: { ttlS?: number; reclaimStale?: boolean; pid?: number } = {},
  ) => {
    const got = acquireLease(paths, { pid: process.pid, ...more }, now, history);
    record(got.lease, got.reclaimed);
    return got;
  };
  const view = (lease: Lease | undefined, now: Date) => leaseView(lease, now, history);
  /** Asserts `fn` fails with `kind` and a first line matching `pattern`, and leaves lease.json as it was. */
  const refusedUnchanged = (fn: () => unknown, kind: FailureKind, pattern: RegExp) => {
    const before = fs.existsSync(paths.lease) ? fileBytes() : undefined;
    assert.match(failureOf(fn), new RegExp(`^${kind}: ${pattern.source}`));
    assert.deepEqual(fs.existsSync(paths.lease) ? fileBytes() : undefined, before);
  };
  beforeEach(() => {
    history = [];
    root = tempDir();
    paths = runPathsOf(root, RUN_ID);
    fs.mkdirSync(paths.dir, { recursive: true, mode: 0o700 });
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  it('acquire writes a 0600 lease for the pid with a fresh 128-bit token and the TTL from now', () => {
    const { lease, reclaimed } = acquire(T0, { ttlS: 30 });
    assert.equal(reclaimed, false);
    assert.match(lease.token, /^[0-9a-f]{32}$/);
    assert.deepEqual(
      { ...lease, token: '', machine_id: '' },
      {
        token: '',
        pid: process.pid,
        pid_identity: processIdentityOf(process.pid),
        host: hostname(),
        machine_id: '',
        acquired_at: '2025-01-01T00:00:00.000Z',
        heartbeat_at: '2025-01-01T00:00:00.000Z',
        expires_at: '2025-01-01T00:00:30.000Z',
      },
    );
    assert.deepEqual(readLease(paths), lease);
    assert.equal(fs.statSync(paths.lease).mode & 0o777, 0o600);
    assert.deepEqual(view(lease, at(29)), {
      held: true,
      pid: process.pid,
      host: hostname(),
      expires_at: '2025-01-01T00:00:30.000Z',
      stale: false,
    });
    assert.deepEqual(view(undefined, T0), { held: false });
    releaseLease(paths);
    assert.notEqual(acquire().lease.token, lease.token);
  });

  it('a second acquire while the lease is live is busy (exit 75) and changes nothing', () => {
    acquire(T0);
    refusedUnchanged(
      () => acquire(at(59)),
      'temporary',
      new RegExp(
        `lease held by pid ${process.pid} on ${hostname()} until 2025-01-01T00:01:00.000Z$`,
      ),
    );
  });

  it('an expired lease is stale: taken over only with reclaimStale, with a new token', () => {
    const old = acquire(T0).lease;
    assert.equal((view(old, at(60)) as { stale: boolean }).stale, true);
    refusedUnchanged(
      () => acquire(at(60)),
      'refused',
      /stale lease of pid \d+ on .* \(expired at 2025-01-01T00:01:00.000Z\): take it over with --reclaim-stale$/,
    );
    const { lease, reclaimed } = acquire(at(60), { reclaimStale: true });
    assert.equal(reclaimed, true);
    assert.notEqual(lease.token, old.token);
    assert.match(
      failureOf(() => requireLeaseToken(paths, old.token, at(61))),
      /^refused: wrong lease token/,
    );
  });

  it('a lease whose process died is stale before it expires', async () => {
    const sleeper = startSleeper();
    await waitFor('the sleeper to run', () => processIdentityOf(sleeper.pid!) !== undefined);
    const { lease } = acquire(T0, { pid: sleeper.pid! });
    assert.equal((view(lease, at(1)) as { stale: boolean }).stale, false);
    const exited = new Promise((done) => sleeper.on('exit', done));
    sleeper.kill('SIGKILL');
    await exited;
    assert.equal((view(lease, at(1)) as { stale: boolean }).stale, true);
    refusedUnchanged(
      () => acquire(at(1)),
      'refused',
      new RegExp(
        `stale lease of pid ${sleeper.pid} on .* \\(pid ${sleeper.pid} is no longer running\\)`,
      ),
    );
  });

  it('a reused pid is not mistaken for the holder: the identity recorded must still match', async () => {
    const { lease } = acquire(T0);
    const [, , boot, host] = (await deadIdentity()).split(' ');
    placeLease(lease, { pid_identity: `${process.pid} 1 ${boot} ${host}` }); // this pid, another start time
    assert.equal((view(readLease(paths), at(1)) as { stale: boolean }).stale, true);
  });

  it('a lease of another host (name or machine id) is live until it expires, whatever its pid', async () => {
    const { lease } = acquire(T0);
    const dead = await deadIdentity();
    const deadPid = Number(dead.split(' ')[0]);
    for (const change of [{ host: 'elsewhere.invalid' }, { machine_id: 'another-machine' }]) {
      placeLease(lease, { ...change, pid: deadPid, pid_identity: dead });
      assert.equal(
        (view(readLease(paths), at(59)) as { stale: boolean }).stale,
        false,
        JSON.stringify(change),
      );
      assert.match(
        failureOf(() => acquire(at(59), { reclaimStale: true })),
        /^temporary: lease held by/,
      );
      assert.equal((view(readLease(paths), at(60)) as { stale: boolean }).stale, true);
    }
  });

  it('requireLeaseToken refuses no lease, a wrong token and a stale lease, each with its own message', () => {
    const none = failureOf(() => requireLeaseToken(paths, 'a'.repeat(32), T0));
    assert.equal(
      none,
      `refused: run ${RUN_ID} has no lease: acquire one with 'baton run lease ${RUN_ID} acquire'`,
    );
    const { lease } = acquire(T0);
    assert.deepEqual(requireLeaseToken(paths, lease.token, at(59)), lease);
    const wrong = failureOf(() => requireLeaseToken(paths, 'b'.repeat(32), T0));
    assert.equal(
      wrong,
      `refused: wrong lease token for run ${RUN_ID}: its lease is held by pid ${process.pid} on ${hostname()}`,
    );
    assert.equal(
      failureOf(() => requireLeaseToken(paths, '', T0)),
      wrong,
    );
    const stale = failureOf(() => requireLeaseToken(paths, lease.token, at(60)));
    assert.equal(
      stale,
      `refused: stale lease token for run ${RUN_ID}: the lease of pid ${process.pid} on ${hostname()} is stale (expired at 2025-01-01T00:01:00.000Z); take it over with --reclaim-stale`,
    );
  });

  it('heartbeat extends the expiry by the lease TTL from now; it refuses a wrong or stale token', () => {
    const { lease } = acquire(T0, { ttlS: 30 });
    const renewed = heartbeatLease(paths, lease.token, at(20));
    assert.deepEqual(renewed, {
      ...lease,
      heartbeat_at: '2025-01-01T00:00:20.000Z',
      expires_at: '2025-01-01T00:00:50.000Z',
    });
    assert.deepEqual(readLease(paths), renewed);
    assert.deepEqual(
      heartbeatLease(paths, lease.token, at(45)).expires_at,
      '2025-01-01T00:01:15.000Z',
    );
    refusedUnchanged(
      () => heartbeatLease(paths, 'c'.repeat(32), at(46)),
      'refused',
      /wrong lease token/,
    );
    refusedUnchanged(
      () => heartbeatLease(paths, lease.token, at(75)),
      'refused',
      /stale lease token/,
    );
  });

  it('release removes the lease and is idempotent', () => {
    acquire(T0);
    assert.equal(releaseLease(paths), true);
    assert.equal(fs.existsSync(paths.lease), false);
    assert.equal(releaseLease(paths), false);
    assert.equal(readLease(paths), undefined);
  });

  it('refuses (exit 2) an invalid lease file on read, and a symlink on read and write', () => {
    const { lease } = acquire(T0);
    const cases: [string, RegExp][] = [
      ['{', /not JSON/],
      [JSON.stringify({ ...lease, extra: 1 }), /must NOT have additional properties 'extra'/],
      [
        JSON.stringify({ ...lease, token: lease.token.toUpperCase() }),
        /\/token must match pattern/,
      ],
      [JSON.stringify({ ...lease, pid: lease.pid + 1 }), /\/pid_identity is not pid/],
      [
        JSON.stringify({ ...lease, expires_at: lease.heartbeat_at }),
        /\/expires_at must be after heartbeat_at/,
      ],
    ];
    for (const [text, pattern] of cases) {
      fs.writeFileSync(paths.lease, text);
      assert.match(
        failureOf(() => readLease(paths)),
        new RegExp(`^refused: invalid lease '${paths.lease}': .*${pattern.source}`),
        text,
      );
    }
    fs.rmSync(paths.lease);
    fs.writeFileSync(join(root, 'elsewhere.json'), JSON.stringify(lease));
    fs.symlinkSync(join(root, 'elsewhere.json'), paths.lease);
    assert.match(
      failureOf(() => readLease(paths)),
      /^refused: invalid lease .*: is a symlink$/,
    );
    assert.match(
      failureOf(() => heartbeatLease(paths, lease.token, at(1))),
      /is a symlink$/,
    );
  });

  it('refuses a malformed pid or ttl (exit 1) and a pid that is not running (exit 2), writing nothing', async () => {
    refusedUnchanged(() => acquire(T0, { ttlS: 0 }), 'usage', /malformed lease ttl '0'/);
    refusedUnchanged(() => acquire(T0, { pid: -1 }), 'usage', /malformed pid '-1'/);
    const deadPid = Number((await deadIdentity()).split(' ')[0]);
    refusedUnchanged(
      () => acquire(T0, { pid: deadPid }),
      'refused',
      new RegExp(`pid ${deadPid} is not running`),
    );
    assert.equal(fs.existsSync(paths.lease), false);
  });

  it('a controller killed right after writing its lease leaves a whole lease, stale once it is gone, that a reclaim takes over', () => {
    const program =
      `const { acquireLease } = await import(${JSON.stringify(resolve('lib/run/record/lease.ts'))});\n` +
      `const { runPathsOf } = await import(${JSON.stringify(resolve('lib/project/layout.ts'))});\n` +
      `acquireLease(runPathsOf(${JSON.stringify(root)}, ${JSON.stringify(RUN_ID)}), { pid: process.pid }, new Date(), []);`;
    const killed = spawnSync(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', program],
      { env: { ...process.env, BATON_CRASH_AT: 'run:lease-written' }, encoding: 'utf8' },
    );
    assert.equal(killed.signal, 'SIGKILL', killed.stderr);
    const left = readLease(paths)!;
    assert.equal(left.pid, killed.pid);
    assert.deepEqual(fs.readdirSync(paths.dir), ['lease.json'], 'no temp file left beside it');
    assert.equal((view(left, new Date()) as { stale: boolean }).stale, true);
    assert.equal(
      acquireLease(paths, { pid: process.pid, reclaimStale: true }, new Date(), history).reclaimed,
      true,
    );
  });

  it('a lease the history does not record (its acquire killed before the record) is stale at once: its token was never given out', () => {
    const { lease } = acquireLease(paths, { pid: process.pid, ttlS: 3600 }, T0, history);
    assert.equal((view(lease, at(1)) as { stale: boolean }).stale, true);
    refusedUnchanged(
      () => acquire(at(1)),
      'refused',
      /stale lease of pid \d+ on .* \(its acquisition was never recorded: the acquire was killed, and no one has its token\): take it over with --reclaim-stale$/,
    );
    const taken = acquire(at(1), { reclaimStale: true });
    assert.equal(taken.reclaimed, true);
    assert.equal((view(taken.lease, at(2)) as { stale: boolean }).stale, false);
  });

  it('its own holder asking again with reclaimStale gets a new token at once (its first was lost to a kill); anyone else is busy', async () => {
    const first = acquire(T0, { ttlS: 3600 }).lease;
    const sleeper = startSleeper();
    try {
      await waitFor('the sleeper to run', () => processIdentityOf(sleeper.pid!) !== undefined);
      refusedUnchanged(
        () => acquire(at(1), { pid: sleeper.pid!, reclaimStale: true }),
        'temporary',
        /lease held by pid/,
      );
    } finally {
      sleeper.kill('SIGKILL');
    }
    refusedUnchanged(() => acquire(at(1)), 'temporary', /lease held by pid/);
    const again = acquire(at(1), { reclaimStale: true });
    assert.equal(again.reclaimed, true);
    assert.notEqual(again.lease.token, first.token);
    assert.match(
      failureOf(() => requireLeaseToken(paths, first.token, at(2))),
      /^refused: wrong lease token/,
    );
    assert.deepEqual(requireLeaseToken(paths, again.lease.token, at(2)), again.lease);
  });
});
