// Black-box tests of what the built `baton status`, `baton monitor --once` and `baton doctor`
// show of the bridge (docs/bridge.md §4): nothing new without a roster; with one, the link
// and each role's node and counts as handoffd's bridge.json has them while that handoffd
// runs (here: this test process, holding the daemon's lock, its pid in the pid file), and
// never the credentials. No NATS server: bridge.json is the interface.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { bridgePathsOf, daemonPathsOf } from '../../lib/project/layout.js';
import { bundlesLoadedBy } from '../support/bundleProbe.js';
import {
  deadPid,
  leaveDeadDaemon,
  pretendDaemonRuns,
  TWO_NODES,
  writeBridgeJson,
  writeRoster,
} from '../support/bridgeView.js';
import { BIN_DIR, makeProject, runBin, type Project, type RunResult } from '../support/project.js';

const COUNTS = {
  pending: { coder: 0, reviewer: 3, QA: 1 },
  unacked: { coder: 2, reviewer: 1, QA: 0 },
};
const ROLE_LINES = [
  'local role coder on node a: pending 0, unacked 2',
  'remote role reviewer on node b: pending 3, unacked 1',
  'remote role QA on node b: pending 1, unacked 0',
];
const STREAM = {
  leader: 'n2',
  replicas: [
    { name: 'n1', current: true },
    { name: 'n3', current: false },
  ],
};
const STREAM_LINE = 'BRIDGE STREAM: leader n2, replicas n1 (current), n3 (lagging)';
const SECRET = 'SUAXQ7-do-not-print-me-7f3e9c1b';

