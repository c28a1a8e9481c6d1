// Receipts (docs/bridge.md §3, lib/daemon/awaitingReceipts.ts): the server's acknowledgement
// of a publish does not end the sender's care. The receiving node puts a receipt per copy it
// made or found; the sender keeps a ledger entry per handoff with remote recipients until
// every receipt is there, and publishes again, under a new message id, a copy that vanished
// from the server without one (a nats-server 2.9 cluster under SIGKILLs was seen to lose
// stored messages). Two nodes, the built handoffds, a real nats-server; the loss is made by
// deleting the message from the stream, the lost receipt by deleting its key.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { Kvm, type KV } from '@nats-io/kv';
import {
  receiptKeyOf,
  receiptsBucketOf,
  streamNameOf,
  subjectOf,
} from '../../lib/bridge/wireNames.js';
import { daemonLog, waitFor } from '../support/daemon.js';
import { servedClient } from '../support/nats.js';
import { itemsIn, type Project } from '../support/project.js';
import { bridgeDrained, heldCopies, makeTwoNodes, type TwoNodes } from '../support/twoNodes.js';

/** A copy unconfirmed for 1.5 s is looked for; short redelivery and backoff. */
const QUICK = {
  BATON_BRIDGE_CONFIRM_AFTER_MS: '1500',
  BATON_BRIDGE_ACK_WAIT_MS: '3000',
  BATON_BRIDGE_BACKOFF_CAP_MS: '500',
  BATON_BRIDGE_COUNTS_INTERVAL_MS: '300',
};

