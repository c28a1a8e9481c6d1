import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { daemonPathsOf, mailboxOf } from '../../lib/project/layout.js';
import { formatRoles, type Role } from '../../lib/handoff/roles.js';
import {
  daemonLine,
  humanDuration,
  inProcessCount,
  statusOf,
  statusTable,
  unclaimedLine,
  unclaimedText,
  type RoleStatus,
} from '../../lib/admin/status.js';
import { placeItem, tempDir } from '../support/project.js';

const NOW = Date.parse('2026-06-15T12:00:00.000Z');

function role(name: string, mode: string): Role {
  return {
    role: name,
    worktreeName: 'master',
    worktreePath: '/p',
    session: 's',
    displayName: name,
    agent: 'claude',
    mode,
  };
}

/** Sets a path's mtime to `secondsAgo` before NOW. */
function age(path: string, secondsAgo: number): void {
  const t = (NOW - secondsAgo * 1000) / 1000;
  fs.utimesSync(path, t, t);
}

describe('lib/admin/status', () => {
  let root: string;
  beforeEach(() => {
    root = tempDir();
    fs.mkdirSync(join(root, '.swarmforge'));
    fs.writeFileSync(
      join(root, '.swarmforge', 'roles.tsv'),
      formatRoles([role('reviewer', 'task'), role('QA', 'batch'), role('idle', 'task')]),
    );
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  it('counts items per folder (batch items one by one), ignoring temp files, dot-files and .error files', async () => {
    const r = mailboxOf(root, 'reviewer');
    await placeItem(r.outbox, {});
    fs.mkdirSync(r.outboxTmp, { recursive: true });
    fs.writeFileSync(join(r.outboxTmp, '50_x.handoff.tmp'), '');
    const waiting = [await placeItem(r.inboxNew, {}), await placeItem(r.inboxNew, {})];
    fs.writeFileSync(join(r.inboxNew, '.50_hidden.handoff'), '');
    fs.writeFileSync(join(r.inboxNew, 'notes.txt'), '');
    const current = await placeItem(r.inProcess, {});
    await placeItem(r.completed, {});
    await placeItem(join(r.completed, 'batch_20260101T000000Z_000001'), {});
    await placeItem(join(r.completed, 'batch_20260101T000000Z_000001'), {});
    const failed = await placeItem(r.failed, {});
    fs.writeFileSync(`${failed}.error`, 'unknown recipient ghost\n');
    await placeItem(r.sent, {});
    age(waiting[0]!, 90);
    age(waiting[1]!, 30);
    age(current, 3725);

    const q = mailboxOf(root, 'QA');
    const batch = join(q.inProcess, 'batch_20260615T110000Z_000001');
    for (let i = 0; i < 3; i++) await placeItem(batch, {});
    age(batch, 7);

    const rows = statusOf(root, NOW);
    assert.deepEqual(rows, [
      {
        role: 'reviewer',
        mode: 'task',
        outbox: 1,
        new: 2,
        in_process: 1,
        completed: 3,
        failed: 1,
        oldest_waiting_s: 90,
        in_process_s: 3725,
        in_process_path: current,
        rewakes_spent: false,
        unclaimed_min: null,
      },
      {
        role: 'QA',
        mode: 'batch',
        outbox: 0,
        new: 0,
        in_process: 3,
        completed: 0,
        failed: 0,
        oldest_waiting_s: null,
        in_process_s: 7,
        in_process_path: batch,
        rewakes_spent: false,
        unclaimed_min: null,
      },
      {
        role: 'idle',
        mode: 'task',
        outbox: 0,
        new: 0,
        in_process: 0,
        completed: 0,
        failed: 0,
        oldest_waiting_s: null,
        in_process_s: null,
        in_process_path: null,
        rewakes_spent: false,
        unclaimed_min: null,
      },
    ] satisfies RoleStatus[]);
  });

  it('flags a spent role (health.json) while its mail waits unclaimed, whole minutes', async () => {
    const r = mailboxOf(root, 'reviewer');
    const q = mailboxOf(root, 'QA');
    age(await placeItem(r.inboxNew, {}), 12 * 60 + 59);
    age(await placeItem(r.inboxNew, {}), 30);
    age(await placeItem(q.inboxNew, {}), 3600);
    await placeItem(q.inProcess, {});
    fs.mkdirSync(daemonPathsOf(root).dir, { recursive: true });
    const at = new Date(NOW - 60_000).toISOString();
    fs.writeFileSync(
      daemonPathsOf(root).health,
      JSON.stringify({ passes: 4, rewakes_spent: { reviewer: at, QA: at, idle: at } }),
    );
    const flags = () =>
      statusOf(root, NOW).map((row) => [row.role, row.rewakes_spent, row.unclaimed_min]);
    assert.deepEqual(
      flags(),
      [
        ['reviewer', true, 12],
        ['QA', false, null],
        ['idle', false, null],
      ],
      'QA has work in process (a claim the daemon has not seen yet); idle has no mail',
    );
    assert.equal(
      unclaimedText(statusOf(root, NOW)),
      'reviewer: mail unclaimed for 12 min, re-wakes spent\n',
    );
    fs.writeFileSync(daemonPathsOf(root).health, JSON.stringify({ passes: 5, rewakes_spent: {} }));
    assert.deepEqual(
      flags(),
      [
        ['reviewer', false, null],
        ['QA', false, null],
        ['idle', false, null],
      ],
      'not recorded: never flagged, however old the mail',
    );
    assert.equal(unclaimedText(statusOf(root, NOW)), '');
  });

  it('unclaimedLine: the line status, monitor and doctor print', () => {
    assert.equal(unclaimedLine('coder', 12), 'coder: mail unclaimed for 12 min, re-wakes spent');
  });

  it('ages are whole seconds, never negative (a clock behind the files reads 0)', async () => {
    const r = mailboxOf(root, 'reviewer');
    const item = await placeItem(r.inboxNew, {});
    fs.utimesSync(item, (NOW + 1499) / 1000, (NOW + 5000) / 1000);
    assert.equal(statusOf(root, NOW)[0]!.oldest_waiting_s, 0);
    age(item, 1.6);
    assert.equal(statusOf(root, NOW)[0]!.oldest_waiting_s, 2);
  });

  it('humanDuration: -, seconds, minutes+seconds, hours+minutes, days+hours', () => {
    const cases: [number | null, string][] = [
      [null, '-'],
      [0, '0s'],
      [45, '45s'],
      [59, '59s'],
      [60, '1m00s'],
      [192, '3m12s'],
      [3599, '59m59s'],
      [3600, '1h00m'],
      [7500, '2h05m'],
      [86399, '23h59m'],
      [86400, '1d00h'],
      [273600, '3d04h'],
      [90 * 86400, '90d00h'],
    ];
    for (const [s, text] of cases) assert.equal(humanDuration(s), text, String(s));
  });

  it('statusTable: a header and one aligned row per role, columns two spaces apart, no trailing spaces', () => {
    const rows: RoleStatus[] = [
      {
        role: 'reviewer',
        mode: 'task',
        outbox: 1,
        new: 12,
        in_process: 1,
        completed: 300,
        failed: 0,
        oldest_waiting_s: 192,
        in_process_s: 7500,
        in_process_path: '/x',
        rewakes_spent: false,
        unclaimed_min: null,
      },
      {
        role: 'QA',
        mode: 'batch',
        outbox: 0,
        new: 0,
        in_process: 0,
        completed: 0,
        failed: 2,
        oldest_waiting_s: null,
        in_process_s: null,
        in_process_path: null,
        rewakes_spent: false,
        unclaimed_min: null,
      },
    ];
    assert.equal(
      statusTable(rows),
      'ROLE      MODE   OUTBOX  NEW  IN_PROCESS  COMPLETED  FAILED  OLDEST_WAITING  IN_PROCESS_FOR\n' +
        'reviewer  task   1       12   1           300        0       3m12s           2h05m\n' +
        'QA        batch  0       0    0           0          2       -               -\n',
    );
    assert.equal(
      statusTable([]),
      'ROLE  MODE  OUTBOX  NEW  IN_PROCESS  COMPLETED  FAILED  OLDEST_WAITING  IN_PROCESS_FOR\n',
    );
  });

  it("statusTable with a bridge view: a remote role's name says its node, the columns stay aligned", () => {
    const rows: RoleStatus[] = [
      {
        role: 'coder',
        mode: 'task',
        outbox: 0,
        new: 0,
        in_process: 0,
        completed: 0,
        failed: 0,
        oldest_waiting_s: null,
        in_process_s: null,
        in_process_path: null,
        rewakes_spent: false,
        unclaimed_min: null,
      },
      {
        role: 'QA',
        mode: 'batch',
        outbox: 0,
        new: 1,
        in_process: 0,
        completed: 0,
        failed: 0,
        oldest_waiting_s: 5,
        in_process_s: null,
        in_process_path: null,
        rewakes_spent: false,
        unclaimed_min: null,
      },
    ];
    const bridge = {
      node: 'a',
      connected: true,
      last_error: null,
      remote_roles: { QA: 'b' },
      pending: {},
      unacked: {},
      stream: null,
    };
    assert.equal(
      statusTable(rows, bridge),
      'ROLE            MODE   OUTBOX  NEW  IN_PROCESS  COMPLETED  FAILED  OLDEST_WAITING  IN_PROCESS_FOR\n' +
        'coder           task   0       0    0           0          0       -               -\n' +
        'QA (on node b)  batch  0       1    0           0          0       5s              -\n',
    );
  });

  it('inProcessCount: the items in process (a batch counts its items) and the path of the file or batch', async () => {
    const box = mailboxOf(root, 'QA');
    assert.deepEqual(inProcessCount(box), { count: 0, current: null });
    const batch = join(box.inProcess, 'batch_20260615T110000Z_000001');
    await placeItem(batch, {});
    await placeItem(batch, {});
    assert.deepEqual(inProcessCount(box), { count: 2, current: batch });
  });

  it('daemonLine: the pid and the age of the last pass while handoffd runs; that it is not running and how to start it otherwise', () => {
    const daemon = {
      running: true,
      pid: 4242,
      last_pass_at: new Date(NOW - 3000).toISOString(),
      passes: 9,
      delivered: 1,
      failed: 0,
      errors: 0,
    };
    assert.equal(daemonLine(daemon, NOW), 'handoffd: running (pid 4242), last pass 3s ago\n');
    assert.equal(
      daemonLine({ ...daemon, last_pass_at: null }, NOW),
      'handoffd: running (pid 4242), last pass none yet\n',
    );
    assert.equal(
      daemonLine({ ...daemon, running: false, pid: null }, NOW),
      'handoffd is not running: start it with baton daemon start\n',
    );
  });
});