describe('baton status, monitor and doctor: the bridge (built bin)', function () {
  this.timeout(60_000);
  let p: Project;
  let release: (() => void) | undefined;
  const baton = (
    args: string[],
    env: Record<string, string | undefined> = { BATON_NODE: 'a' },
  ): RunResult => runBin('baton', args, { cwd: p.root, env });
  const lines = (r: RunResult) => r.stdout.split('\n');
  beforeEach(() => {
    p = makeProject();
    release = undefined;
  });
  afterEach(() => {
    release?.();
    p.cleanup();
  });

  it('without swarmforge/nodes.conf nothing changes: no bridge key, no bridge line, no role marked, doctor OK alone', () => {
    release = pretendDaemonRuns(p.root);
    writeBridgeJson(p.root, { pid: process.pid, ...COUNTS });
    assert.deepEqual(Object.keys(JSON.parse(baton(['status', '--json']).stdout) as object), [
      'roles',
      'daemon',
    ]);
    assert.deepEqual(
      Object.keys(JSON.parse(baton(['monitor', '--once', '--json']).stdout) as object),
      ['at', 'daemon', 'roles', 'runs'],
    );
    assert.deepEqual(Object.keys(JSON.parse(baton(['doctor', '--json']).stdout) as object), [
      'findings',
      'fixed',
    ]);
    for (const args of [['status'], ['monitor', '--once']])
      assert.doesNotMatch(baton(args).stdout, /bridge|on node|role coder/, args.join(' '));
    const doctor = baton(['doctor']);
    assert.deepEqual(
      [doctor.code, doctor.stdout, doctor.stderr],
      [0, 'OK: no problems found\n', ''],
    );
  });

  it("the running handoffd's report: status and monitor show the link line, where the stream lives (§5), a line per role, remote roles marked in the listing; --json has bridge as §4 and §5 name it", () => {
    writeRoster(p.root);
    release = pretendDaemonRuns(p.root);
    writeBridgeJson(p.root, { pid: process.pid, ...COUNTS, stream: STREAM });
    const bridge = {
      node: 'a',
      connected: true,
      last_error: null,
      remote_roles: { reviewer: 'b', QA: 'b' },
      ...COUNTS,
      stream: STREAM,
    };
    const status = baton(['status']);
    assert.equal(status.code, 0, status.stderr);
    assert.deepEqual(lines(status).slice(-7), [
      `handoffd: running (pid ${process.pid}), last pass none yet`,
      'bridge: node a, connected',
      STREAM_LINE,
      ...ROLE_LINES,
      '',
    ]);
    assert.deepEqual(
      lines(status)
        .slice(1, 4)
        .map((l) => l.split(/\s{2,}/)[0]),
      ['coder', 'reviewer (on node b)', 'QA (on node b)'],
    );
    assert.deepEqual(
      (JSON.parse(baton(['status', '--json']).stdout) as { bridge: unknown }).bridge,
      bridge,
    );
    const monitor = baton(['monitor', '--once']);
    assert.equal(monitor.code, 0, monitor.stderr);
    assert.deepEqual(lines(monitor).slice(2, 8), [
      'bridge: node a, connected',
      STREAM_LINE,
      ...ROLE_LINES,
      '',
    ]);
    assert.deepEqual(
      lines(monitor)
        .slice(9, 12)
        .map((l) => l.split(/\s{2,}/)[0]),
      ['coder', 'reviewer (on node b)', 'QA (on node b)'],
    );
    assert.deepEqual(
      (JSON.parse(baton(['monitor', '--once', '--json']).stdout) as { bridge: unknown }).bridge,
      bridge,
    );
  });

  it('doctor, link up: the roster, the link and the counts as BRIDGE lines, no warning, exit 0', () => {
    writeRoster(p.root);
    release = pretendDaemonRuns(p.root);
    writeBridgeJson(p.root, { pid: process.pid, ...COUNTS });
    const r = baton(['doctor']);
    assert.deepEqual([r.code, r.stderr], [0, '']);
    assert.equal(
      r.stdout,
      [
        `BRIDGE: roster ${bridgePathsOf(p.root).roster}: swarm t, nodes a, b`,
        'BRIDGE: node a, connected',
        ...ROLE_LINES.map((l) => `BRIDGE: ${l}`),
        'OK: no problems found',
        '',
      ].join('\n'),
    );
    const json = JSON.parse(baton(['doctor', '--json']).stdout) as Record<string, unknown>;
    assert.deepEqual(Object.keys(json), ['findings', 'fixed', 'warnings', 'roster', 'bridge']);
    assert.deepEqual([json.findings, json.warnings], [[], []]);
    assert.deepEqual(json.roster, {
      file: bridgePathsOf(p.root).roster,
      swarm: 't',
      nodes: { a: ['coder'], b: ['reviewer', 'QA'] },
      credentials: null,
    });
  });

  it('link down: status says not connected with the last error; doctor warns with it and still exits 0', () => {
    writeRoster(p.root);
    release = pretendDaemonRuns(p.root);
    writeBridgeJson(p.root, {
      pid: process.pid,
      connected: false,
      last_error: 'connection refused',
      pending: {},
      unacked: {},
    });
    assert.match(
      baton(['status']).stdout,
      /\nbridge: node a, not connected: connection refused\nlocal role coder on node a: pending -, unacked -\n/,
    );
    const r = baton(['doctor']);
    assert.equal(r.code, 0, r.stdout);
    assert.match(
      r.stdout,
      new RegExp(
        `\nWARNING: ${bridgePathsOf(p.root).state}: bridge not connected: connection refused\n  fix: check that a NATS server answers at nats://127\\.0\\.0\\.1:4222 .*\nOK: no problems found\n$`,
      ),
    );
  });

  it('a killed handoffd: its report is not believed; status says handoffd is not running, doctor warns so', () => {
    writeRoster(p.root);
    const dead = deadPid();
    leaveDeadDaemon(p.root, dead);
    writeBridgeJson(p.root, { pid: dead, ...COUNTS });
    const status = baton(['status', '--json']);
    assert.deepEqual((JSON.parse(status.stdout) as { bridge: unknown }).bridge, {
      node: 'a',
      connected: false,
      last_error: 'handoffd is not running',
      remote_roles: { reviewer: 'b', QA: 'b' },
      pending: {},
      unacked: {},
      stream: null,
    });
    assert.match(
      baton(['status']).stdout,
      /\nbridge: node a, not connected: handoffd is not running\n/,
    );
    const doctor = baton(['doctor', '--json']);
    assert.equal(doctor.code, 0);
    assert.deepEqual(
      (JSON.parse(doctor.stdout) as { warnings: { kind: string }[] }).warnings.map((w) => w.kind),
      ['bridge-daemon-not-running'],
    );
    assert.ok(fs.existsSync(daemonPathsOf(p.root).pid));
  });

  it('local node unknown: status shows it and every role as remote; doctor finds it a problem (exit 2) and names the nodes', () => {
    writeRoster(p.root);
    const status = baton(['status'], { BATON_NODE: undefined });
    assert.equal(status.code, 0, status.stderr);
    assert.match(
      status.stdout,
      /\nbridge: local node unknown, not connected: handoffd is not running\nremote role coder on node a: /,
    );
    const r = baton(['doctor'], { BATON_NODE: undefined });
    assert.equal(r.code, 2);
    assert.match(
      r.stdout,
      new RegExp(
        `\nPROBLEM: ${bridgePathsOf(p.root).node}: local node unknown: set BATON_NODE or run baton init --node NAME\n  fix: run baton init --node NAME \\(or set BATON_NODE=NAME\\), NAME one of: a, b; `,
      ),
    );
    assert.match(
      baton(['doctor'], { BATON_NODE: 'zz' }).stdout,
      /PROBLEM: .*: local node unknown: BATON_NODE is 'zz', which is not a node of nodes\.conf\n/,
    );
  });

  it('an invalid roster: doctor reports each error as a problem (exit 2); status and monitor refuse with the errors on stderr (exit 1)', () => {
    writeRoster(p.root, 'swarm t\nnats nats://127.0.0.1\nnode a coder\nnode b reviewer,QA,ghost\n');
    const errors = [
      "nodes.conf:2: nats URL 'nats://127.0.0.1' must be nats://host:port or tls://host:port with a port from 1 to 65535",
      'nodes.conf:4: unknown role ghost: swarmforge.conf has no window for it',
    ];
    const r = baton(['doctor']);
    assert.equal(r.code, 2);
    const file = bridgePathsOf(p.root).roster;
    assert.equal(
      r.stdout,
      errors
        .map(
          (e) =>
            `PROBLEM: ${file}: ${e}\n  fix: fix ${file} (docs/bridge.md §1), then run baton init: it rewrites nodes.tsv\n`,
        )
        .join(''),
    );
    for (const args of [['status'], ['status', '--json'], ['monitor', '--once']]) {
      const refused = baton(args);
      assert.deepEqual(
        [refused.code, refused.stdout, refused.stderr],
        [1, '', errors.map((e) => `${e}\n`).join('')],
        args.join(' '),
      );
    }
  });

  it('loads no NATS code: with a roster, status, monitor and doctor load only bundles that hold no NATS client', () => {
    writeRoster(p.root);
    // The build lists what each bundle holds (scripts/build.mjs).
    const inputs = JSON.parse(fs.readFileSync(join(BIN_DIR, 'bundles.json'), 'utf8')) as Record<
      string,
      string[]
    >;
    const withNats = Object.keys(inputs).filter((bundle) =>
      inputs[bundle]!.some((input) => input.includes('node_modules/@nats-io/')),
    );
    assert.deepEqual(withNats, ['baton-bridge.js'], 'the bridge bundle alone holds the client');
    for (const args of [['status'], ['status', '--json'], ['monitor', '--once'], ['doctor']]) {
      const { result, bundles } = bundlesLoadedBy('baton', args, {
        cwd: p.root,
        env: { BATON_NODE: 'a' },
      });
      assert.deepEqual(
        bundles,
        ['baton.js', 'baton-cli.js'],
        `${args.join(' ')}: ${result.stderr}`,
      );
    }
  });

  it("the credentials never appear: status, status --json, monitor, monitor --json, doctor, doctor --json (stdout and stderr); doctor shows the file's path", () => {
    const creds = join(p.root, 'swarm.creds');
    fs.writeFileSync(
      creds,
      `-----BEGIN NATS USER JWT-----\n${SECRET}\n------END NATS USER JWT------\n`,
      { mode: 0o600 },
    );
    writeRoster(
      p.root,
      TWO_NODES.replace(
        'nats nats://127.0.0.1:4222\n',
        'nats nats://127.0.0.1:4222\ncredentials swarm.creds\n',
      ),
    );
    release = pretendDaemonRuns(p.root);
    writeBridgeJson(p.root, {
      pid: process.pid,
      connected: false,
      last_error: 'authorization violation',
      ...COUNTS,
    });
    const runs = [
      ['status'],
      ['status', '--json'],
      ['monitor', '--once'],
      ['monitor', '--once', '--json'],
      ['doctor'],
      ['doctor', '--json'],
    ].map((args) => ({ args, r: baton(args) }));
    for (const { args, r } of runs) {
      assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stdout, /authorization violation/, args.join(' '));
      assert.ok(
        !r.stdout.includes(SECRET) && !r.stderr.includes(SECRET),
        `${args.join(' ')} shows the secret`,
      );
      assert.ok(!r.stdout.includes('BEGIN NATS'), args.join(' '));
    }
    assert.match(runs[4]!.r.stdout, new RegExp(`^BRIDGE: credentials ${creds}: readable$`, 'm'));
    assert.equal(
      (JSON.parse(runs[5]!.r.stdout) as { roster: { credentials: string } }).roster.credentials,
      creds,
    );
  });
});