describe('receipts: a copy that vanished from the server is published again (built bins, real nats-server)', function () {
  this.timeout(60_000);
  const served = servedClient();
  let nodes: TwoNodes;
  beforeEach(() => {
    nodes = makeTwoNodes(served.nats);
  });
  afterEach(async () => {
    await nodes.cleanup();
  });

  const idOf = (path: string) => /^\d+_(.+?)_to_/.exec(path.split('/').pop()!)![1]!;
  const ledger = (p: Project) => join(p.root, '.swarmforge', 'bridge', 'awaiting');
  const entryOf = (p: Project, id: string) => join(ledger(p), id);
  const logged = (p: Project, event: string) =>
    daemonLog(p.root).filter((l) => l.split(' ')[1] === event);
  const receipts = async (): Promise<KV> => new Kvm(served.nc).open(receiptsBucketOf(nodes.swarm));

  it('a copy deleted from the stream before its node took it: published again once (bridge-resent), one copy on b, the entry gone once its receipt is there', async () => {
    await nodes.start('a', QUICK);
    const id = idOf(nodes.send('a', 'coder', 'reviewer', 'lost on the way'));
    await waitFor('the entry on a', () => fs.existsSync(entryOf(nodes.a, id)));
    await waitFor('sent/ on a', () => itemsIn(nodes.a.box('coder').sent).length === 1);
    const entry = JSON.parse(fs.readFileSync(entryOf(nodes.a, id), 'utf8')) as {
      roles: Record<string, number>;
    };
    const seq = entry.roles.reviewer!;
    const stored = await served.jsm.streams.getMessage(streamNameOf(nodes.swarm), { seq });
    assert.equal(
      stored?.subject,
      subjectOf(nodes.swarm, 'reviewer'),
      'the entry names its message',
    );
    // Checked while the message waits for b: kept, nothing published again.
    const written = fs.statSync(entryOf(nodes.a, id)).mtimeMs;
    await waitFor(
      'a check of the waiting entry',
      () => fs.statSync(entryOf(nodes.a, id)).mtimeMs > written,
      20_000,
    );
    assert.deepEqual(logged(nodes.a, 'bridge-resent'), [], 'a waiting copy is not published again');
    await served.jsm.streams.deleteMessage(streamNameOf(nodes.swarm), seq);
    await waitFor('bridge-resent on a', () => logged(nodes.a, 'bridge-resent').length > 0, 20_000);
    assert.match(logged(nodes.a, 'bridge-resent')[0]!, new RegExp(` id=${id} .* to=reviewer$`));
    await nodes.start('b', QUICK);
    await waitFor('the entry gone on a', () => !fs.existsSync(entryOf(nodes.a, id)), 30_000);
    assert.deepEqual(
      [...(await heldCopies(nodes.b, 'reviewer')).entries()],
      [[`${id}:reviewer`, 1]],
    );
    assert.equal(logged(nodes.a, 'bridge-resent').length, 1, 'published again once');
    assert.equal((await (await receipts()).get(receiptKeyOf(id, 'reviewer')))?.string(), 'b');
  });

  it('a receipt lost after the copy: the handoff is published again, b finds the id (no second copy) and confirms, the entry goes', async () => {
    await nodes.start('a', QUICK);
    await nodes.start('b', QUICK);
    const id = idOf(nodes.send('a', 'coder', 'reviewer,QA', 'confirmed twice'));
    // The bucket is made at b's first receipt. A message read while a stream is being made
    // can crash nats-server 2.9.10 (a nil message in jsMsgGetRequest): asked only once it is.
    await waitFor('the receipts bucket', () =>
      served.jsm.streams.info(`KV_${receiptsBucketOf(nodes.swarm)}`).then(
        () => true,
        () => false,
      ),
    );
    const bucket = await receipts();
    const key = receiptKeyOf(id, 'reviewer');
    await waitFor('the receipt of reviewer', async () =>
      bucket.get(key).then(
        (e) => e?.operation === 'PUT',
        () => false,
      ),
    );
    await bucket.delete(key);
    await waitFor('bridge-resent on a', () => logged(nodes.a, 'bridge-resent').length > 0, 20_000);
    await waitFor('the entry gone on a', () => !fs.existsSync(entryOf(nodes.a, id)), 30_000);
    await waitFor('both drained', () => bridgeDrained(nodes.a) && bridgeDrained(nodes.b), 20_000);
    for (const role of ['reviewer', 'QA'])
      assert.deepEqual([...(await heldCopies(nodes.b, role)).entries()], [[`${id}:${role}`, 1]]);
    assert.equal(logged(nodes.b, 'received').length, 2, 'one copy each, made once');
    assert.deepEqual(
      logged(nodes.a, 'bridge-resent').map((l) => / to=(\S+)$/.exec(l)![1]),
      ['reviewer'],
      'only the copy whose receipt was lost',
    );
  });

  it('killed after the entries were written, before the move to sent/: the restart publishes again and moves it; one copy, the entry gone', async () => {
    await nodes.start('b', QUICK);
    const dying = await nodes.start('a', { ...QUICK, BATON_CRASH_AT: 'bridge:awaiting-written' });
    const id = idOf(nodes.send('a', 'coder', 'reviewer', 'killed at the ledger'));
    await dying.exited;
    assert.ok(fs.existsSync(entryOf(nodes.a, id)), 'the entry was written');
    assert.equal(itemsIn(nodes.a.box('coder').outbox).length, 1, 'still in the outbox');
    await nodes.start('a', QUICK);
    await waitFor('sent/ on a', () => itemsIn(nodes.a.box('coder').sent).length === 1);
    await waitFor('the entry gone on a', () => !fs.existsSync(entryOf(nodes.a, id)), 30_000);
    assert.deepEqual(
      [...(await heldCopies(nodes.b, 'reviewer')).entries()],
      [[`${id}:reviewer`, 1]],
    );
    assert.deepEqual(logged(nodes.a, 'bridge-resent'), []);
  });

  it('killed after publishing a vanished copy again, before its entry says so: the restart checks the entry again; one copy on b, the entry gone', async () => {
    const dying = await nodes.start('a', { ...QUICK, BATON_CRASH_AT: 'bridge:resent' });
    const id = idOf(nodes.send('a', 'coder', 'reviewer', 'resent, then killed'));
    await waitFor('the entry on a', () => fs.existsSync(entryOf(nodes.a, id)));
    await waitFor('sent/ on a', () => itemsIn(nodes.a.box('coder').sent).length === 1);
    const { roles } = JSON.parse(fs.readFileSync(entryOf(nodes.a, id), 'utf8')) as {
      roles: Record<string, number>;
    };
    await served.jsm.streams.deleteMessage(streamNameOf(nodes.swarm), roles.reviewer!);
    await dying.exited;
    assert.deepEqual(
      JSON.parse(fs.readFileSync(entryOf(nodes.a, id), 'utf8')).roles,
      roles,
      'the entry still names the vanished message',
    );
    await nodes.start('a', QUICK);
    await nodes.start('b', QUICK);
    await waitFor('the entry gone on a', () => !fs.existsSync(entryOf(nodes.a, id)), 30_000);
    assert.deepEqual(
      [...(await heldCopies(nodes.b, 'reviewer')).entries()],
      [[`${id}:reviewer`, 1]],
    );
  });
});
