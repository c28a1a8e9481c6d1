// Black-box: `baton nats up [--port P] [--json]` and `baton nats down [--json]` in a
// project (`baton init` done) against a real nats-server: the lines and the JSON, already
// up, not running, a busy port, a bad port, a failed start, a SIGKILLed server, no
// project. Every test kills the server it started (afterEach), whatever the assertions did.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { jetStreamAnswers, runningMembers } from '../../lib/adapters/natsCluster.js';
import { natsInfoOf, runningNatsServer } from '../../lib/adapters/natsServer.js';
import { bridgePathsOf } from '../../lib/project/layout.js';
import { waitFor } from '../support/daemon.js';
import { freeClusterPort, freePort } from '../support/nats.js';
import {
  makeProject,
  runBin,
  runBinsTogether,
  tempDir,
  type Project,
  type RunResult,
} from '../support/project.js';

/** True while `pid` runs (a zombie counts as gone). */
const alive = (pid: number) => {
  try {
    return !/\) Z /.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
};

describe('baton nats up|down (built bin, real nats-server)', () => {
  let p: Project;
  let port: number;
  let other: Server | undefined;
  const paths = () => bridgePathsOf(p.root);
  const nats = (...args: string[]) => runBin('baton', ['nats', ...args], { cwd: p.root });
  const ok = (r: RunResult) => {
    assert.deepEqual([r.code, r.stderr], [0, ''], r.stderr);
    return r.stdout;
  };
  const pidOf = (stdout: string) => Number(/\(pid (\d+)\)/.exec(stdout)?.[1]);

  beforeEach(async () => {
    p = makeProject();
    port = await freePort();
  });

  afterEach(async () => {
    await new Promise<void>((done) => (other ? other.close(() => done()) : done()));
    other = undefined;
    const left = [
      runningNatsServer(paths().natsPid, paths().natsDir),
      ...runningMembers(paths().natsDir).values(),
    ];
    for (const server of left) {
      if (!server) continue;
      process.kill(server.pid, 'SIGKILL');
      await waitFor('the left-over server to exit', () => !alive(server.pid));
    }
    p.cleanup();
  });

  it('up: one line with the URL and pid, the pid file in ROOT/.swarmforge/nats/, the server answers; up again says already up; down stops it; down again says not running', async () => {
    const out = ok(nats('up', '--port', String(port)));
    const pid = pidOf(out);
    assert.equal(out, `nats-server up on nats://127.0.0.1:${port} (pid ${pid})\n`);
    assert.equal(
      fs.readFileSync(join(p.root, '.swarmforge', 'nats', 'nats-server.pid'), 'utf8'),
      `${pid}\n`,
    );
    assert.equal((await natsInfoOf(port))?.jetstream, true);
    fs.mkdirSync(join(p.root, 'src'));
    const again = runBin('baton', ['nats', 'up'], { cwd: join(p.root, 'src') });
    assert.equal(
      ok(again),
      `nats-server already up on nats://127.0.0.1:${port} (pid ${pid})\n`,
      "from a folder inside the project, without --port: the running server's port",
    );
    assert.equal(ok(nats('down')), `nats-server stopped (pid ${pid})\n`);
    assert.equal(alive(pid), false);
    assert.equal(fs.existsSync(paths().natsPid), false);
    assert.equal(ok(nats('down')), 'nats-server not running\n');
  });

  it('--json: up {started, url, port, pid}, already up started false, down {stopped, pid, escalated}, not running {stopped: false}', () => {
    const started = JSON.parse(ok(nats('up', '--port', String(port), '--json'))) as { pid: number };
    assert.deepEqual(started, {
      started: true,
      url: `nats://127.0.0.1:${port}`,
      port,
      pid: started.pid,
    });
    assert.deepEqual(JSON.parse(ok(nats('up', '--port', String(port), '--json'))), {
      ...started,
      started: false,
    });
    assert.deepEqual(JSON.parse(ok(nats('down', '--json'))), {
      stopped: true,
      pid: started.pid,
      escalated: false,
    });
    assert.deepEqual(JSON.parse(ok(nats('down', '--json'))), { stopped: false });
  });

  it('up --cluster 3: three servers forming one JetStream cluster (a store each in nats/<n>/, client ports P..P+2, route ports P+100..), the nats line; up again already up; a lone up refused beside it; down stops all three', async () => {
    const first = await freeClusterPort(3);
    const urls = [0, 1, 2].map((i) => `nats://127.0.0.1:${first + i}`);
    const out = ok(nats('up', '--cluster', '3', '--port', String(first)));
    const pids = [...out.matchAll(/n(\d) \(pid (\d+)\)/g)].map((m) => Number(m[2]));
    assert.equal(
      out,
      `nats cluster up: n1 (pid ${pids[0]}), n2 (pid ${pids[1]}), n3 (pid ${pids[2]})\n` +
        `nats ${urls.join(',')}\n`,
    );
    const members = runningMembers(paths().natsDir);
    assert.deepEqual(
      [...members].map(([index, m]) => [index, m.pid, m.port]),
      [1, 2, 3].map((n) => [n, pids[n - 1], first + n - 1]),
    );
    assert.equal(
      members.get(1)?.routes,
      [100, 101, 102].map((d) => `nats://127.0.0.1:${first + d}`).join(','),
    );
    for (const n of [1, 2, 3])
      assert.ok(fs.existsSync(join(paths().natsDir, String(n), 'jetstream')), `store of n${n}`);
    for (const i of [0, 1, 2]) assert.equal(await jetStreamAnswers(first + i), true);
    assert.deepEqual(
      JSON.parse(ok(nats('up', '--cluster', '3', '--port', String(first), '--json'))),
      {
        started: false,
        urls,
        servers: [1, 2, 3].map((n) => ({
          name: `n${n}`,
          url: urls[n - 1],
          pid: pids[n - 1],
          started: false,
        })),
        nats_line: `nats ${urls.join(',')}`,
      },
    );
    const lone = nats('up', '--port', String(port));
    assert.deepEqual([lone.code, lone.stdout], [1, '']);
    assert.match(lone.stderr, /^baton: a local cluster runs '.*': baton nats down first/);
    const bad = nats('up', '--cluster', '4');
    assert.deepEqual(
      [bad.code, bad.stderr],
      [1, "baton: nats up: --cluster must be 3 or 5, not '4'\n"],
    );
    assert.equal(
      ok(nats('down')),
      pids.map((pid, i) => `nats-server n${i + 1} stopped (pid ${pid})\n`).join(''),
    );
    assert.ok(pids.every((pid) => !alive(pid)));
    assert.equal(ok(nats('down')), 'nats-server not running\n');
  });

  it('two `baton nats up` at once start one server: one says up, the other already up, the same pid', async () => {
    const run = {
      bin: 'baton',
      args: ['nats', 'up', '--port', String(port)],
      options: { cwd: p.root },
    };
    const results = await runBinsTogether([run, run]);
    const outs = results.map(ok).sort();
    const pid = pidOf(outs[0]!);
    assert.deepEqual(outs, [
      `nats-server already up on nats://127.0.0.1:${port} (pid ${pid})\n`,
      `nats-server up on nats://127.0.0.1:${port} (pid ${pid})\n`,
    ]);
    assert.equal(runningNatsServer(paths().natsPid, paths().natsDir)?.pid, pid);
  });

  it('a busy port: exit 1, one line on stderr naming the port, nothing on stdout, no pid file', async () => {
    other = await new Promise<Server>((done) => {
      const server = createServer();
      server.listen({ port, host: '127.0.0.1' }, () => done(server));
    });
    const r = nats('up', '--port', String(port));
    assert.deepEqual(
      [r.code, r.stdout, r.stderr],
      [
        1,
        '',
        `baton: port ${port} on 127.0.0.1 is busy: another program listens there (choose one with --port)\n`,
      ],
    );
    assert.equal(fs.existsSync(paths().natsPid), false);
  });

  it('a bad --port is a usage failure (exit 1) and starts nothing', () => {
    for (const bad of ['0', '65536', '1.5', 'many']) {
      const r = nats('up', '--port', bad);
      assert.equal(r.code, 1, bad);
      assert.match(
        r.stderr,
        /^baton: nats up: --port must be an integer from 1 to 65535, not '[^']*'\n$/,
        bad,
      );
      assert.equal(fs.existsSync(paths().natsPid), false);
    }
  });

  it('a server that fails at start: exit 1, one line naming the log and quoting its last line, no pid file', () => {
    fs.mkdirSync(paths().natsDir, { recursive: true });
    fs.writeFileSync(join(paths().natsDir, 'jetstream'), 'not a folder');
    const r = nats('up', '--port', String(port));
    assert.equal(r.code, 1);
    assert.equal(r.stdout, '');
    assert.match(
      r.stderr,
      new RegExp(
        `^baton: nats-server ended during start-up \\(exit 1\\) '${join(paths().natsDir, 'nats-server.log')}': .*storage directory is not a directory\\n$`,
      ),
    );
    assert.equal(fs.existsSync(paths().natsPid), false);
  });

  it('a SIGKILLed server: down finds it not running and removes the stale pid file; up starts a new one on the same port', async () => {
    const pid = pidOf(ok(nats('up', '--port', String(port))));
    process.kill(pid, 'SIGKILL');
    await waitFor('the killed server to be gone', () => !alive(pid));
    assert.equal(ok(nats('down')), 'nats-server not running\n');
    assert.equal(fs.existsSync(paths().natsPid), false);
    fs.writeFileSync(paths().natsPid, `${pid}\n`);
    const out = ok(nats('up', '--port', String(port)));
    assert.match(
      out,
      new RegExp(`^nats-server up on nats://127\\.0\\.0\\.1:${port} \\(pid \\d+\\)\\n$`),
    );
    assert.notEqual(pidOf(out), pid);
    assert.equal(ok(nats('down')), `nats-server stopped (pid ${pidOf(out)})\n`);
  });

  it('outside a project: exit 1, nothing started', () => {
    const dir = tempDir();
    try {
      const r = runBin('baton', ['nats', 'up', '--port', String(port)], { cwd: dir });
      assert.equal(r.code, 1);
      assert.match(r.stderr, /^Cannot find SwarmForge project root\n/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('--help of nats, nats up and nats down: usage on stdout, exit 0; the default port is 4222', () => {
    for (const args of [['--help'], ['up', '--help'], ['down', '--help']]) {
      const r = nats(...args);
      assert.deepEqual([r.code, r.stderr], [0, ''], args.join(' '));
      assert.match(
        r.stdout,
        new RegExp(`^baton nats${args.length > 1 ? ` ${args[0]}` : ' <command>'}\\n`),
        args.join(' '),
      );
    }
    assert.match(nats('up', '--help').stdout, /--port .*\[default: 4222\]/);
    assert.match(nats('up', '--help').stdout, /--cluster .*\(3 or 5\)/);
  });
});
