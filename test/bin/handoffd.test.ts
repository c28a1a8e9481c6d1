// Black-box tests of the built handoffd (protocol §8) with a real tmux server on a
// private socket for the wake-ups.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { WAKE_TEXT } from '../../lib/daemon/waker.js';
import { parseEnvelope } from '../../lib/queue/envelope.js';
import {
  afterPasses,
  daemonLog,
  startHandoffd,
  startPanes,
  waitFor,
  type DaemonChild,
} from '../support/daemon.js';
import { copyFixture } from '../support/fixtures.js';
import {
  itemsIn,
  makeProject,
  noteDraft,
  placeItem,
  runBin,
  writeDraft,
  type Project,
} from '../support/project.js';

describe('handoffd (built bin)', function () {
  this.timeout(60_000);
  let p: Project;
  let daemon: DaemonChild | undefined;
  let killPanes: (() => Promise<void>) | undefined;
  beforeEach(() => {
    p = makeProject();
  });
  afterEach(async () => {
    if (daemon && daemon.child.exitCode === null) daemon.child.kill('SIGKILL');
    await daemon?.exited;
    daemon = undefined;
    await killPanes?.();
    killPanes = undefined;
    p.cleanup();
  });

  const send = (from: string, draft: string) => {
    const r = runBin('swarm_handoff', [writeDraft(p.root, draft, `d-${Math.random()}.txt`)], {
      role: from,
      cwd: p.root,
    });
    assert.equal(r.code, 0, r.stderr);
    return r.stdout.replace('HANDOFF QUEUED: ', '').trim();
  };
  const logged = (event: string) => daemonLog(p.root).filter((l) => l.split(' ')[1] === event);
  const stop = async () => {
    fs.writeFileSync(join(p.root, '.swarmforge', 'daemon', 'stop'), '');
    assert.equal(await daemon!.exited, 0);
  };

  it('delivers one handoff: copy with recipient and enqueued_at, body kept, original in sent/, logged, pane woken', async () => {
    const tmux = await startPanes(p.root, ['coder', 'reviewer', 'QA']);
    killPanes = tmux.kill;
    daemon = await startHandoffd(p.root, ['--poll-interval', '200']);
    const original = send('coder', noteDraft('reviewer', 'review this'));
    const name = original.split('/').pop()!;
    const copy = join(p.box('reviewer').inboxNew, name);
    await waitFor(
      'the copy',
      () => fs.existsSync(copy) && fs.existsSync(join(p.box('coder').sent, name)),
    );
    const sent = await parseEnvelope(fs.readFileSync(join(p.box('coder').sent, name)));
    const delivered = await parseEnvelope(fs.readFileSync(copy));
    assert.deepEqual(
      { ...delivered.headers, recipient: undefined, enqueued_at: undefined },
      { ...sent.headers, recipient: undefined, enqueued_at: undefined },
    );
    assert.equal(delivered.headers.recipient, 'reviewer');
    assert.match(delivered.headers.enqueued_at!, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.ok(delivered.body.equals(sent.body));
    assert.equal(fs.statSync(copy).mode & 0o777, 0o600);
    assert.deepEqual(itemsIn(p.box('coder').outbox), []);
    // SwarmForge's line, word for word (role prompts quote it): whole lines of the pane.
    const swarmForgeLine = 'You have new handoff mail. If idle, run ready_for_next.sh.';
    const shown = async () =>
      (await tmux.tmux.capturePane(tmux.panes.get('reviewer')!))
        .split('\n')
        .filter((l) => l === swarmForgeLine).length;
    await waitFor(
      'the wake-up typed and, after one Enter, echoed back by cat',
      async () => (await shown()) === 2,
    );
    await afterPasses(p.root, 5);
    assert.equal(await shown(), 2, 'typed once, Enter once: no second wake-up');
    assert.equal((await tmux.tmux.capturePane(tmux.panes.get('QA')!)).includes(WAKE_TEXT), false);
    await waitFor('the woke line', () => logged('woke').length === 1);
    assert.match(
      logged('delivered')[0]!,
      new RegExp(`delivered id=\\S+ name=${name} from=coder to=reviewer$`),
    );
    assert.match(logged('woke')[0]!, /woke role=reviewer target=%\d+ reason=delivery$/);
    await stop();
  });

  it('a delivery within 2 s of the last wake-up gets its wake-up at the end of those 2 s, not never', async () => {
    const tmux = await startPanes(p.root, ['coder', 'reviewer', 'QA']);
    killPanes = tmux.kill;
    daemon = await startHandoffd(p.root, ['--poll-interval', '5000']);
    send('coder', noteDraft('reviewer', 'first'));
    await waitFor('the first wake-up', () => logged('woke').length === 1);
    send('coder', noteDraft('reviewer', 'second'));
    await waitFor('the deferred wake-up', () => logged('woke').length === 2, 10_000);
    const [first, second] = logged('woke').map((l) => Date.parse(l.split(' ')[0]!));
    assert.ok(
      second! - first! >= 1800,
      `${second! - first!} ms apart (log times follow the tmux calls)`,
    );
    assert.ok(second! - first! < 4500, 'not left for the next poll-interval pass');
  });

  it('broadcasts to every recipient and moves the original once', async () => {
    daemon = await startHandoffd(p.root, ['--poll-interval', '200']);
    const name = send('coder', noteDraft('reviewer,QA,coder')).split('/').pop()!;
    await waitFor('all copies', () =>
      ['reviewer', 'QA', 'coder'].every((r) => fs.existsSync(join(p.box(r).inboxNew, name))),
    );
    await waitFor('sent', () => itemsIn(p.box('coder').sent).length === 1);
    for (const r of ['reviewer', 'QA', 'coder'])
      assert.equal(
        (await parseEnvelope(fs.readFileSync(join(p.box(r).inboxNew, name)))).headers.recipient,
        r,
      );
    assert.deepEqual(itemsIn(p.box('coder').outbox), []);
  });

  describe('refuses before any copy, into failed/ with a .error', () => {
    const cases: [string, Record<string, string>, string][] = [
      ['missing to', { to: '' }, 'missing to header'],
      ['unknown recipients', { to: 'reviewer,ghost,ghost2' }, 'unknown recipient ghost, ghost2'],
      ['spoofed from', { from: 'QA' }, 'from does not match the sender mailbox'],
      ['no id', { id: '' }, 'no id header'],
    ];
    for (const [title, headers, reason] of cases) {
      it(title, async () => {
        const name = '50_20260101T000000Z_000001_from_coder_to_x.handoff';
        await placeItem(
          p.box('coder').outbox,
          { from: 'coder', to: 'reviewer', ...headers, id: headers.id ?? 'id-1' },
          'b\n',
          name,
        );
        if (headers.id === '')
          copyFixture(join(p.box('coder').outbox, name), 'handoffs', 'unusable', 'no-id.handoff');
        daemon = await startHandoffd(p.root, ['--poll-interval', '200']);
        await waitFor(
          'failed',
          () =>
            fs.existsSync(join(p.box('coder').failed, `${name}.error`)) &&
            fs.existsSync(join(p.box('coder').failed, name)),
        );
        assert.equal(
          fs.readFileSync(join(p.box('coder').failed, `${name}.error`), 'utf8'),
          `${reason}\n`,
        );
        assert.deepEqual(itemsIn(p.box('reviewer').inboxNew), []);
        assert.deepEqual(itemsIn(p.box('coder').outbox), []);
        await waitFor('failed line', () => logged('failed').length === 1);
        assert.match(logged('failed')[0]!, new RegExp(`reason="${reason}"$`));
      });
    }

    it('a sender mailbox without failed/ (hand-made or reference layout): failed/ is created and the handoff moved there', async () => {
      const box = p.box('coder');
      fs.rmSync(box.failed, { recursive: true });
      const name = '50_20260101T000000Z_000001_from_coder_to_ghost.handoff';
      await placeItem(box.outbox, { id: 'id-1', from: 'coder', to: 'ghost' }, 'b\n', name);
      daemon = await startHandoffd(p.root, ['--poll-interval', '100']);
      await waitFor('failed', () => fs.existsSync(join(box.failed, name)));
      assert.equal(
        fs.readFileSync(join(box.failed, `${name}.error`), 'utf8'),
        'unknown recipient ghost\n',
      );
      assert.equal(fs.statSync(box.failed).mode & 0o777, 0o700);
      assert.deepEqual(itemsIn(box.outbox), []);
      await waitFor('failed line', () => logged('failed').length === 1);
      assert.deepEqual(logged('error'), [], 'no pass failed on the way');
    });

    it('a name already taken by another id in a recipient mailbox fails the whole handoff', async () => {
      const name = send('coder', noteDraft('reviewer,QA')).split('/').pop()!;
      await placeItem(p.box('QA').completed, { id: 'someone-else' }, 'x', name);
      daemon = await startHandoffd(p.root, ['--poll-interval', '200']);
      await waitFor('failed', () => fs.existsSync(join(p.box('coder').failed, `${name}.error`)));
      assert.equal(
        fs.readFileSync(join(p.box('coder').failed, `${name}.error`), 'utf8'),
        "name clash in QA's mailbox\n",
      );
      assert.deepEqual(itemsIn(p.box('reviewer').inboxNew), []);
    });
  });

  it('ignores outbox/tmp and files that are not handoffs', async () => {
    const box = p.box('coder');
    fs.writeFileSync(join(box.outboxTmp, '50_x.handoff.tmp'), 'partial');
    fs.writeFileSync(join(box.outbox, 'notes.txt'), 'n');
    fs.writeFileSync(join(box.outbox, '.hidden.handoff'), 'h');
    daemon = await startHandoffd(p.root, ['--poll-interval', '100']);
    await afterPasses(p.root, 3);
    assert.deepEqual(fs.readdirSync(box.outbox).sort(), ['.hidden.handoff', 'notes.txt', 'tmp']);
    assert.deepEqual(fs.readdirSync(box.outboxTmp), ['50_x.handoff.tmp']);
    assert.deepEqual([...itemsIn(box.sent), ...itemsIn(box.failed)], []);
  });

  it('does not redeliver a copy already claimed or completed, and completes a partial fan-out', async () => {
    const original = send('coder', noteDraft('reviewer,QA,coder'));
    const name = original.split('/').pop()!;
    const env = await parseEnvelope(fs.readFileSync(original));
    const copyBytes = fs.readFileSync(original);
    fs.writeFileSync(join(p.box('reviewer').completed, name), copyBytes);
    fs.mkdirSync(join(p.box('QA').inProcess, 'batch_20260101T000000Z_000001'));
    fs.writeFileSync(join(p.box('QA').inProcess, 'batch_20260101T000000Z_000001', name), copyBytes);
    daemon = await startHandoffd(p.root, ['--poll-interval', '200']);
    await waitFor('sent', () => itemsIn(p.box('coder').sent).length === 1);
    assert.deepEqual(itemsIn(p.box('reviewer').inboxNew), []);
    assert.deepEqual(itemsIn(p.box('QA').inboxNew), []);
    assert.deepEqual(
      itemsIn(p.box('coder').inboxNew),
      [name],
      'the missing recipient got its copy',
    );
    assert.equal(
      (await parseEnvelope(fs.readFileSync(join(p.box('coder').inboxNew, name)))).headers.id,
      env.headers.id,
    );
  });

  it('keeps both files on a name clash in sent/', async () => {
    const original = send('coder', noteDraft('reviewer'));
    const name = original.split('/').pop()!;
    fs.writeFileSync(join(p.box('coder').sent, name), 'an earlier original');
    daemon = await startHandoffd(p.root, ['--poll-interval', '200']);
    const renamed = join(p.box('coder').sent, name.replace(/\.handoff$/, '.1.handoff'));
    await waitFor('sent .1', () => fs.existsSync(renamed));
    assert.equal(fs.readFileSync(join(p.box('coder').sent, name), 'utf8'), 'an earlier original');
  });

  it('TERM and the stop sentinel finish cleanly: exit 0, pid and stop files removed, stopped logged', async () => {
    daemon = await startHandoffd(p.root, ['--poll-interval', '200']);
    daemon.child.kill('SIGTERM');
    assert.equal(await daemon.exited, 0);
    const dir = join(p.root, '.swarmforge', 'daemon');
    assert.equal(fs.existsSync(join(dir, 'handoffd.pid')), false);
    assert.match(logged('stopped').at(-1)!, /stopped pid=\d+$/);
    fs.writeFileSync(join(dir, 'stop'), '');
    daemon = await startHandoffd(p.root, ['--poll-interval', '60000']);
    assert.equal(
      fs.existsSync(join(dir, 'stop')),
      false,
      'a leftover stop file is removed at start-up',
    );
    fs.writeFileSync(join(dir, 'stop'), '');
    assert.equal(
      await daemon.exited,
      0,
      'the sentinel is noticed without waiting for the next pass',
    );
    assert.equal(fs.existsSync(join(dir, 'stop')), false);
  });

  it('refuses a second daemon for the same project (exit 1, names the pid)', async () => {
    daemon = await startHandoffd(p.root, ['--poll-interval', '200']);
    const second = runBin('handoffd', ['--root', p.root], { cwd: p.root });
    assert.equal(second.code, 1);
    assert.equal(second.stderr, `handoffd: already running as pid ${daemon.child.pid}\n`);
  });

  it('logs a missing tmux socket file as wake-failed and still delivers', async () => {
    daemon = await startHandoffd(p.root, ['--poll-interval', '200']);
    const name = send('coder', noteDraft('reviewer')).split('/').pop()!;
    await waitFor('copy', () => fs.existsSync(join(p.box('reviewer').inboxNew, name)));
    await waitFor('wake-failed', () => logged('wake-failed').length === 1);
    assert.match(
      logged('wake-failed')[0]!,
      /wake-failed role=reviewer reason="no tmux socket file"$/,
    );
  });

  it('re-reads roles.tsv: a role added while running receives mail; a malformed line is logged once', async () => {
    daemon = await startHandoffd(p.root, ['--poll-interval', '100']);
    const rolesPath = join(p.root, '.swarmforge', 'roles.tsv');
    fs.appendFileSync(
      rolesPath,
      `newbie\tmaster\t${p.root}\ts\tnewbie\tclaude\ttask\nbroken line\n`,
    );
    const name = send('coder', noteDraft('newbie')).split('/').pop()!;
    await waitFor('copy for the new role', () =>
      fs.existsSync(join(p.box('newbie').inboxNew, name)),
    );
    await afterPasses(p.root, 2);
    assert.equal(logged('error').filter((l) => l.includes('fewer than 6 columns')).length, 1);
  });

  it('does not wake a recipient with work in process; wakes it again after the re-wake interval when idle', async () => {
    const tmux = await startPanes(p.root, ['coder', 'reviewer', 'QA']);
    killPanes = tmux.kill;
    await placeItem(p.box('reviewer').inProcess, {});
    daemon = await startHandoffd(p.root, ['--poll-interval', '100', '--rewake-interval', '1']);
    const name = send('coder', noteDraft('reviewer')).split('/').pop()!;
    await waitFor('copy', () => fs.existsSync(join(p.box('reviewer').inboxNew, name)));
    await afterPasses(p.root, 3);
    assert.deepEqual(logged('woke'), [], 'busy: no wake-up');
    fs.rmSync(p.box('reviewer').inProcess, { recursive: true });
    fs.mkdirSync(p.box('reviewer').inProcess);
    await waitFor(
      'a re-wake',
      () => logged('woke').some((l) => l.endsWith('reason=rewake')),
      10_000,
    );
    assert.ok((await tmux.tmux.capturePane(tmux.panes.get('reviewer')!)).includes(WAKE_TEXT));
  });
});
