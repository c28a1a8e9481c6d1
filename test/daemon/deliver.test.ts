// deliverHandoff in-process on a real project (protocol §8, delivery steps 1–3).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import {
  copyHandoff,
  deliverHandoff,
  finishHandoffs,
  type Copied,
  type DeliveryScope,
} from '../../lib/daemon/deliver.js';
import { daemonPathsOf } from '../../lib/project/layout.js';
import { SpareFiles, useSpareFiles } from '../../lib/fsx/spareFiles.js';
import { readRoles } from '../../lib/handoff/roles.js';
import { parseEnvelope, type Headers } from '../../lib/queue/envelope.js';
import { acquireLock } from '../../lib/fsx/lock.js';
import { ensureMailbox } from '../../lib/queue/mailbox.js';
import { copyFixture, fixtureBytes } from '../support/fixtures.js';
import { itemsIn, makeProject, placeItem, type Project } from '../support/project.js';

const ROLES = ['coder', 'reviewer', 'QA'];

describe('lib/daemon/deliver', () => {
  let p: Project;
  let scope: DeliveryScope;
  const now = new Date('2026-06-15T14:05:31.402Z');
  let seq = 0;
  before(() => {
    p = makeProject();
  });
  after(() => p.cleanup());
  beforeEach(() => {
    fs.rmSync(join(p.root, '.swarmforge', 'handoffs'), { recursive: true, force: true });
    for (const role of ROLES) ensureMailbox(p.box(role));
    const tmp = daemonPathsOf(p.root).tmp;
    fs.rmSync(tmp, { recursive: true, force: true });
    fs.mkdirSync(tmp, { recursive: true });
    scope = { root: p.root, roles: readRoles(p.root).roles, tmp };
  });

  /** Queues a handoff in coder's outbox; returns its name, id and bytes. */
  const queue = async (headers: Headers, body = 'Re-read.\r\n\nno trailing newline') => {
    seq += 1;
    const id = `20260615T140531Z_${String(seq).padStart(6, '0')}_from_coder`;
    const name = `50_${id}_to_x.handoff`;
    const path = await placeItem(
      p.box('coder').outbox,
      { id, from: 'coder', to: 'reviewer', recipient: '', ...headers },
      body,
      name,
    );
    return { name, id, path, bytes: fs.readFileSync(path) };
  };
  const newItems = () => Object.fromEntries(ROLES.map((r) => [r, itemsIn(p.box(r).inboxNew)]));

  describe('delivered', () => {
    it('writes each copy into a spare file made ahead when the process has them (no new inode)', async () => {
      const spares = new SpareFiles(scope.tmp, 2);
      spares.refill();
      const inodes = ['spare.1', 'spare.2'].map((n) => fs.statSync(join(scope.tmp, n)).ino);
      const h = await queue({ to: 'reviewer,QA' });
      useSpareFiles(spares);
      try {
        await deliverHandoff(scope, 'coder', h.name, false, now);
      } finally {
        useSpareFiles(undefined);
      }
      const copies = ['reviewer', 'QA'].map((r) => join(p.box(r).inboxNew, h.name));
      assert.deepEqual(copies.map((c) => fs.statSync(c).ino).sort(), [...inodes].sort());
      for (const c of copies) assert.equal(fs.statSync(c).mode & 0o777, 0o600);
      assert.equal(
        (await parseEnvelope(fs.readFileSync(copies[0]!))).headers.recipient,
        'reviewer',
      );
      assert.deepEqual(fs.readdirSync(scope.tmp), [], 'no temp or spare left');
    });

    it('copies to every recipient with recipient and enqueued_at, body bytes kept, then moves the original to sent/', async () => {
      const h = await queue({ to: 'reviewer,QA' });
      const result = await deliverHandoff(scope, 'coder', h.name, false, now);
      const sentPath = join(p.box('coder').sent, h.name);
      assert.deepEqual(result, {
        kind: 'delivered',
        id: h.id,
        name: h.name,
        from: 'coder',
        copied: ['reviewer', 'QA'],
        already: [],
        sentPath,
      });
      assert.ok(fs.readFileSync(sentPath).equals(h.bytes), 'the original is moved unchanged');
      const original = await parseEnvelope(h.bytes);
      for (const role of ['reviewer', 'QA']) {
        const copyPath = join(p.box(role).inboxNew, h.name);
        const copy = await parseEnvelope(fs.readFileSync(copyPath));
        assert.deepEqual(copy.headers, {
          ...original.headers,
          recipient: role,
          enqueued_at: '2026-06-15T14:05:31.402Z',
        });
        assert.ok(copy.body.equals(original.body));
        assert.equal(fs.statSync(copyPath).mode & 0o777, 0o600);
      }
      assert.deepEqual(newItems(), { coder: [], reviewer: [h.name], QA: [h.name] });
      assert.deepEqual(fs.readdirSync(p.box('coder').outbox), ['tmp']);
      assert.deepEqual(fs.readdirSync(scope.tmp), [], 'no temp copy left');
    });

    it('trims recipients, ignores repeats, and lets a role send to itself', async () => {
      const h = await queue({ to: ' reviewer , reviewer,coder ' });
      const result = await deliverHandoff(scope, 'coder', h.name, false, now);
      assert.equal(result.kind, 'delivered');
      assert.deepEqual(result.kind === 'delivered' && result.copied, ['reviewer', 'coder']);
      assert.deepEqual(newItems(), { coder: [h.name], reviewer: [h.name], QA: [] });
    });

    it('skips recipients that already hold the id (new/, an in-process batch, completed/) and still moves the original', async () => {
      const h = await queue({ to: 'reviewer,QA,coder' });
      fs.writeFileSync(join(p.box('reviewer').inboxNew, h.name), h.bytes);
      fs.mkdirSync(join(p.box('QA').inProcess, 'batch_20260101T000000Z_000001'));
      fs.writeFileSync(
        join(p.box('QA').inProcess, 'batch_20260101T000000Z_000001', h.name),
        h.bytes,
      );
      fs.writeFileSync(join(p.box('coder').completed, h.name), h.bytes);
      const result = await deliverHandoff(scope, 'coder', h.name, false, now);
      assert.deepEqual(result.kind === 'delivered' && [result.copied, result.already], [
        [],
        ['reviewer', 'QA', 'coder'],
      ]);
      assert.ok(
        fs.readFileSync(join(p.box('reviewer').inboxNew, h.name)).equals(h.bytes),
        'the held copy is untouched',
      );
      assert.deepEqual(newItems(), { coder: [], reviewer: [h.name], QA: [] });
      assert.deepEqual(itemsIn(p.box('coder').sent), [h.name]);
    });

    it('completes a partial fan-out: only the missing recipient gets a copy', async () => {
      const h = await queue({ to: 'reviewer,QA' });
      fs.writeFileSync(join(p.box('reviewer').inProcess, h.name), h.bytes);
      const result = await deliverHandoff(scope, 'coder', h.name, false, now);
      assert.deepEqual(result.kind === 'delivered' && [result.copied, result.already], [
        ['QA'],
        ['reviewer'],
      ]);
      assert.deepEqual(newItems(), { coder: [], reviewer: [], QA: [h.name] });
    });

    it('searches completed batches only when deep', async () => {
      const doneBatch = join(p.box('QA').completed, 'batch_20260101T000000Z_000007');
      const shallow = await queue({ to: 'QA' });
      const deep = await queue({ to: 'QA' });
      fs.mkdirSync(doneBatch);
      fs.writeFileSync(join(doneBatch, shallow.name), shallow.bytes);
      fs.writeFileSync(join(doneBatch, deep.name), deep.bytes);
      const d = await deliverHandoff(scope, 'coder', deep.name, true, now);
      assert.deepEqual(d.kind === 'delivered' && [d.copied, d.already], [[], ['QA']]);
      const s = await deliverHandoff(scope, 'coder', shallow.name, false, now);
      assert.deepEqual(
        s.kind === 'delivered' && [s.copied, s.already],
        [['QA'], []],
        'a shallow search does not open completed batches',
      );
      assert.deepEqual(itemsIn(p.box('QA').inboxNew), [shallow.name]);
    });

    it('creates the mailbox of a recipient added to roles.tsv since init', async () => {
      const rolesPath = join(p.root, '.swarmforge', 'roles.tsv');
      const table = fs.readFileSync(rolesPath, 'utf8');
      try {
        fs.appendFileSync(rolesPath, `newbie\tmaster\t${p.root}\ts\tnewbie\tclaude\ttask\n`);
        scope.roles = readRoles(p.root).roles;
        assert.equal(fs.existsSync(join(p.root, '.swarmforge', 'handoffs', 'newbie')), false);
        const h = await queue({ to: 'newbie' });
        const result = await deliverHandoff(scope, 'coder', h.name, false, now);
        assert.equal(result.kind, 'delivered');
        assert.deepEqual(
          fs.readdirSync(join(p.root, '.swarmforge', 'handoffs', 'newbie', 'inbox', 'new')),
          [h.name],
        );
      } finally {
        fs.writeFileSync(rolesPath, table);
      }
    });

    it('a deep delivery removes a .error left by a refused attempt whose cause was fixed', async () => {
      const { name } = await queue({ to: 'reviewer' });
      const stale = join(p.box('coder').failed, `${name}.error`);
      fs.writeFileSync(stale, 'unknown recipient reviewer\n');
      assert.equal((await deliverHandoff(scope, 'coder', name, true, now)).kind, 'delivered');
      assert.equal(fs.existsSync(stale), false);
    });

    it("a deep delivery waits for a batch recipient's inbox lock (no claim can move a copy during the search)", async () => {
      const { name } = await queue({ to: 'QA' });
      const release = acquireLock(join(p.box('QA').locks, 'inbox'));
      const previous = process.env.BATON_LOCK_TIMEOUT_MS;
      process.env.BATON_LOCK_TIMEOUT_MS = '100';
      try {
        await assert.rejects(
          deliverHandoff(scope, 'coder', name, true, now),
          /lock busy .*QA\/locks\/inbox/,
        );
        assert.deepEqual(itemsIn(p.box('QA').inboxNew), []);
      } finally {
        if (previous === undefined) delete process.env.BATON_LOCK_TIMEOUT_MS;
        else process.env.BATON_LOCK_TIMEOUT_MS = previous;
        release();
      }
      assert.equal((await deliverHandoff(scope, 'coder', name, true, now)).kind, 'delivered');
    });

    it('copies a group first (originals stay in outbox/), then finishes it: every original to sent/, in one go', async () => {
      const hs = [
        await queue({ to: 'reviewer' }),
        await queue({ to: 'reviewer,QA' }),
        await queue({ to: 'QA' }),
      ];
      const copied: Copied[] = [];
      for (const h of hs) {
        const c = await copyHandoff(scope, 'coder', h.name, false, now);
        assert.equal(c.kind, 'copied');
        copied.push(c as Copied);
      }
      assert.deepEqual(newItems(), {
        coder: [],
        reviewer: [hs[0]!.name, hs[1]!.name],
        QA: [hs[1]!.name, hs[2]!.name],
      });
      assert.deepEqual(
        itemsIn(p.box('coder').outbox),
        hs.map((h) => h.name),
        'nothing leaves the outbox before the group is finished',
      );
      assert.deepEqual(copied[1]!.newDirs, [p.box('reviewer').inboxNew, p.box('QA').inboxNew]);
      const results = finishHandoffs(scope, copied);
      assert.deepEqual(
        results.map((r) => [r.name, r.copied, r.sentPath]),
        hs.map((h, i) => [h.name, copied[i]!.copied, join(p.box('coder').sent, h.name)]),
      );
      assert.deepEqual(itemsIn(p.box('coder').outbox), []);
      assert.deepEqual(
        itemsIn(p.box('coder').sent),
        hs.map((h) => h.name),
      );
    });

    it('delivers a legacy-format outbox file (a queue of the reference scripts): copies in front matter, body bytes kept, original moved as it was', async () => {
      const name = '40_20250614T093000Z_000012_from_coder_to_reviewer_QA.handoff';
      const path = copyFixture(
        join(p.box('coder').outbox, name),
        'handoffs',
        'legacy',
        'git_handoff.handoff',
      );
      const original = await parseEnvelope(fs.readFileSync(path));
      assert.equal(original.legacy, true);
      const result = await deliverHandoff(scope, 'coder', name, false, now);
      assert.deepEqual(result.kind === 'delivered' && result.copied, ['reviewer', 'QA']);
      assert.ok(
        fs
          .readFileSync(join(p.box('coder').sent, name))
          .equals(fixtureBytes('handoffs', 'legacy', 'git_handoff.handoff')),
      );
      for (const role of ['reviewer', 'QA']) {
        const copy = await parseEnvelope(fs.readFileSync(join(p.box(role).inboxNew, name)));
        assert.equal(copy.legacy, false);
        assert.deepEqual(copy.headers, {
          ...original.headers,
          recipient: role,
          enqueued_at: '2026-06-15T14:05:31.402Z',
        });
        assert.equal(
          copy.body.toString('utf8'),
          'Re-read your role and constitution.\n\nmerge_and_process coder 3f2a9c1e0b',
        );
      }
    });

    it('keeps both originals on a name clash in sent/', async () => {
      const h = await queue({ to: 'reviewer' });
      fs.writeFileSync(join(p.box('coder').sent, h.name), 'earlier');
      const result = await deliverHandoff(scope, 'coder', h.name, false, now);
      const renamed = join(p.box('coder').sent, h.name.replace(/\.handoff$/, '.1.handoff'));
      assert.equal(result.kind === 'delivered' && result.sentPath, renamed);
      assert.equal(fs.readFileSync(join(p.box('coder').sent, h.name), 'utf8'), 'earlier');
      assert.ok(fs.readFileSync(renamed).equals(h.bytes));
    });
  });

  describe('failed: checked before anything is written, original to failed/ with <name>.error', () => {
    const expectFailed = async (name: string, reason: string) => {
      const result = await deliverHandoff(scope, 'coder', name, false, now);
      const failedPath = join(p.box('coder').failed, name);
      assert.deepEqual(result, { kind: 'failed', name, from: 'coder', reason, failedPath });
      assert.equal(fs.readFileSync(`${failedPath}.error`, 'utf8'), `${reason}\n`);
      assert.ok(fs.lstatSync(failedPath));
      assert.deepEqual(
        fs.readdirSync(p.box('coder').failed).sort(),
        [name, `${name}.error`].sort(),
        'no .error.tmp left',
      );
      assert.deepEqual(fs.readdirSync(p.box('coder').outbox), ['tmp']);
      assert.deepEqual(newItems(), { coder: [], reviewer: [], QA: [] }, 'no recipient got a copy');
      assert.deepEqual(itemsIn(p.box('coder').sent), []);
    };

    const headerCases: [string, Headers, string][] = [
      ['no to header', { to: '' }, 'missing to header'],
      ['a to header with only commas and blanks', { to: ' , ,' }, 'missing to header'],
      [
        'unknown recipients (listed together)',
        { to: 'reviewer,ghost,QA,ghost2' },
        'unknown recipient ghost, ghost2',
      ],
      [
        'a from that is not the sender mailbox',
        { from: 'QA' },
        'from does not match the sender mailbox',
      ],
      ['no from header', { from: '' }, 'from does not match the sender mailbox'],
    ];
    for (const [title, headers, reason] of headerCases) {
      it(title, async () => {
        const h = await queue(headers);
        await expectFailed(h.name, reason);
        assert.ok(
          fs.readFileSync(join(p.box('coder').failed, h.name)).equals(h.bytes),
          'the original is kept as it was',
        );
      });
    }

    it('a sender mailbox without failed/: created (0700), then the move as usual', async () => {
      fs.rmSync(p.box('coder').failed, { recursive: true });
      const h = await queue({ to: 'ghost' });
      await expectFailed(h.name, 'unknown recipient ghost');
      assert.equal(fs.statSync(p.box('coder').failed).mode & 0o777, 0o700);
    });

    it('a failed/ that is a symlink is refused: nothing is written through it, the handoff stays in outbox/', async () => {
      const elsewhere = join(p.root, 'elsewhere');
      fs.mkdirSync(elsewhere);
      fs.rmSync(p.box('coder').failed, { recursive: true });
      fs.symlinkSync(elsewhere, p.box('coder').failed);
      const h = await queue({ to: 'ghost' });
      await assert.rejects(copyHandoff(scope, 'coder', h.name, false, now), /is a symlink/);
      assert.deepEqual(fs.readdirSync(elsewhere), []);
      assert.ok(fs.existsSync(h.path));
    });

    it('no id header', async () => {
      const name = '50_noid.handoff';
      copyFixture(join(p.box('coder').outbox, name), 'handoffs', 'unusable', 'no-id.handoff');
      await expectFailed(name, 'no id header');
    });

    it('an unreadable header', async () => {
      const name = '50_open.handoff';
      copyFixture(join(p.box('coder').outbox, name), 'handoffs', 'unusable', 'unclosed.handoff');
      await expectFailed(name, 'front matter is not closed by a --- line');
    });

    it('a symlink (moved, never followed)', async () => {
      const h = await queue({ to: 'reviewer' });
      const target = join(p.root, 'target.handoff');
      fs.renameSync(h.path, target);
      fs.symlinkSync(target, h.path);
      await expectFailed(h.name, 'is a symlink');
      assert.ok(fs.lstatSync(join(p.box('coder').failed, h.name)).isSymbolicLink());
      assert.ok(fs.readFileSync(target).equals(h.bytes));
    });

    it('not a regular file', async () => {
      const name = '50_dir.handoff';
      fs.mkdirSync(join(p.box('coder').outbox, name));
      await expectFailed(name, 'not a regular file');
    });

    it("a name taken by another id in a later recipient's mailbox fails the whole handoff before any copy", async () => {
      const h = await queue({ to: 'reviewer,QA' });
      await placeItem(p.box('QA').completed, { id: 'someone-else' }, 'x', h.name);
      const completed = fs.readFileSync(join(p.box('QA').completed, h.name));
      await expectFailed(h.name, "name clash in QA's mailbox");
      assert.ok(fs.readFileSync(join(p.box('QA').completed, h.name)).equals(completed));
    });

    it('an unreadable file at the name also counts as a clash', async () => {
      const h = await queue({ to: 'reviewer' });
      const junk = copyFixture(
        join(p.box('reviewer').inboxNew, h.name),
        'handoffs',
        'unusable',
        'no-header.handoff',
      );
      const result = await deliverHandoff(scope, 'coder', h.name, false, now);
      assert.deepEqual(
        result.kind === 'failed' && result.reason,
        "name clash in reviewer's mailbox",
      );
      assert.ok(
        fs.readFileSync(junk).equals(fixtureBytes('handoffs', 'unusable', 'no-header.handoff')),
      );
    });

    it('keeps both failed files (and their .error files) on a name clash in failed/', async () => {
      const h = await queue({ to: 'ghost' });
      fs.writeFileSync(join(p.box('coder').failed, h.name), 'earlier');
      fs.writeFileSync(join(p.box('coder').failed, `${h.name}.error`), 'earlier reason\n');
      const result = await deliverHandoff(scope, 'coder', h.name, false, now);
      const renamed = join(p.box('coder').failed, h.name.replace(/\.handoff$/, '.1.handoff'));
      assert.equal(result.kind === 'failed' && result.failedPath, renamed);
      assert.equal(fs.readFileSync(`${renamed}.error`, 'utf8'), 'unknown recipient ghost\n');
      assert.equal(fs.readFileSync(join(p.box('coder').failed, h.name), 'utf8'), 'earlier');
      assert.equal(
        fs.readFileSync(join(p.box('coder').failed, `${h.name}.error`), 'utf8'),
        'earlier reason\n',
      );
    });
  });
});
