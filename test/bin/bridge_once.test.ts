// Exactly one copy per (id, recipient) whatever the wire does (docs/bridge.md §3, issue 17
// defect 8): the server's duplicate window does not survive a restart, so a handoff that
// reaches a node again after one (republished from a copy in the sender's outbox under a
// new name, or published by hand with a fresh message id) must be found by its id in the
// recipient's inbox (new/, in_process/, completed/), whatever the role's mode. Two nodes,
// the built handoffds, a real nats-server SIGKILLed and restarted on its store.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { headers as natsHeaders, connect } from '@nats-io/transport-node';
import { subjectOf } from '../../lib/bridge/wireNames.js';
import { afterPasses, daemonLog, waitFor } from '../support/daemon.js';
import { startNatsServer, type NatsServerHandle } from '../support/nats.js';
import { itemsIn, runBin } from '../support/project.js';
import { bridgeDrained, heldCopies, makeTwoNodes, type TwoNodes } from '../support/twoNodes.js';

describe('exactly one copy across machines after a server restart (built bins, real nats-server)', function () {
  this.timeout(90_000);
  let nats: NatsServerHandle;
  let nodes: TwoNodes;
  before(async () => {
    nats = await startNatsServer();
  });
  after(async () => {
    await nats.stop();
  });
  beforeEach(() => {
    nodes = makeTwoNodes(nats);
  });
  afterEach(async () => {
    await nodes.cleanup();
  });

  /** a sends to reviewer (task mode, on b); reviewer claims and completes it on b; the server is SIGKILLed and restarted. */
  const completedThenRestart = async (): Promise<{ name: string; id: string; bytes: Buffer }> => {
    await nodes.start('a');
    await nodes.start('b');
    const original = nodes.send('a', 'coder', 'reviewer', 'once only');
    const name = original.split('/').pop()!;
    const id = /^\d+_(.+)_to_/.exec(name)![1]!;
    await waitFor(
      'the copy on b and the original in sent/ on a',
      () =>
        itemsIn(nodes.b.box('reviewer').inboxNew).includes(name) &&
        itemsIn(nodes.a.box('coder').sent).includes(name),
    );
    const bytes = fs.readFileSync(join(nodes.a.box('coder').sent, name));
    for (const bin of ['ready_for_next', 'done_with_current']) {
      const r = runBin(bin, [], { role: 'reviewer', cwd: nodes.b.root });
      assert.equal(r.code, 0, `${bin}: ${r.stderr}`);
    }
    assert.deepEqual(itemsIn(nodes.b.box('reviewer').completed), [name]);
    await nats.kill();
    await nats.restart();
    await waitFor(
      'both nodes linked again and drained',
      () => bridgeDrained(nodes.a) && bridgeDrained(nodes.b),
      30_000,
    );
    return { name, id, bytes };
  };

  /** reviewer on b holds exactly one copy of `id`, completed; nothing new was received or woken for. */
  const stillOneCopy = async (id: string) => {
    await waitFor(
      'both nodes drained',
      () => bridgeDrained(nodes.a) && bridgeDrained(nodes.b),
      30_000,
    );
    await afterPasses(nodes.b.root, 3);
    assert.deepEqual(
      [...(await heldCopies(nodes.b, 'reviewer')).entries()],
      [[`${id}:reviewer`, 1]],
    );
    assert.deepEqual(itemsIn(nodes.b.box('reviewer').inboxNew), []);
    assert.deepEqual(
      daemonLog(nodes.b.root).filter((l) => l.split(' ')[1] === 'received').length,
      1,
      'received once',
    );
  };

  it("republished from a copy in the sender's outbox under a new name: the completed copy is found by its id, no second copy", async () => {
    const { id, bytes } = await completedThenRestart();
    const renamed = `40_${id}_to_reviewer_again.handoff`;
    const temp = join(nodes.a.box('coder').outboxTmp, `${renamed}.tmp`);
    fs.writeFileSync(temp, bytes, { mode: 0o600 });
    fs.renameSync(temp, join(nodes.a.box('coder').outbox, renamed));
    await waitFor(
      'the republished original in sent/ on a',
      () => itemsIn(nodes.a.box('coder').sent).includes(renamed),
      30_000,
    );
    await stillOneCopy(id);
  });

  it('published by hand with a fresh message id: the completed copy is found, no second copy', async () => {
    const { name, id, bytes } = await completedThenRestart();
    const nc = await connect({ servers: nats.url });
    try {
      const h = natsHeaders();
      h.set('Nats-Msg-Id', `${id}:reviewer:by-hand`);
      h.set('Baton-Name', name);
      h.set('Baton-From', 'coder');
      await nc.request(subjectOf(nodes.swarm, 'reviewer'), bytes, { headers: h, timeout: 5000 });
      const again = natsHeaders();
      again.set('Nats-Msg-Id', `${id}:reviewer:by-hand-renamed`);
      again.set('Baton-Name', `60_${id}_to_reviewer_by_hand.handoff`);
      again.set('Baton-From', 'coder');
      await nc.request(subjectOf(nodes.swarm, 'reviewer'), bytes, {
        headers: again,
        timeout: 5000,
      });
    } finally {
      await nc.close();
    }
    await stillOneCopy(id);
  });

  it('a local delivery of a copy in the outbox under a new name, to a role whose copy is in process, is found by its id too', async () => {
    await nodes.start('a');
    const original = nodes.send('a', 'coder', 'coder', 'to myself');
    const name = original.split('/').pop()!;
    const id = /^\d+_(.+)_to_/.exec(name)![1]!;
    await waitFor(
      'the copy',
      () =>
        itemsIn(nodes.a.box('coder').inboxNew).includes(name) &&
        itemsIn(nodes.a.box('coder').sent).includes(name),
    );
    const bytes = fs.readFileSync(join(nodes.a.box('coder').sent, name));
    assert.equal(runBin('ready_for_next', [], { role: 'coder', cwd: nodes.a.root }).code, 0);
    const renamed = `40_${id}_to_coder_again.handoff`;
    fs.writeFileSync(join(nodes.a.box('coder').outboxTmp, `${renamed}.tmp`), bytes, {
      mode: 0o600,
    });
    fs.renameSync(
      join(nodes.a.box('coder').outboxTmp, `${renamed}.tmp`),
      join(nodes.a.box('coder').outbox, renamed),
    );
    await waitFor('the second original in sent/', () =>
      itemsIn(nodes.a.box('coder').sent).includes(renamed),
    );
    assert.deepEqual([...(await heldCopies(nodes.a, 'coder')).entries()], [[`${id}:coder`, 1]]);
  });
});
