// Black-box tests of the built handoffd and agent commands on mailboxes that lack folders
// (protocol §5, issue 17 defect 1): a mailbox made by hand, by an older tool, or with an
// empty folder removed. A missing folder of a known mailbox is created (0700) wherever it
// is needed; no handoff may wait forever on a folder that can be made.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { parseEnvelope } from '../../lib/queue/envelope.js';
import {
  daemonLog,
  startHandoffd,
  stopHandoffd,
  waitFor,
  type DaemonChild,
} from '../support/daemon.js';
import { fixtureText } from '../support/fixtures.js';
import {
  itemsIn,
  makeProject,
  noteDraft,
  runBin,
  writeDraft,
  type Project,
} from '../support/project.js';

/** coder sends to a, b (task mode) and c (batch mode). */
const CONF = fixtureText('conf', 'fan-out.conf');

describe('handoffd and the agent commands on mailboxes with missing folders', function () {
  this.timeout(60_000);
  let p: Project;
  let daemon: DaemonChild | undefined;
  beforeEach(() => {
    p = makeProject(CONF);
  });
  afterEach(async () => {
    if (daemon && daemon.child.exitCode === null) daemon.child.kill('SIGKILL');
    await daemon?.exited;
    daemon = undefined;
    p.cleanup();
  });

  /** Queues a note from coder with the built swarm_handoff; returns the outbox file's name. */
  const queue = (to: string[]): string => {
    const draft = writeDraft(p.root, noteDraft(to.join(','), 'work'), `d-${Math.random()}.txt`);
    const r = runBin('swarm_handoff', [draft], { role: 'coder', cwd: p.root });
    assert.equal(r.code, 0, r.stderr);
    return r.stdout.replace('HANDOFF QUEUED: ', '').trim().split('/').pop()!;
  };
  /** The copy `role` would have received of coder's outbox file `name`, written into `dir` of its inbox. */
  const placeCopy = (name: string, role: string, dir: string): void => {
    const original = fs.readFileSync(join(p.box('coder').outbox, name), 'utf8');
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    fs.writeFileSync(join(dir, name), original.replace(/^---\n/, `---\nrecipient: ${role}\n`), {
      mode: 0o600,
    });
  };
  /** Every copy of `id` anywhere in `role`'s inbox. */
  const copiesOf = async (role: string, id: string): Promise<string[]> => {
    const found: string[] = [];
    const walk = async (dir: string): Promise<void> => {
      for (const entry of fs.existsSync(dir) ? fs.readdirSync(dir, { withFileTypes: true }) : []) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) await walk(path);
        else if (
          entry.name.endsWith('.handoff') &&
          (await parseEnvelope(fs.readFileSync(path))).headers.id === id
        )
          found.push(path);
      }
    };
    await walk(p.box(role).inbox);
    return found;
  };
  const idOf = (name: string) => /^\d+_(.+)_to_/.exec(name)![1]!;
  const modeOf = (dir: string) => fs.statSync(dir).mode & 0o777;

  it('delivers a handoff whose recipient holds its copy in in_process/ and has no inbox/new/: sent, the other copy made, no duplicate', async () => {
    const name = queue(['b', 'c']);
    placeCopy(name, 'b', p.box('b').inProcess);
    fs.rmSync(p.box('b').inboxNew, { recursive: true });
    daemon = await startHandoffd(p.root, ['--poll-interval', '100']);
    await waitFor('the original in sent/', () => itemsIn(p.box('coder').sent).includes(name));
    assert.deepEqual(itemsIn(p.box('coder').outbox), []);
    assert.deepEqual(itemsIn(p.box('c').inboxNew), [name]);
    assert.deepEqual(await copiesOf('b', idOf(name)), [join(p.box('b').inProcess, name)]);
    assert.equal(modeOf(p.box('b').inboxNew), 0o700, "b's new/ made again, 0700");
    assert.deepEqual(
      daemonLog(p.root).filter((l) => / (error|failed) /.test(l)),
      [],
    );
    assert.equal(await stopHandoffd(p.root, daemon), 0);
  });

  it('delivers a handoff whose recipient holds its copy in completed/ and has neither new/ nor in_process/', async () => {
    const name = queue(['a', 'b']);
    placeCopy(name, 'a', p.box('a').completed);
    fs.rmSync(p.box('a').inboxNew, { recursive: true });
    fs.rmSync(p.box('a').inProcess, { recursive: true });
    daemon = await startHandoffd(p.root, ['--poll-interval', '100']);
    await waitFor('the original in sent/', () => itemsIn(p.box('coder').sent).includes(name));
    assert.deepEqual(itemsIn(p.box('b').inboxNew), [name]);
    assert.deepEqual(await copiesOf('a', idOf(name)), [join(p.box('a').completed, name)]);
    for (const dir of [p.box('a').inboxNew, p.box('a').inProcess]) assert.equal(modeOf(dir), 0o700);
    assert.equal(await stopHandoffd(p.root, daemon), 0);
  });

  it('delivers from a sender without sent/, making it 0700', async () => {
    fs.rmSync(p.box('coder').sent, { recursive: true });
    const name = queue(['a']);
    daemon = await startHandoffd(p.root, ['--poll-interval', '100']);
    await waitFor('the original in sent/', () => itemsIn(p.box('coder').sent).includes(name));
    assert.equal(modeOf(p.box('coder').sent), 0o700);
    assert.deepEqual(itemsIn(p.box('a').inboxNew), [name]);
  });

  it('delivers to recipients whose whole inbox is missing, and the agent commands then claim and complete', async () => {
    for (const role of ['a', 'c']) fs.rmSync(p.box(role).inbox, { recursive: true });
    const name = queue(['a', 'c']);
    daemon = await startHandoffd(p.root, ['--poll-interval', '100']);
    await waitFor('the original in sent/', () => itemsIn(p.box('coder').sent).includes(name));
    assert.equal(await stopHandoffd(p.root, daemon), 0);
    daemon = undefined;
    for (const role of ['a', 'c']) {
      fs.rmSync(p.box(role).inProcess, { recursive: true });
      fs.rmSync(p.box(role).completed, { recursive: true });
      const ready = runBin('ready_for_next', [], { role, cwd: p.root });
      assert.equal(ready.code, 0, ready.stderr);
      assert.match(ready.stdout, role === 'c' ? /^BATCH: / : /^TASK: /);
      const done = runBin('done_with_current', [], { role, cwd: p.root });
      assert.equal(done.code, 0, done.stderr);
      assert.equal((await copiesOf(role, idOf(name))).length, 1);
      assert.match((await copiesOf(role, idOf(name)))[0]!, /\/inbox\/completed\//);
    }
  });

  it('the agent commands work in a mailbox with only its folder: ready_for_next answers NO_TASK, done_with_current NO_CURRENT_TASK, swarm_handoff queues', () => {
    for (const entry of fs.readdirSync(p.box('a').dir))
      fs.rmSync(join(p.box('a').dir, entry), { recursive: true });
    const ready = runBin('ready_for_next', [], { role: 'a', cwd: p.root });
    assert.equal(ready.code, 0, ready.stderr);
    assert.equal(ready.stdout, 'NO_TASK\n');
    const done = runBin('done_with_current', [], { role: 'a', cwd: p.root });
    assert.deepEqual(
      [done.code, done.stderr],
      [1, 'NO_CURRENT_TASK\n'],
      "the protocol's answer, not an ENOENT",
    );
    const draft = writeDraft(p.root, noteDraft('b', 'from a'), 'from-a.txt');
    const sent = runBin('swarm_handoff', [draft], { role: 'a', cwd: p.root });
    assert.equal(sent.code, 0, sent.stderr);
    assert.equal(itemsIn(p.box('a').outbox).length, 1);
    assert.equal(modeOf(p.box('a').outbox), 0o700);
  });
});
