// lib/handoff/systemSend: a handoff Baton writes itself is queued like swarm_handoff's
// (next sequence number, temp file, rename into outbox/, mode 0600) under the sender's
// outbox lock, with the writer's headers beside the envelope's own (which it cannot
// override) and the body byte for byte; handoffd then delivers it like any other.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { basename, dirname } from 'node:path';
import {
  queueSystemHandoff,
  queueSystemHandoffs,
  type SystemHandoff,
} from '../../lib/handoff/systemSend.js';
import { parseEnvelope } from '../../lib/queue/envelope.js';
import { LockBusy } from '../../lib/fsx/lock.js';
import { at, reviewProjectForSuite } from '../support/bookbags.js';
import { followDurability } from '../support/durability.js';
import { holdLockElsewhere } from '../support/heldLock.js';
import { itemsIn } from '../support/project.js';
import { deliverOutbox } from '../support/reviewMail.js';

const TSID = '20260615T140007Z';

describe('lib/handoff/systemSend', () => {
  const p = reviewProjectForSuite();
  beforeEach(() => fs.rmSync(p.box('coder').seqFile, { force: true }));

  const handoff = (extra: Partial<SystemHandoff> = {}): SystemHandoff => ({
    to: ['rev-cto'],
    priority: '50',
    type: 'review_request',
    headers: { bead: 'b-1', lens: 'cto' },
    body: 'Review it.\n',
    ...extra,
  });
  const envelopeAt = async (path: string) => parseEnvelope(fs.readFileSync(path));

  it("queues into the sender's outbox under the next sequence number, with the envelope headers and the writer's", async () => {
    const path = await queueSystemHandoff(p.root, 'coder', handoff(), at(7));
    assert.deepEqual(
      [dirname(path), basename(path)],
      [p.box('coder').outbox, `50_${TSID}_000001_from_coder_to_rev-cto.handoff`],
    );
    assert.deepEqual((await envelopeAt(path)).headers, {
      id: `${TSID}_000001_from_coder`,
      from: 'coder',
      to: 'rev-cto',
      priority: '50',
      type: 'review_request',
      created_at: at(7).toISOString(),
      bead: 'b-1',
      lens: 'cto',
    });
    const second = await queueSystemHandoff(
      p.root,
      'coder',
      handoff({ to: ['rev-cto', 'rev-coo'], priority: '40' }),
      at(7),
    );
    assert.equal(basename(second), `40_${TSID}_000002_from_coder_to_rev-cto_rev-coo.handoff`);
    assert.equal((await envelopeAt(second)).headers.to, 'rev-cto,rev-coo');
    assert.equal(fs.readFileSync(p.box('coder').seqFile, 'utf8'), '2\n');
  });

  it("queues several together: consecutive numbers from one write of the counter, the files fsync'd together, then the counter published before the handoffs, outbox/ fsync'd once", async () => {
    const followed = followDurability();
    let paths: string[];
    try {
      paths = await queueSystemHandoffs(
        p.root,
        'coder',
        [handoff(), handoff({ to: ['rev-coo'], headers: { bead: 'b-1', lens: 'coo' } })],
        at(7),
      );
    } finally {
      followed.restore();
    }
    assert.deepEqual(
      paths.map((path) => basename(path)),
      [
        `50_${TSID}_000001_from_coder_to_rev-cto.handoff`,
        `50_${TSID}_000002_from_coder_to_rev-coo.handoff`,
      ],
    );
    assert.equal(fs.readFileSync(p.box('coder').seqFile, 'utf8'), '2\n');
    const box = p.box('coder');
    const short = (path: string) =>
      path === box.outbox || path === box.outboxTmp
        ? `${path.slice(box.outbox.length - 'outbox'.length)}/`
        : path.startsWith(`${box.outboxTmp}/`)
          ? `tmp/${basename(path)}`
          : path.startsWith(`${box.outbox}/`)
            ? `outbox/${basename(path)}`
            : path === box.seqFile || path === `${box.seqFile}.tmp` || path === dirname(box.seqFile)
              ? basename(path)
              : path;
    const steps = followed.order.map((step) =>
      step
        .split(' ')
        .map((word) => (word.startsWith('/') ? short(word) : word))
        .join(' '),
    );
    const [cto, coo] = paths.map((path) => basename(path));
    const lock = steps.filter((step) => step.includes('/locks/')).length;
    const [together, ...published] = [steps.slice(lock, lock + 3), steps.slice(lock + 3)];
    assert.deepEqual(
      together.sort(),
      ['fsync sequence.tmp', `fsync tmp/${cto}.tmp`, `fsync tmp/${coo}.tmp`].sort(),
      "the three temps are fsync'd together, before anything is published",
    );
    assert.deepEqual(published[0], [
      'rename sequence.tmp -> sequence',
      'fsync coder',
      `rename tmp/${cto}.tmp -> outbox/${cto}`,
      `rename tmp/${coo}.tmp -> outbox/${coo}`,
      'fsync outbox/',
    ]);
    assert.deepEqual(itemsIn(box.outbox), [cto, coo]);
  });

  it('rewrites the temp a send killed before publishing its counter left under the same name', async () => {
    const box = p.box('coder');
    fs.mkdirSync(box.outboxTmp, { recursive: true });
    const leftover = `${box.outboxTmp}/50_${TSID}_000001_from_coder_to_rev-cto.handoff.tmp`;
    fs.writeFileSync(leftover, 'a torn temp of a killed send');
    const path = await queueSystemHandoff(p.root, 'coder', handoff(), at(7));
    assert.equal(basename(path), basename(leftover).slice(0, -'.tmp'.length));
    assert.equal((await envelopeAt(path)).headers.id, `${TSID}_000001_from_coder`);
    assert.deepEqual(fs.readdirSync(box.outboxTmp), []);
  });

  it("never lets the writer's headers replace the envelope's own", async () => {
    const spoof = {
      id: 'x',
      from: 'rev-coo',
      to: 'QA',
      priority: '99',
      type: 'note',
      created_at: 'then',
      bead: 'b-1',
    };
    const path = await queueSystemHandoff(p.root, 'coder', handoff({ headers: spoof }), at(7));
    const { headers } = await envelopeAt(path);
    assert.deepEqual(
      [
        headers.id,
        headers.from,
        headers.to,
        headers.priority,
        headers.type,
        headers.created_at,
        headers.bead,
      ],
      [
        `${TSID}_000001_from_coder`,
        'coder',
        'rev-cto',
        '50',
        'review_request',
        at(7).toISOString(),
        'b-1',
      ],
    );
  });

  it("keeps the body's bytes, writes mode 0600 and leaves nothing in outbox/tmp", async () => {
    const body = Buffer.from([0x41, 0x0d, 0x0a, 0x0a, 0xff, 0x00, 0x42]);
    const path = await queueSystemHandoff(p.root, 'coder', handoff({ body }), at(7));
    assert.deepEqual((await envelopeAt(path)).body, body);
    assert.equal(fs.statSync(path).mode & 0o777, 0o600);
    assert.deepEqual(fs.readdirSync(p.box('coder').outboxTmp), []);
  });

  it("waits for the sender's outbox lock and queues nothing when it stays held", async () => {
    const holder = await holdLockElsewhere(p.box('coder').outboxLock);
    const saved = process.env.BATON_LOCK_TIMEOUT_MS;
    process.env.BATON_LOCK_TIMEOUT_MS = '300';
    try {
      await assert.rejects(queueSystemHandoff(p.root, 'coder', handoff(), at(7)), LockBusy);
      assert.deepEqual(
        [itemsIn(p.box('coder').outbox), fs.existsSync(p.box('coder').seqFile)],
        [[], false],
      );
    } finally {
      if (saved === undefined) delete process.env.BATON_LOCK_TIMEOUT_MS;
      else process.env.BATON_LOCK_TIMEOUT_MS = saved;
      await holder.stop();
    }
  });

  it('is delivered by handoffd like any handoff', async () => {
    const path = await queueSystemHandoff(p.root, 'coder', handoff(), at(7));
    const [delivery] = await deliverOutbox(p.root, 'coder');
    assert.equal(delivery?.kind, 'delivered');
    const copy = `${p.box('rev-cto').inboxNew}/${basename(path)}`;
    const { headers, body } = await envelopeAt(copy);
    assert.deepEqual(
      [headers.recipient, headers.bead, body.toString()],
      ['rev-cto', 'b-1', 'Review it.\n'],
    );
    assert.deepEqual(itemsIn(p.box('coder').sent), [basename(path)]);
  });
});
