import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { doctor } from '../../lib/admin/doctor.js';
import { daemonPathsOf, mailboxOf } from '../../lib/project/layout.js';
import { acquireLock } from '../../lib/fsx/lock.js';
import { STALE_TEMP_MS } from '../../lib/queue/tempFiles.js';
import { ensureMailbox } from '../../lib/queue/mailbox.js';
import { makeProject, placeItem, type Project } from '../support/project.js';
import { placeLegacyItem, placeProblemItem, referenceFolderOf } from '../support/referenceMail.js';

const HOUR = 3600 * 1000;

describe('lib/admin/doctor', () => {
  let p: Project;
  let rolesPath: string;
  let roles: string;
  let conf: string;
  before(() => {
    p = makeProject();
    conf = join(p.root, 'swarmforge', 'swarmforge.conf');
    rolesPath = join(p.root, '.swarmforge', 'roles.tsv');
    roles = fs.readFileSync(rolesPath, 'utf8');
  });
  after(() => p.cleanup());
  beforeEach(() => {
    fs.writeFileSync(rolesPath, roles);
    for (const role of ['coder', 'reviewer', 'QA']) {
      fs.rmSync(p.box(role).dir, { recursive: true, force: true });
      ensureMailbox(p.box(role));
    }
  });

  /** A temp file in coder's outbox/tmp/ last modified `hoursAgo` before `now`. */
  function tempFile(name: string, hoursAgo: number, now: number): string {
    const path = join(p.box('coder').outboxTmp, name);
    fs.writeFileSync(path, 'partial', { mode: 0o600 });
    const t = (now - hoursAgo * HOUR) / 1000;
    fs.utimesSync(path, t, t);
    return path;
  }

  it('unclaimed through every re-wake (health.json), in minutes; gone once claimed', async () => {
    const now = Date.now();
    const health = daemonPathsOf(p.root).health;
    fs.mkdirSync(daemonPathsOf(p.root).dir, { recursive: true });
    const item = await placeItem(p.box('coder').inboxNew, {});
    const t = (now - 12.5 * 60_000) / 1000;
    fs.utimesSync(item, t, t);
    fs.writeFileSync(
      health,
      JSON.stringify({ rewakes_spent: { coder: new Date(now).toISOString() } }),
    );
    try {
      const expected = {
        path: p.box('coder').inboxNew,
        role: 'coder',
        kind: 'rewakes-spent',
        problem: 'coder: mail unclaimed for 12 min, re-wakes spent',
        remedy:
          "look at coder's pane (baton attach): an idle agent should run ready_for_next " +
          '(SWARMFORGE_ROLE=coder ready_for_next); a stuck or exited one needs a restart. ' +
          'handoffd wakes it again when new mail arrives',
        rewakes_spent: true,
        unclaimed_min: 12,
      };
      assert.deepEqual(await doctor(p.root, false, now), { findings: [expected], fixed: [] });
      fs.renameSync(item, join(p.box('coder').inProcess, item.split('/').pop()!));
      assert.deepEqual(await doctor(p.root, false, now), { findings: [], fixed: [] });
    } finally {
      fs.rmSync(health);
    }
  });

  it('a healthy project: no findings, nothing fixed', async () => {
    await placeItem(p.box('reviewer').inboxNew, {});
    assert.deepEqual(await doctor(p.root, false), { findings: [], fixed: [] });
    assert.deepEqual(await doctor(p.root, true), { findings: [], fixed: [] });
  });

  it('without fix: lists roles.tsv problems and stale temp files (with their role), and removes nothing', async () => {
    const now = Date.now();
    fs.appendFileSync(rolesPath, 'broken\tline\nbad_role\tm\t/x\ts\tb\tclaude\n');
    const lines = roles.split('\n').length;
    const stale = tempFile('50_a.handoff.tmp', 37, now);
    const fresh = tempFile('50_b.handoff.tmp', 1, now);
    const report = await doctor(p.root, false, now);
    assert.deepEqual(report, {
      findings: [
        {
          path: rolesPath,
          problem: `${rolesPath}:${lines}: fewer than 6 columns`,
          kind: 'roles-table',
          remedy: `fix ${conf} and run baton init: it rewrites roles.tsv`,
        },
        {
          path: rolesPath,
          problem: `${rolesPath}:${lines + 1}: invalid role name 'bad_role'`,
          kind: 'roles-table',
          remedy: `fix ${conf} and run baton init: it rewrites roles.tsv`,
        },
        {
          role: 'coder',
          path: stale,
          problem: 'temp file older than 36 h',
          kind: 'stale-temp',
          staleTemp: true,
          remedy: 'baton doctor --fix deletes it (a crash left it; nothing reads it)',
        },
      ],
      fixed: [],
    });
    assert.ok(fs.existsSync(stale));
    assert.ok(fs.existsSync(fresh));
  });

  it('with fix: deletes only the stale temp files, reports each, and still lists everything else', async () => {
    const now = Date.now();
    fs.appendFileSync(rolesPath, 'broken\n');
    const stale = tempFile('50_a.handoff.tmp', 37, now);
    const staleRecord = tempFile('50_a.handoff.draft', 40, now);
    const fresh = tempFile('50_b.handoff.tmp', 35, now);
    const report = await doctor(p.root, true, now);
    assert.deepEqual(report.fixed.sort(), [staleRecord, stale].sort());
    assert.deepEqual(
      report.findings.map((f) => [f.path, f.problem]),
      [[rolesPath, `${rolesPath}:${roles.split('\n').length}: fewer than 6 columns`]],
    );
    assert.equal(fs.existsSync(stale), false);
    assert.equal(fs.existsSync(staleRecord), false);
    assert.ok(fs.existsSync(fresh), 'a temp file younger than 36 h is kept');
  });

  it('judges age at the given instant', async () => {
    const now = Date.now();
    const young = tempFile('50_c.handoff.tmp', 1, now);
    assert.deepEqual((await doctor(p.root, false, now)).findings, []);
    const later = now + STALE_TEMP_MS;
    assert.deepEqual((await doctor(p.root, true, later)).fixed, [young]);
  });

  it('reports an invalid receive mode and mailbox invariants (two items in process) under their role', async () => {
    fs.writeFileSync(rolesPath, roles.replace(/^(reviewer\t.*\t)task$/m, '$1weird'));
    const a = await placeItem(p.box('QA').inProcess, {});
    const b = await placeItem(p.box('QA').inProcess, {});
    const { findings } = await doctor(p.root, true);
    assert.deepEqual(findings, [
      {
        role: 'reviewer',
        path: rolesPath,
        problem: "invalid receive mode 'weird' for role reviewer",
        kind: 'receive-mode',
        remedy: `set the mode of reviewer to task or batch in ${conf} and run baton init`,
      },
      {
        role: 'QA',
        path: p.box('QA').inProcess,
        problem: `2 items in process (at most one allowed): ${[a, b]
          .map((x) => x.split('/').pop())
          .sort()
          .join(', ')}`,
        kind: 'several-in-process',
        remedy: `finish the item QA works on with done_with_current and move the others back into ${p.box('QA').inboxNew}/ (ready_for_next offers them again)`,
      },
    ]);
    assert.ok(fs.existsSync(a) && fs.existsSync(b), 'fix never touches items');
  });

  describe('work nothing else shows', () => {
    let q: Project;
    beforeEach(() => {
      q = makeProject('window architect claude master\nwindow coder codex master\n');
    });
    afterEach(() => q.cleanup());
    const findingsOf = async () => (await doctor(q.root, false)).findings;

    it('reference-layout mail not imported yet (with the role and where init puts it), a name clash, an ambiguous item', async () => {
      const waiting = placeLegacyItem(referenceFolderOf(q.root, 'inbox/new'), '50_a.handoff', {
        id: 'a',
        from: 'architect',
        to: 'coder',
        recipient: 'coder',
      });
      const clash = placeLegacyItem(referenceFolderOf(q.root, 'outbox'), '50_b.handoff', {
        id: 'b',
        from: 'coder',
        to: 'architect',
      });
      await placeItem(q.box('coder').outbox, { id: 'other' }, 'x', '50_b.handoff');
      const shared = placeProblemItem(
        q.root,
        'inbox/in_process',
        'no-recipient.handoff',
        '50_c.handoff',
      );
      const found = (await findingsOf()).filter((f) => f.kind.startsWith('reference-mail'));
      assert.deepEqual(found, [
        {
          path: clash,
          role: 'coder',
          kind: 'reference-mail-clash',
          problem: `SwarmForge mail not imported: its name is taken in coder's mailbox by another item: ${join(q.box('coder').outbox, '50_b.handoff')}`,
          remedy: 'rename it (keep the .handoff ending), then run baton init',
        },
        {
          path: waiting,
          role: 'coder',
          kind: 'reference-mail-pending',
          problem: "SwarmForge mail not imported yet (for coder, from the worktree's inbox/new/)",
          remedy: `run baton init (or baton up): it imports the item into ${q.box('coder').inboxNew}/`,
        },
        {
          path: shared,
          kind: 'reference-mail-ambiguous',
          problem:
            'SwarmForge mail not imported: roles architect, coder share this worktree and no recipient header says whose it is',
          remedy:
            'set its recipient header to the role it belongs to (one of architect, coder), then run baton init',
        },
      ]);
      assert.ok(
        [waiting, clash, shared].every((path) => fs.existsSync(path)),
        'doctor moves nothing',
      );
    });

    it('the mailbox of a role no longer configured that still holds work; not one holding only history, not the reference folders', async () => {
      const gone = mailboxOf(q.root, 'tester');
      ensureMailbox(gone);
      await placeItem(gone.outbox, {});
      await placeItem(gone.inboxNew, {});
      await placeItem(gone.inboxNew, {});
      await placeItem(join(gone.inProcess, 'batch_20260101T000000Z_000001'), {});
      const history = mailboxOf(q.root, 'archivist');
      ensureMailbox(history);
      await placeItem(history.completed, {});
      await placeItem(history.sent, {});
      placeLegacyItem(referenceFolderOf(q.root, 'sent'), '50_s.handoff', {
        id: 's',
        from: 'coder',
      });
      placeLegacyItem(referenceFolderOf(q.root, 'failed'), '50_f.handoff', {
        id: 'f',
        from: 'coder',
      });
      placeLegacyItem(
        join(referenceFolderOf(q.root, 'inbox/in_process'), 'batch_x'),
        '50_i.handoff',
        { id: 'i', from: 'coder', recipient: 'coder' },
      );
      fs.writeFileSync(join(q.root, '.swarmforge', 'handoffs', 'sequence'), '000003\n');
      const found = (await findingsOf()).filter((f) => f.kind === 'unconfigured-role');
      assert.deepEqual(found, [
        {
          path: gone.dir,
          role: 'tester',
          kind: 'unconfigured-role',
          problem:
            'role tester is not in roles.tsv, but its mailbox holds 1 in outbox, 2 waiting, 1 in process: nothing delivers, wakes or lists them',
          remedy: `add a window line for tester back to ${join(q.root, 'swarmforge', 'swarmforge.conf')} and run baton init, or move its waiting items by hand into a configured role's inbox/new/`,
        },
      ]);
    });

    it('outbox mail while no handoffd runs, one finding per outbox; none while a live process holds the daemon lock', async () => {
      await placeItem(q.box('coder').outbox, {});
      await placeItem(q.box('coder').outbox, {});
      await placeItem(q.box('architect').inboxNew, {});
      assert.deepEqual(
        (await findingsOf()).filter((f) => f.kind === 'daemon-not-running'),
        [
          {
            path: q.box('coder').outbox,
            role: 'coder',
            kind: 'daemon-not-running',
            problem: '2 handoffs waiting for delivery, and handoffd is not running',
            remedy: 'start handoffd: baton daemon start (or baton up)',
          },
        ],
      );
      const release = acquireLock(daemonPathsOf(q.root).lock);
      try {
        assert.deepEqual(await findingsOf(), []);
      } finally {
        release();
      }
    });
  });
});
