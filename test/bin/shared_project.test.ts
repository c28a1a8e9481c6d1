// Black-box: the owner fence's hard boundary (docs/runtime.md, "A hard boundary"). Two real OS
// users in one group: the owner runs handoffd and the run's controller, the agents run as
// another user. After `baton share --group`, the agents do all their work (claim, reply, hand
// off, commit), and the run's records cannot be written from their side whatever they do:
// `baton run approve` with every fence signal cleared fails on the file system and changes
// nothing; only the owner's approve completes the run. Needs root, to make the two users
// (CI runs as root); the bins run from a copy every user may read.
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { installCommandLinks } from '../../lib/swarm/commandLinks.js';
import { waitFor } from '../support/daemon.js';
import { BIN_DIR, tempDir } from '../support/project.js';
import { runSwarmProject, startArgsOf } from '../support/runs.js';

const GROUP = 'baton-share-t';
const OWNER = 'baton-owner-t';
const AGENT = 'baton-agent-t';
const SUDOERS = '/etc/sudoers.d/baton-agent-t';

/** An OS user of the test: its ids and a home of its own. */
interface TestUser {
  name: string;
  uid: number;
  gid: number;
  home: string;
}

/** The id of `name` in the `database` (passwd or group) of the system, if there is one. */
function idOf(database: 'passwd' | 'group', name: string): number | undefined {
  const r = spawnSync('getent', [database, name], { encoding: 'utf8' });
  return r.status === 0 ? Number(r.stdout.split(':')[2]) : undefined;
}

/** Makes (once) the group and a user of it, with a fresh home for this test. */
function userOf(name: string, scratch: string): TestUser {
  spawnSync('groupadd', ['-f', GROUP]);
  if (idOf('passwd', name) === undefined)
    spawnSync('useradd', ['-M', '-N', '-g', GROUP, '-s', '/bin/sh', name]);
  const uid = idOf('passwd', name);
  const gid = idOf('group', GROUP);
  assert.ok(uid !== undefined && gid !== undefined, `useradd ${name} failed`);
  const home = join(scratch, name);
  fs.mkdirSync(home, { mode: 0o700 });
  fs.chownSync(home, uid, gid);
  return { name, uid, gid, home };
}

/** What every process of `user` gets: its home, git's identity, Baton's project. */
function envOf(user: TestUser, root: string, extra: Record<string, string> = {}) {
  return {
    PATH: `${join(root, '.swarmforge', 'bin')}:/usr/local/bin:/usr/bin:/bin`,
    HOME: user.home,
    GIT_AUTHOR_NAME: user.name,
    GIT_AUTHOR_EMAIL: `${user.name}@t`,
    GIT_COMMITTER_NAME: user.name,
    GIT_COMMITTER_EMAIL: `${user.name}@t`,
    // The agents commit in the owner's repository: git asks its user to trust it.
    GIT_CONFIG_COUNT: '1',
    GIT_CONFIG_KEY_0: 'safe.directory',
    GIT_CONFIG_VALUE_0: '*',
    ...extra,
  };
}

