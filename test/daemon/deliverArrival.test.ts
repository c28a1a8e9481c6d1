// copyArrival on a real project (docs/bridge.md §3, Receive): the copy of a handoff that
// came over the bridge is written as a local delivery writes one, unless the recipient
// already holds that id anywhere in its inbox; anything that can never be delivered is
// refused with a reason (the daemon then terminates the message).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { copyArrival } from '../../lib/daemon/deliverArrival.js';
import { type DeliveryScope } from '../../lib/daemon/deliver.js';
import { daemonPathsOf, mailboxOf } from '../../lib/project/layout.js';
import { readRoles } from '../../lib/handoff/roles.js';
import { parseEnvelope, serializeEnvelope, type Headers } from '../../lib/queue/envelope.js';
import { acquireLock, LockBusy } from '../../lib/fsx/lock.js';
import { ensureMailbox } from '../../lib/queue/mailbox.js';
import { holdLockElsewhere } from '../support/heldLock.js';
import { itemsIn, makeProject, type Project } from '../support/project.js';

describe('lib/daemon/deliverArrival', () => {
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
    for (const role of ['coder', 'reviewer', 'QA']) ensureMailbox(p.box(role));
    const tmp = daemonPathsOf(p.root).tmp;
    fs.rmSync(tmp, { recursive: true, force: true });
    fs.mkdirSync(tmp, { recursive: true });
    scope = {
      root: p.root,
      roles: readRoles(p.root).roles,
      tmp,
      boxOf: (role) => mailboxOf(p.root, role),
      ensured: new Set(),
    };
  });

  /** A handoff as it is in the sender's outbox on the other node: its name, id and exact bytes. */
  const sent = async (
    headers: Headers = {},
    body = 'Re-read.\r\n\nno trailing newline \x00\xff',
  ) => {
    seq += 1;
    const id = `20260615T140531Z_${String(seq).padStart(6, '0')}_from_coder`;
    const name = `50_${id}_to_reviewer.handoff`;
    const bytes = await serializeEnvelope(
      {
        id,
        from: 'coder',
        to: 'reviewer',
        priority: '50',
        type: 'note',
        message: 'm',
        created_at: '2026-06-15T14:05:30.000Z',
        ...headers,
      },
      Buffer.from(body, 'latin1'),
    );
    return { id, name, bytes };
  };

  describe('copied', () => {
    it('writes the copy into new/ with recipient and enqueued_at added, every other header and the body bytes unchanged', async () => {
      const h = await sent();
      const outcome = await copyArrival(scope, 'reviewer', h.name, h.bytes, now);
      assert.deepEqual(outcome, { kind: 'copied', id: h.id, newDir: p.box('reviewer').inboxNew });
      const path = join(p.box('reviewer').inboxNew, h.name);
      const copy = await parseEnvelope(fs.readFileSync(path));
      const original = await parseEnvelope(h.bytes);
      assert.deepEqual(copy.headers, {
        ...original.headers,
        recipient: 'reviewer',
        enqueued_at: '2026-06-15T14:05:31.402Z',
      });
      assert.ok(copy.body.equals(original.body), 'body bytes unchanged');
      assert.equal(fs.statSync(path).mode & 0o777, 0o600);
      assert.deepEqual(fs.readdirSync(scope.tmp), [], 'no temp copy left');
      assert.deepEqual(scope.ensured, new Set(['reviewer']));
    });

    it('the bytes are those of a local delivery: the copy equals what deliverCopy would write for the same headers', async () => {
      const h = await sent();
      await copyArrival(scope, 'QA', h.name, h.bytes, now);
      const original = await parseEnvelope(h.bytes);
      const expected = await serializeEnvelope(
        { ...original.headers, recipient: 'QA', enqueued_at: '2026-06-15T14:05:31.402Z' },
        original.body,
      );
      assert.ok(fs.readFileSync(join(p.box('QA').inboxNew, h.name)).equals(expected));
    });

    it('reads bytes that are a view into a larger buffer (as the NATS client hands them over) by their own offset and length', async () => {
      const h = await sent();
      const big = Buffer.concat([
        Buffer.from('garbage before'),
        h.bytes,
        Buffer.from('garbage after'),
      ]);
      const view = new Uint8Array(
        big.buffer,
        big.byteOffset + 'garbage before'.length,
        h.bytes.length,
      );
      assert.equal((await copyArrival(scope, 'reviewer', h.name, view, now)).kind, 'copied');
      const copy = await parseEnvelope(fs.readFileSync(join(p.box('reviewer').inboxNew, h.name)));
      assert.ok(copy.body.equals((await parseEnvelope(h.bytes)).body));
    });

    it('creates a missing mailbox of the recipient', async () => {
      fs.rmSync(p.box('reviewer').dir, { recursive: true });
      const h = await sent();
      assert.equal((await copyArrival(scope, 'reviewer', h.name, h.bytes, now)).kind, 'copied');
      assert.deepEqual(itemsIn(p.box('reviewer').inboxNew), [h.name]);
    });

    it('a batch-mode recipient: its inbox lock is held for the search (a claim cannot move a copy meanwhile), then released', async () => {
      const h = await sent();
      assert.equal((await copyArrival(scope, 'QA', h.name, h.bytes, now)).kind, 'copied');
      acquireLock(p.box('QA').inboxLock, 1_000)();
      const held = await holdLockElsewhere(p.box('QA').inboxLock);
      const saved = process.env.BATON_LOCK_TIMEOUT_MS;
      process.env.BATON_LOCK_TIMEOUT_MS = '200';
      try {
        const next = await sent();
        await assert.rejects(copyArrival(scope, 'QA', next.name, next.bytes, now), LockBusy);
        assert.deepEqual(
          itemsIn(p.box('QA').inboxNew),
          [h.name],
          'nothing written without the lock',
        );
      } finally {
        if (saved === undefined) delete process.env.BATON_LOCK_TIMEOUT_MS;
        else process.env.BATON_LOCK_TIMEOUT_MS = saved;
        await held.stop();
      }
    });

    it('a task-mode recipient: no inbox lock needed (its copies only move forward)', async () => {
      const held = await holdLockElsewhere(p.box('reviewer').inboxLock);
      try {
        const h = await sent();
        assert.equal((await copyArrival(scope, 'reviewer', h.name, h.bytes, now)).kind, 'copied');
      } finally {
        await held.stop();
      }
    });
  });

  describe('already held', () => {
    const places: [string, (role: string) => string][] = [
      ['new/', (r) => p.box(r).inboxNew],
      ['in_process/', (r) => p.box(r).inProcess],
      ['an in-process batch', (r) => join(p.box(r).inProcess, 'batch_20260101T000000Z_000001')],
      ['completed/', (r) => p.box(r).completed],
      ['a completed batch', (r) => join(p.box(r).completed, 'batch_20260101T000000Z_000002')],
    ];
    for (const [where, dirOf] of places) {
      for (const role of ['reviewer', 'QA']) {
        it(`'already' when ${role} holds the id in ${where}; nothing written`, async () => {
          const h = await sent();
          const dir = dirOf(role);
          fs.mkdirSync(dir, { recursive: true });
          const held = await serializeEnvelope(
            { ...(await parseEnvelope(h.bytes)).headers, recipient: role, enqueued_at: 'earlier' },
            Buffer.from('b'),
          );
          fs.writeFileSync(join(dir, h.name), held);
          assert.deepEqual(await copyArrival(scope, role, h.name, h.bytes, now), {
            kind: 'already',
            id: h.id,
            newDir: p.box(role).inboxNew,
          });
          assert.ok(fs.readFileSync(join(dir, h.name)).equals(held), 'the held copy untouched');
          if (dir !== p.box(role).inboxNew) assert.deepEqual(itemsIn(p.box(role).inboxNew), []);
          assert.deepEqual(fs.readdirSync(scope.tmp), []);
        });
      }
    }
  });

  describe('refused', () => {
    it('a missing Baton-Name', async () => {
      const h = await sent();
      assert.deepEqual(await copyArrival(scope, 'reviewer', undefined, h.bytes, now), {
        kind: 'refused',
        reason: "bad Baton-Name header ''",
      });
    });

    for (const [what, name] of [
      ['not a .handoff name', '50_x_to_reviewer.txt'],
      ['a dot-file', '.50_x_to_reviewer.handoff'],
      ['a path', '../../outbox/50_x_to_reviewer.handoff'],
      ['a name over 200 bytes', `${'x'.repeat(200)}.handoff`],
    ] as const) {
      it(`a bad Baton-Name: ${what}`, async () => {
        const h = await sent();
        assert.deepEqual(await copyArrival(scope, 'reviewer', name, h.bytes, now), {
          kind: 'refused',
          reason: `bad Baton-Name header '${name}'`,
        });
        assert.deepEqual(itemsIn(p.box('reviewer').inboxNew), []);
        assert.deepEqual(itemsIn(p.box('coder').outbox), []);
      });
    }

    it('an unknown role (not in roles.tsv yet): deferred, not refused (its node may run baton init later)', async () => {
      const h = await sent();
      assert.deepEqual(await copyArrival(scope, 'nobody', h.name, h.bytes, now), {
        kind: 'deferred',
        reason: 'nobody is not in roles.tsv (run baton init)',
      });
      assert.equal(fs.existsSync(mailboxOf(p.root, 'nobody').dir), false);
    });

    it('bytes that are no handoff: front matter not closed, a line that is no header', async () => {
      const h = await sent();
      assert.deepEqual(
        await copyArrival(scope, 'reviewer', h.name, Buffer.from('---\nid: x\nfrom: coder\n'), now),
        { kind: 'refused', reason: 'front matter is not closed by a --- line' },
      );
      const outcome = await copyArrival(
        scope,
        'reviewer',
        h.name,
        Buffer.from('this is not a header\n\nbody'),
        now,
      );
      assert.equal(outcome.kind, 'refused');
      assert.match((outcome as { reason: string }).reason, /^unreadable header line/);
      assert.deepEqual(itemsIn(p.box('reviewer').inboxNew), []);
    });

    it('a handoff without an id header', async () => {
      const h = await sent();
      const bytes = await serializeEnvelope(
        { from: 'coder', to: 'reviewer', message: 'm' },
        Buffer.from('b'),
      );
      assert.deepEqual(await copyArrival(scope, 'reviewer', h.name, bytes, now), {
        kind: 'refused',
        reason: 'no id header',
      });
      assert.deepEqual(itemsIn(p.box('reviewer').inboxNew), []);
    });

    it('a name clash: the recipient holds another id under that name; deferred (redelivered later), the held file is untouched', async () => {
      const h = await sent();
      const other = await sent();
      fs.writeFileSync(join(p.box('reviewer').inProcess, h.name), other.bytes);
      assert.deepEqual(await copyArrival(scope, 'reviewer', h.name, h.bytes, now), {
        kind: 'deferred',
        reason: "name clash in reviewer's mailbox",
      });
      assert.ok(fs.readFileSync(join(p.box('reviewer').inProcess, h.name)).equals(other.bytes));
      assert.deepEqual(itemsIn(p.box('reviewer').inboxNew), []);
    });

    it('a deferral of a batch-mode recipient (name clash) releases its inbox lock', async () => {
      const h = await sent();
      const other = await sent();
      fs.writeFileSync(join(p.box('QA').inboxNew, h.name), other.bytes);
      assert.equal((await copyArrival(scope, 'QA', h.name, h.bytes, now)).kind, 'deferred');
      acquireLock(p.box('QA').inboxLock, 1_000)();
    });
  });
});
