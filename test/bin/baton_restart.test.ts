// Black-box: `baton restart <role>` (docs/runtime.md §12.2) on a swarm of stand-in agents in a
// real tmux server: one agent stopped (TERM, then KILL after --grace) and started again in its
// pane (handoffd wakes it there), the other agent and the role's mailbox untouched (a claude
// session restarted with a task in process is told so by its SessionStart hook); refusals
// before anything is signalled; a restart killed after either step and run again ends with
// one agent.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { delimiter, join, resolve } from 'node:path';
import { Tmux } from '../../lib/adapters/tmux.js';
import { WAKE_TEXT } from '../../lib/daemon/waker.js';
import { processRunning } from '../../lib/fsx/processIdentity.js';
import { readPanes, recordedSocketOf } from '../../lib/project/tmuxRecord.js';
import { standInAgents, waitFor } from '../support/daemon.js';
import { tearDownSwarm } from '../support/deadProcess.js';
import {
  makeRepo,
  noteDraft,
  placeItem,
  projectAt,
  runBin,
  tempDir,
  writeDraft,
} from '../support/project.js';

const CONF = 'window coder agent-x master\nwindow QA agent-x master\n';

describe('baton restart (built bin, stand-in agents in tmux)', function () {
  this.timeout(120_000);
  let root: string;
  let scratch: string;
  let standIns: ReturnType<typeof standInAgents>;
  let env: Record<string, string>;
  const baton = (args: string[], extra: Record<string, string> = {}) =>
    runBin('baton', args, { cwd: root, env: { ...env, ...extra } });
  /** The pid the role's stand-in recorded, once it has started (a new one when `not` is given). */
  const agentPid = async (role: string, not?: number): Promise<number> => {
    let pid = 0;
    await waitFor(`the ${role} agent to start`, () => {
      pid = standIns.recordOf('agent-x', role)?.pid ?? 0;
      return pid !== 0 && pid !== not && processRunning(pid);
    });
    return pid;
  };

  beforeEach(async () => {
    root = makeRepo(CONF);
    scratch = tempDir();
    standIns = standInAgents(scratch, ['agent-x']);
    env = {
      PATH: `${standIns.bin}${delimiter}${process.env.PATH ?? ''}`,
      BATON_STANDIN_DIR: standIns.records,
    };
  });
  afterEach(() => {
    tearDownSwarm(root);
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  async function up(extra: Record<string, string> = {}): Promise<Record<string, number>> {
    // The stand-ins draw nothing: up does not wait 3 s for their panes to go quiet (§12.1).
    const r = baton(['up', '--ready-timeout', '0'], extra);
    assert.equal(r.code, 0, r.stderr);
    return { coder: await agentPid('coder'), QA: await agentPid('QA') };
  }

  it('restarts one agent in its pane: a new process, the same pane, the other agent and the mailbox untouched', async () => {
    const before = await up();
    const item = await placeItem(projectAt(root).box('coder').inProcess, { to: 'coder' });
    const pane = readPanes(root).get('coder');
    const r = baton(['restart', 'coder', '--json']);
    assert.equal(r.code, 0, r.stderr);
    const done = JSON.parse(r.stdout) as { role: string; pane: string; pid: number };
    const after = await agentPid('coder', before.coder);
    assert.deepEqual(done, { role: 'coder', pane, pid: after });
    assert.equal(processRunning(before.coder!), false, 'the old agent is gone');
    assert.equal(standIns.recordOf('agent-x', 'QA')!.pid, before.QA, 'QA not restarted');
    assert.equal(processRunning(before.QA!), true);
    assert.ok(fs.existsSync(item), 'the item in process stays');
    assert.equal(readPanes(root).get('coder'), pane);
    const plain = baton(['restart', 'QA']);
    assert.equal(plain.code, 0, plain.stderr);
    const qa = await agentPid('QA', before.QA);
    assert.equal(plain.stdout, `RESTARTED: QA in pane ${readPanes(root).get('QA')}, pid ${qa}\n`);
  });

  it('a claude session restarted with a task in process is told so by its SessionStart hook', async () => {
    // The interactive stand-in, linked as claude, runs the hooks Baton gives claude.
    fs.writeFileSync(join(root, 'swarmforge', 'swarmforge.conf'), 'window coder claude master\n');
    fs.symlinkSync(resolve('test/support/interactiveAgent.mjs'), join(standIns.bin, 'claude'));
    const events = () =>
      (fs.existsSync(join(standIns.records, 'claude.coder.events'))
        ? fs.readFileSync(join(standIns.records, 'claude.coder.events'), 'utf8')
        : ''
      )
        .split('\n')
        .filter(Boolean)
        .map(
          (l) => JSON.parse(l) as { event: string; pid: number; name?: string; stdout?: string },
        );
    const sessionStarts = () =>
      events().filter((e) => e.event === 'hook' && e.name === 'SessionStart');
    assert.equal(baton(['up', '--ready-timeout', '20']).code, 0);
    await waitFor('the first session started', () => sessionStarts().length === 1);
    const first = sessionStarts()[0]!;
    assert.match(first.stdout ?? '', /In process: nothing\./);
    const item = await placeItem(projectAt(root).box('coder').inProcess, { to: 'coder' });
    const r = baton(['restart', 'coder', '--json']);
    assert.equal(r.code, 0, r.stderr);
    const { pid } = JSON.parse(r.stdout) as { pid: number };
    await waitFor('the new session started', () => sessionStarts().some((e) => e.pid === pid));
    const told = sessionStarts().find((e) => e.pid === pid)!;
    assert.ok((told.stdout ?? '').includes(`In process: handoff ${item} (note`), told.stdout);
  });

  it('an agent that ignores SIGTERM is killed after --grace; a pane that is gone is made again and recorded', async () => {
    const before = await up({ BATON_STANDIN_IGNORE_TERM: '1' });
    const r = baton(['restart', 'coder', '--grace', '0.2', '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(processRunning(before.coder!), false, 'killed');
    const restarted = await agentPid('coder', before.coder);
    const tmux = new Tmux(recordedSocketOf(root)!);
    await tmux.run(['kill-pane', '-t', readPanes(root).get('coder')!]);
    const again = baton(['restart', 'coder', '--json']);
    assert.equal(again.code, 0, again.stderr);
    const made = JSON.parse(again.stdout) as { pane: string; pid: number };
    assert.equal(readPanes(root).get('coder'), made.pane, 'the new pane is recorded');
    assert.equal(made.pid, await agentPid('coder', restarted));
    assert.equal(standIns.recordOf('agent-x', 'QA')!.pid, before.QA);
    const sent = runBin('swarm_handoff', [writeDraft(scratch, noteDraft('coder'))], {
      cwd: root,
      role: 'QA',
    });
    assert.equal(sent.code, 0, sent.stderr);
    const input = join(standIns.records, `agent-x.coder.${made.pid}.input`);
    await waitFor('handoffd to wake the new agent in its new pane', () =>
      (fs.existsSync(input) ? fs.readFileSync(input, 'utf8') : '').includes(WAKE_TEXT),
    );
  });

  it('refuses an unknown role, a role of another node and a swarm that is not up, one line each, nothing signalled', async () => {
    const down = baton(['restart', 'coder']);
    assert.deepEqual(
      [down.code, down.stdout, down.stderr],
      [1, '', `baton restart: the swarm is not up in '${root}'; run baton up\n`],
    );
    const before = await up();
    const unknown = baton(['restart', 'nobody\u001b[2J']);
    assert.deepEqual(
      [unknown.code, unknown.stdout, unknown.stderr],
      [
        2,
        '',
        "baton restart: unknown role 'nobody\\u001b[2J'; the roles of swarmforge.conf are " +
          'coder, QA\n',
      ],
    );
    fs.writeFileSync(
      join(root, 'swarmforge', 'nodes.conf'),
      'swarm demo\nnats nats://127.0.0.1:4222\nnode laptop coder\nnode server QA\n',
    );
    const remote = baton(['restart', 'QA'], { BATON_NODE: 'laptop' });
    assert.deepEqual(
      [remote.code, remote.stdout, remote.stderr],
      [
        2,
        '',
        'baton restart: role QA runs on node server (swarmforge/nodes.conf); restart it there\n',
      ],
    );
    const grace = baton(['restart', 'coder', '--grace', '-1']);
    assert.equal(grace.code, 1);
    assert.match(grace.stderr, /--grace takes seconds/);
    assert.deepEqual(
      [standIns.recordOf('agent-x', 'coder')!.pid, standIns.recordOf('agent-x', 'QA')!.pid],
      [before.coder, before.QA],
    );
    assert.ok(processRunning(before.coder!) && processRunning(before.QA!));
  });

  for (const step of ['restart:agent-stopped', 'restart:agent-launched']) {
    it(`killed at ${step}: the rerun ends with one agent of the role, in its pane`, async () => {
      const before = await up();
      const killed = baton(['restart', 'coder'], { BATON_CRASH_AT: step });
      assert.equal(killed.signal, 'SIGKILL', killed.stderr);
      const first = step === 'restart:agent-launched' ? await agentPid('coder', before.coder) : 0;
      const r = baton(['restart', 'coder', '--json']);
      assert.equal(r.code, 0, r.stderr);
      const pid = await agentPid('coder', first || before.coder);
      assert.equal((JSON.parse(r.stdout) as { pid: number }).pid, pid);
      for (const old of [before.coder!, first].filter(Boolean))
        assert.equal(processRunning(old), false, `agent ${old} is gone`);
      const tmux = new Tmux(recordedSocketOf(root)!);
      const shell = Number(await tmux.display(readPanes(root).get('coder')!, '#{pane_pid}'));
      const children = fs
        .readFileSync(`/proc/${shell}/task/${shell}/children`, 'utf8')
        .trim()
        .split(' ');
      assert.deepEqual(children, [String(pid)], 'one agent under the pane shell');
    });
  }
});