describe('a project shared with agents of another OS user (baton share, built bins)', function () {
  this.timeout(120_000);
  let scratch: string;
  let bins: string;
  let root: string;
  let owner: TestUser;
  let agent: TestUser;
  const children: ChildProcess[] = [];

  /** Runs a copied bin as `user` to its end. */
  const as = (user: TestUser, bin: string, args: string[], env: Record<string, string> = {}) => {
    const r = spawnSync(process.execPath, [join(bins, `${bin}.js`), ...args], {
      cwd: root,
      uid: user.uid,
      gid: user.gid,
      env: envOf(user, root, env),
      encoding: 'utf8',
    });
    return { code: r.status, stdout: r.stdout, stderr: r.stderr };
  };
  /** Starts a copied bin as `user`, killed after the test. */
  const start = (user: TestUser, bin: string, args: string[], env: Record<string, string>) => {
    const child = spawn(process.execPath, [join(bins, `${bin}.js`), ...args], {
      cwd: root,
      uid: user.uid,
      gid: user.gid,
      env: envOf(user, root, env),
      stdio: ['pipe', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (b: Buffer) => (stderr += b.toString()));
    children.push(child);
    return { child, stderr: () => stderr };
  };
  const record = (runId: string) =>
    JSON.parse(
      fs.readFileSync(join(root, '.swarmforge', 'runs', runId, 'workflow.json'), 'utf8'),
    ) as { status: string; history: { action: string; detail: string }[] };
  const modeOf = (path: string) => (fs.statSync(join(root, path)).mode & 0o7777).toString(8);

  before(function () {
    assert.equal(
      process.getuid?.(),
      0,
      'these tests make two OS users (groupadd, useradd): run npm test as root, as CI does',
    );
    scratch = tempDir('baton-share-');
    fs.chmodSync(scratch, 0o755);
    bins = join(scratch, 'bin');
    fs.cpSync(BIN_DIR, bins, { recursive: true });
    owner = userOf(OWNER, scratch);
    agent = userOf(AGENT, scratch);
    // For the panes started through sudo (baton up --agents-user): the agent's program in the
    // pane's own terminal, and git's trust and identity in the agent user's home.
    fs.writeFileSync(SUDOERS, `Defaults>${AGENT} !use_pty\n`, { mode: 0o440 });
    const home = spawnSync('getent', ['passwd', AGENT], { encoding: 'utf8' }).stdout.split(':')[5]!;
    fs.mkdirSync(home, { recursive: true });
    fs.writeFileSync(
      join(home, '.gitconfig'),
      `[safe]\n\tdirectory = *\n[user]\n\tname = ${AGENT}\n\temail = ${AGENT}@t\n`,
    );
    spawnSync('chown', ['-R', `${agent.uid}:${agent.gid}`, home]);
  });
  afterEach(() => {
    for (const child of children.splice(0)) child.kill('SIGKILL');
    if (root) as(owner, 'baton', ['daemon', 'stop']);
  });
  after(() => {
    fs.rmSync(SUDOERS, { force: true });
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  it('refuses an unknown group, and a group its user is not in, each in one line', () => {
    root = join(scratch, 'refusals');
    fs.renameSync(runSwarmProject(), root);
    spawnSync('chown', ['-R', `${owner.uid}:${owner.gid}`, root]);
    assert.equal(as(owner, 'baton', ['init']).code, 0);
    const unknown = as(owner, 'baton', ['share', '--group', 'no-such-group-t']);
    assert.deepEqual(
      [unknown.code, unknown.stderr],
      [1, "baton share: no group 'no-such-group-t' (make it with groupadd)\n"],
    );
    const notMine = as(owner, 'baton', ['share', '--group', 'root']);
    assert.equal(notMine.code, 1);
    assert.match(
      notMine.stderr,
      /^baton share: cannot give '.+' group 0: you must own it and be in the group .*\n$/,
    );
  });

  it('a share killed midway (share:entry-shared#5) is finished by the next one: then nothing is left to change', () => {
    root = join(scratch, 'killed');
    fs.renameSync(runSwarmProject(), root);
    spawnSync('chown', ['-R', `${owner.uid}:${owner.gid}`, root]);
    assert.equal(as(owner, 'baton', ['init']).code, 0);
    const killed = spawnSync(
      process.execPath,
      [join(bins, 'baton.js'), 'share', '--group', GROUP],
      {
        cwd: root,
        uid: owner.uid,
        gid: owner.gid,
        env: { ...envOf(owner, root), BATON_CRASH_AT: 'share:entry-shared#5' },
      },
    );
    assert.equal(killed.signal, 'SIGKILL');
    const rest = JSON.parse(as(owner, 'baton', ['share', '--group', GROUP, '--json']).stdout) as {
      parts: { changed: number }[];
    };
    assert.ok(
      rest.parts.some((p) => p.changed > 0),
      'the kill left work to do',
    );
    const again = JSON.parse(as(owner, 'baton', ['share', '--group', GROUP, '--json']).stdout) as {
      parts: { changed: number }[];
    };
    assert.deepEqual(
      again.parts.map((p) => p.changed),
      again.parts.map(() => 0),
    );
    assert.equal(modeOf('.swarmforge/handoffs/worker/inbox/new'), '2770');
  });

  it("the agents claim, reply, hand off and commit; the records stay the owner's: an approve from the agents' user fails on the file system and changes nothing", async () => {
    const conf = ['worker', 'reviewer-a', 'reviewer-b', 'validator']
      .map((role) => `window ${role} baton-scripted-agent master\n`)
      .join('')
      .concat('window controller baton master\n');
    root = join(scratch, 'project');
    fs.renameSync(runSwarmProject(conf), root);
    // The command links `baton up` makes, to the copied bins: the agents call them by name.
    installCommandLinks(root, bins);
    spawnSync('chown', ['-R', `${owner.uid}:${owner.gid}`, root]);
    const ownerOk = (bin: string, args: string[]) => {
      const r = as(owner, bin, args);
      assert.equal(r.code, 0, `${bin} ${args.join(' ')}: ${r.stderr}`);
      return r.stdout;
    };
    ownerOk('baton', ['init']);
    const dry = ownerOk('baton', ['share', '--group', GROUP, '--dry-run']);
    assert.match(dry, /^WOULD SHARE: \.swarmforge\/handoffs \([1-9]\d* of \d+ changed\)$/m);
    assert.equal(
      modeOf('.swarmforge/handoffs/worker/inbox/new'),
      '700',
      'a dry run changes nothing',
    );
    const shared = ownerOk('baton', ['share', '--group', GROUP]);
    assert.match(shared, /^SHARED: \.swarmforge\/handoffs \(\d+ of \d+ changed\)$/m);
    assert.match(shared, new RegExp(`^SHARED: group ${GROUP} \\(gid ${owner.gid}\\)$`, 'm'));
    assert.deepEqual(
      [modeOf('.swarmforge'), modeOf('.swarmforge/handoffs/worker/inbox/new')],
      ['2750', '2770'],
    );
    // Again: nothing drifted, nothing changed.
    const again = ownerOk('baton', ['share', '--group', GROUP, '--json']);
    const parts = (JSON.parse(again) as { parts: { changed: number }[] }).parts;
    assert.deepEqual(
      parts.map((p) => p.changed),
      parts.map(() => 0),
    );

    const runId = (JSON.parse(ownerOk('baton', START)) as { run_id: string }).run_id;
    assert.deepEqual(
      [modeOf(`.swarmforge/runs/${runId}`), modeOf(`.swarmforge/runs/${runId}/artifacts`)],
      ['2750', '3770'],
    );
    ownerOk('baton', ['daemon', 'start']);
    const controller = start(owner, 'baton', ['run', 'drive', runId, '--poll-interval', '0.2'], {});
    // The agents, outside tmux: each wakes when a line naming ready_for_next reaches its stdin.
    const agents = ['worker', 'reviewer-a', 'reviewer-b', 'validator'].map((role) =>
      start(agent, 'baton-scripted-agent', [], { SWARMFORGE_ROLE: role, SWARMFORGE_ROOT: root }),
    );
    const wake = setInterval(() => {
      for (const a of agents) a.child.stdin!.write('ready_for_next\n');
    }, 300);
    try {
      await waitFor(
        'the run to wait for the owner',
        () => record(runId).status === 'WAITING_FOR_HUMAN_APPROVAL',
        60_000,
      ).catch((err: Error) => {
        const said = agents.map((a) => a.stderr()).join('\n');
        throw new Error(`${err.message}\ncontroller: ${controller.stderr()}\nagents: ${said}`);
      });
    } finally {
      clearInterval(wake);
    }
    const artifacts = join(root, '.swarmforge', 'runs', runId, 'artifacts');
    const theirs = fs.readdirSync(artifacts).filter((n) => {
      return fs.statSync(join(artifacts, n)).uid === agent.uid;
    });
    assert.deepEqual(theirs.sort(), [
      'implementation-c1-work.md',
      'review-c1-review-independent.txt',
      'review-c1-review-structured.txt',
    ]);
    const log = fs.readFileSync(join(root, '.git', 'logs', 'HEAD'), 'utf8');
    assert.match(log, new RegExp(`${AGENT} <${AGENT}@t>`), 'the worker committed');

    // The wall: no fence signal (no role, no tmux), and still nothing changes.
    const before = fs.readFileSync(join(root, '.swarmforge', 'runs', runId, 'workflow.json'));
    const refused = as(agent, 'baton', ['run', 'approve', runId]);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /^baton run: open failed '.+': EACCES \(permission denied to /);
    assert.equal(refused.code, 1);
    const tamper = spawnSync(
      process.execPath,
      [
        '-e',
        `const fs = require('fs');
         const dir = process.argv[1];
         const tries = [
           () => fs.writeFileSync(dir + '/workflow.json', '{}'),
           () => fs.writeFileSync(dir + '/new.json', '{}'),
           () => fs.unlinkSync(dir + '/lease.json'),
           () => fs.unlinkSync(dir + '/artifacts/' + process.argv[2]),
         ];
         for (const t of tries) { try { t(); console.log('done'); } catch (e) { console.log(e.code); } }`,
        join(root, '.swarmforge', 'runs', runId),
        fs.readdirSync(artifacts).find((n) => fs.statSync(join(artifacts, n)).uid === owner.uid)!,
      ],
      { uid: agent.uid, gid: agent.gid, encoding: 'utf8' },
    );
    assert.deepEqual(tamper.stdout.trim().split('\n'), ['EACCES', 'EACCES', 'EACCES', 'EPERM']);
    assert.deepEqual(
      fs.readFileSync(join(root, '.swarmforge', 'runs', runId, 'workflow.json')),
      before,
    );
    ownerOk('baton', ['run', 'approve', runId]);
    assert.equal(record(runId).status, 'COMPLETED');
    // Shared again after the agents made files (theirs, which the owner may not chmod).
    ownerOk('baton', ['share', '--group', GROUP]);
    assert.match(record(runId).history.at(-1)!.detail, /channel=cli/);
    // The owner's doctor takes the shared modes for what they are.
    const doctor = as(owner, 'baton', ['doctor']);
    assert.equal(doctor.code, 0, doctor.stdout + doctor.stderr);
  });

  it("baton run up --agents-user: each agent pane is a shell of that user (sudo), the controller the owner's; the run reaches the owner with the agents' replies theirs", async () => {
    root = join(scratch, 'swarm');
    fs.renameSync(runSwarmProject(AGENT_CONF), root);
    const baton = (args: string[]) => {
      const r = spawnSync(process.execPath, [join(bins, 'baton.js'), ...args], {
        cwd: root,
        encoding: 'utf8',
        env: { ...process.env, SWARMFORGE_ROLE: '', TMUX: '', TMUX_PANE: '' },
      });
      assert.equal(r.status, 0, `baton ${args.join(' ')}: ${r.stderr}`);
      assert.equal(r.stderr, '', 'every agent ready (the program seen in its pane)');
      return r.stdout;
    };
    baton(['init']);
    const runId = (JSON.parse(baton(START)) as { run_id: string }).run_id;
    const unshared = spawnSync(
      process.execPath,
      [join(bins, 'baton.js'), 'run', 'up', runId, '--agents-user', AGENT],
      { cwd: root, encoding: 'utf8' },
    );
    assert.deepEqual(
      [unshared.status, unshared.stderr],
      [
        2,
        `baton run up: baton: --agents-user ${AGENT}: the project is not shared; run baton share ` +
          `--group G first (G: a group of yours and ${AGENT}'s)\n`,
      ],
    );
    baton(['share', '--group', GROUP]);
    try {
      baton(['run', 'up', runId, '--agents-user', AGENT, '--ready-timeout', '30']);
      await waitFor(
        'the run to wait for the owner',
        () => record(runId).status === 'WAITING_FOR_HUMAN_APPROVAL',
        60_000,
      );
      const artifacts = join(root, '.swarmforge', 'runs', runId, 'artifacts');
      const owners = new Map(
        fs.readdirSync(artifacts).map((n) => [n, fs.statSync(join(artifacts, n)).uid]),
      );
      assert.equal(owners.get('implementation-c1-work.md'), agent.uid, 'the worker is the agent');
      assert.equal(owners.get('review-c1-review-structured.txt'), agent.uid);
      const panes = fs.readFileSync(join(root, '.swarmforge', 'panes.tsv'), 'utf8');
      assert.match(panes, /^controller\t%\d+$/m);
      assert.equal(fs.readFileSync(join(root, '.swarmforge', 'agents-user'), 'utf8'), `${AGENT}\n`);
      // One agent restarted: the live one, another user's, ended through sudo; the new one
      // that user's again.
      const before = agentPidOf(root, 'worker');
      assert.match(fs.readFileSync(`/proc/${before}/status`, 'utf8'), uidLine(agent.uid));
      const restarted = JSON.parse(baton(['restart', 'worker', '--json', '--grace', '1'])) as {
        pid: number;
      };
      assert.notEqual(restarted.pid, before);
      assert.equal(fs.existsSync(`/proc/${before}`), false, 'the old agent is gone');
      assert.match(fs.readFileSync(`/proc/${restarted.pid}/status`, 'utf8'), uidLine(agent.uid));
      baton(['run', 'approve', runId]);
      assert.equal(record(runId).status, 'COMPLETED');
    } finally {
      spawnSync(process.execPath, [join(bins, 'baton.js'), 'down'], { cwd: root });
    }
  });
});

/** The `Uid:` line of /proc/PID/status of a process whose real uid is `uid`. */
const uidLine = (uid: number) => new RegExp(`^Uid:\\t${uid}\\t`, 'm');

/** The pid of the program running in `role`'s pane (the scripted agent). */
function agentPidOf(root: string, role: string): number {
  const socket = fs.readFileSync(join(root, '.swarmforge', 'tmux-socket'), 'utf8').trim();
  const pane = new Map(
    fs
      .readFileSync(join(root, '.swarmforge', 'panes.tsv'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => l.split('\t') as [string, string]),
  ).get(role)!;
  const shell = spawnSync('tmux', ['-S', socket, 'display', '-p', '-t', pane, '#{pane_pid}'], {
    encoding: 'utf8',
  }).stdout.trim();
  // [pid, ppid, command] of every process, from /proc (no ps on a minimal system).
  const rows = fs
    .readdirSync('/proc')
    .filter((n) => /^\d+$/.test(n))
    .flatMap((pid) => {
      let stat: string;
      try {
        stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      } catch {
        return []; // gone meanwhile
      }
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const ppid = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]!;
      return [[pid, ppid, comm]];
    });
  // sudo → the user's shell → the agent (node)
  const sh = rows.find((r) => r[1] === shell)?.[0];
  return Number(rows.find((r) => r[1] === sh && r[2] === 'node')?.[0]);
}

/** A run's four scripted agents in the main work tree, and its controller's role. */
const AGENT_CONF = ['worker', 'reviewer-a', 'reviewer-b', 'validator']
  .map((role) => `window ${role} baton-scripted-agent master\n`)
  .join('');

/** `baton run start` of the tests' run. */
const START = ['run', ...startArgsOf()];
