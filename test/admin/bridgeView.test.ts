// The bridge as status, monitor and doctor read it: nothing without a roster; with one,
// remote roles from the roster and the link from bridge.json only while the handoffd that
// wrote it runs (the live holder of the daemon's lock, named by the pid file).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import {
  BRIDGE_DAEMON_NOT_RUNNING,
  BRIDGE_NO_REPORT,
  bridgeLines,
  bridgeLinkOf,
  bridgeViewOf,
  roleLabel,
  runningHandoffdOf,
  type BridgeView,
} from '../../lib/admin/bridgeView.js';
import { readBridgeReport } from '../../lib/project/bridgeRecord.js';
import { CommandFailure } from '../../lib/fsx/commandFailure.js';
import { bridgePathsOf, daemonPathsOf } from '../../lib/project/layout.js';
import {
  deadPid,
  leaveDeadDaemon,
  pretendDaemonRuns,
  writeBridgeJson,
  writeRoster,
} from '../support/bridgeView.js';
import { makeProject, type Project } from '../support/project.js';

const ENV = { BATON_NODE: 'a' };
const COUNTS = {
  pending: { coder: 0, reviewer: 3, QA: 1 },
  unacked: { coder: 0, reviewer: 1, QA: 0 },
};

describe('lib/admin/bridgeView', () => {
  let p: Project;
  let release: (() => void) | undefined;
  beforeEach(() => {
    p = makeProject();
    release = undefined;
  });
  afterEach(() => {
    release?.();
    p.cleanup();
  });
  const notRunning = (reason: string): Omit<BridgeView, 'node' | 'remote_roles'> => ({
    connected: false,
    last_error: reason,
    pending: {},
    unacked: {},
    stream: null,
  });

  it('without swarmforge/nodes.conf: undefined, whatever bridge.json and the daemon say', () => {
    release = pretendDaemonRuns(p.root);
    writeBridgeJson(p.root, { pid: process.pid, ...COUNTS });
    assert.equal(bridgeViewOf(p.root, ENV), undefined);
  });

  it('with a roster and no handoffd: the local node, the remote roles from the roster, not connected, no counts', () => {
    writeRoster(p.root);
    assert.deepEqual(bridgeViewOf(p.root, ENV), {
      node: 'a',
      remote_roles: { reviewer: 'b', QA: 'b' },
      ...notRunning(BRIDGE_DAEMON_NOT_RUNNING),
    });
    assert.deepEqual(
      Object.keys(bridgeViewOf(p.root, ENV)!),
      ['node', 'connected', 'last_error', 'remote_roles', 'pending', 'unacked', 'stream'],
      'the keys of docs/bridge.md §4 and §5, in order',
    );
  });

  it("the running handoffd's bridge.json gives the link and the counts", () => {
    writeRoster(p.root);
    release = pretendDaemonRuns(p.root);
    writeBridgeJson(p.root, { pid: process.pid, ...COUNTS });
    assert.equal(runningHandoffdOf(p.root), process.pid);
    assert.deepEqual(bridgeViewOf(p.root, ENV), {
      node: 'a',
      connected: true,
      last_error: null,
      remote_roles: { reviewer: 'b', QA: 'b' },
      ...COUNTS,
      stream: null,
    });
    writeBridgeJson(p.root, {
      pid: process.pid,
      connected: false,
      last_error: 'connection refused',
      pending: { coder: 2 },
      unacked: {},
    });
    assert.deepEqual(bridgeLinkOf(p.root), {
      source: 'report',
      link: {
        connected: false,
        last_error: 'connection refused',
        pending: { coder: 2 },
        unacked: {},
        stream: null,
      },
    });
  });

  it("the stream's placement from bridge.json (§5): leader and replicas as written; one of another shape, or none (a handoffd from before §5), reads null", () => {
    writeRoster(p.root);
    release = pretendDaemonRuns(p.root);
    const stream = {
      leader: 'n2',
      replicas: [
        { name: 'n1', current: true },
        { name: 'n3', current: false },
      ],
    };
    writeBridgeJson(p.root, { pid: process.pid, ...COUNTS, stream });
    assert.deepEqual(bridgeViewOf(p.root, ENV)?.stream, stream);
    writeBridgeJson(p.root, { pid: process.pid, stream: { leader: null, replicas: [] } });
    assert.deepEqual(bridgeViewOf(p.root, ENV)?.stream, { leader: null, replicas: [] });
    for (const bad of [{ leader: 3, replicas: [] }, { leader: 'n1' }, 'n1']) {
      writeBridgeJson(p.root, { pid: process.pid, stream: bad as never });
      assert.equal(bridgeViewOf(p.root, ENV)?.stream, null, JSON.stringify(bad));
    }
    const old = JSON.parse(fs.readFileSync(bridgePathsOf(p.root).state, 'utf8')) as object;
    delete (old as { stream?: unknown }).stream;
    fs.writeFileSync(bridgePathsOf(p.root).state, JSON.stringify(old));
    assert.equal(bridgeViewOf(p.root, ENV)?.stream, null);
    assert.equal(bridgeViewOf(p.root, ENV)?.connected, true);
  });

  it('the text of the stream: a BRIDGE STREAM line after the link line, replicas current or lagging; none during an election and on a lone server; no line while unknown', () => {
    const view: BridgeView = {
      node: 'a',
      connected: true,
      last_error: null,
      remote_roles: { reviewer: 'b', QA: 'b' },
      ...COUNTS,
      stream: {
        leader: 'n2',
        replicas: [
          { name: 'n1', current: true },
          { name: 'n3', current: false },
        ],
      },
    };
    assert.deepEqual(bridgeLines(view, ['coder']).slice(0, 3), [
      'bridge: node a, connected',
      'BRIDGE STREAM: leader n2, replicas n1 (current), n3 (lagging)',
      'local role coder on node a: pending 0, unacked 0',
    ]);
    assert.equal(
      bridgeLines({ ...view, stream: { leader: null, replicas: [] } }, [])[1],
      'BRIDGE STREAM: leader none, replicas none',
    );
    assert.equal(
      bridgeLines({ ...view, stream: { leader: 'NBX2', replicas: [] } }, [])[1],
      'BRIDGE STREAM: leader NBX2, replicas none',
    );
    assert.equal(
      bridgeLines({ ...view, stream: null }, []).some((l) => l.startsWith('BRIDGE STREAM')),
      false,
    );
  });

  it('a killed handoffd\'s report is not believed: its dead pid in the pid file and in bridge.json reads "handoffd is not running"', () => {
    writeRoster(p.root);
    const dead = deadPid();
    leaveDeadDaemon(p.root, dead);
    writeBridgeJson(p.root, { pid: dead, ...COUNTS });
    assert.equal(runningHandoffdOf(p.root), undefined);
    assert.deepEqual(bridgeLinkOf(p.root), {
      source: 'daemon-not-running',
      link: notRunning(BRIDGE_DAEMON_NOT_RUNNING),
    });
  });

  it("a live pid is not enough: the pid file naming a live process that does not hold the daemon's lock (a reused pid) reads not running", () => {
    writeRoster(p.root);
    leaveDeadDaemon(p.root, process.pid);
    writeBridgeJson(p.root, { pid: process.pid, ...COUNTS });
    assert.equal(bridgeLinkOf(p.root).source, 'daemon-not-running');
  });

  it('the lock holder must be the pid file\'s pid, and bridge.json must be its own: an earlier run\'s report, a missing or malformed one read "no report"', () => {
    writeRoster(p.root);
    release = pretendDaemonRuns(p.root);
    fs.writeFileSync(daemonPathsOf(p.root).pid, `${deadPid()}\n`);
    assert.equal(bridgeLinkOf(p.root).source, 'daemon-not-running', 'pid file and lock disagree');
    fs.writeFileSync(daemonPathsOf(p.root).pid, `${process.pid}\n`);
    assert.deepEqual(
      bridgeLinkOf(p.root),
      { source: 'no-report', link: notRunning(BRIDGE_NO_REPORT) },
      'no bridge.json',
    );
    writeBridgeJson(p.root, { pid: deadPid(), ...COUNTS });
    assert.equal(bridgeLinkOf(p.root).source, 'no-report', "an earlier run's report");
    for (const bad of [
      '{',
      '[]',
      '{"pid":1}',
      JSON.stringify({
        pid: process.pid,
        connected: 'yes',
        last_error: null,
        pending: {},
        unacked: {},
      }),
      JSON.stringify({
        pid: process.pid,
        connected: true,
        last_error: 5,
        pending: {},
        unacked: {},
      }),
    ]) {
      fs.writeFileSync(bridgePathsOf(p.root).state, bad);
      assert.equal(readBridgeReport(p.root), undefined, bad);
      assert.equal(bridgeLinkOf(p.root).source, 'no-report', bad);
    }
  });

  it('counts that are not whole numbers of at least 0 are dropped', () => {
    writeRoster(p.root);
    release = pretendDaemonRuns(p.root);
    fs.writeFileSync(
      bridgePathsOf(p.root).state,
      JSON.stringify({
        pid: process.pid,
        connected: true,
        last_error: null,
        pending: { coder: 1, reviewer: -1, QA: 'x' },
        unacked: { coder: 1.5, QA: 2 },
      }),
    );
    assert.deepEqual(bridgeViewOf(p.root, ENV)!.pending, { coder: 1 });
    assert.deepEqual(bridgeViewOf(p.root, ENV)!.unacked, { QA: 2 });
  });

  it('the local node: BATON_NODE, else .swarmforge/node; unknown: null, and every role is remote', () => {
    writeRoster(p.root);
    assert.deepEqual(bridgeViewOf(p.root, {})!.node, null);
    assert.deepEqual(bridgeViewOf(p.root, {})!.remote_roles, {
      coder: 'a',
      reviewer: 'b',
      QA: 'b',
    });
    fs.writeFileSync(bridgePathsOf(p.root).node, 'b\n');
    assert.deepEqual(
      [bridgeViewOf(p.root, {})!.node, bridgeViewOf(p.root, {})!.remote_roles],
      ['b', { coder: 'a' }],
    );
    assert.deepEqual(bridgeViewOf(p.root, { BATON_NODE: 'a' })!.node, 'a', 'BATON_NODE wins');
    assert.deepEqual(
      bridgeViewOf(p.root, { BATON_NODE: 'zz' })!.node,
      null,
      'a name the roster lacks is no node (as localNodeOf has it)',
    );
  });

  it('an invalid roster fails as readRoster does (environment, every error)', () => {
    writeRoster(p.root, 'swarm t\nnats nats://127.0.0.1:4222\nnode a coder\n');
    assert.throws(
      () => bridgeViewOf(p.root, ENV),
      (err: unknown) =>
        err instanceof CommandFailure &&
        err.kind === 'environment' &&
        err.lines.join('\n') ===
          'nodes.conf:3: role reviewer is on no node\nnodes.conf:3: role QA is on no node',
    );
  });

  it('the text: the link line, a line per role (local first as listed, counts or -), remote roles labelled with their node', () => {
    const view: BridgeView = {
      node: 'a',
      connected: true,
      last_error: null,
      remote_roles: { reviewer: 'b', QA: 'b' },
      ...COUNTS,
      stream: null,
    };
    assert.deepEqual(bridgeLines(view, ['coder', 'reviewer', 'QA']), [
      'bridge: node a, connected',
      'local role coder on node a: pending 0, unacked 0',
      'remote role reviewer on node b: pending 3, unacked 1',
      'remote role QA on node b: pending 1, unacked 0',
    ]);
    const down: BridgeView = {
      ...view,
      connected: false,
      last_error: 'nats: \x1b[2Jrefused',
      pending: {},
      unacked: {},
    };
    assert.deepEqual(bridgeLines(down, ['coder']), [
      'bridge: node a, not connected: nats: \\u001b[2Jrefused',
      'local role coder on node a: pending -, unacked -',
      'remote role reviewer on node b: pending -, unacked -',
      'remote role QA on node b: pending -, unacked -',
    ]);
    assert.equal(
      bridgeLines({ ...down, node: null, last_error: null, remote_roles: { coder: 'a' } }, [
        'coder',
      ])[0],
      'bridge: local node unknown, not connected',
    );
    assert.deepEqual(
      ['coder', 'reviewer'].map((r) => roleLabel(r, view)),
      ['coder', 'reviewer (on node b)'],
    );
    assert.equal(roleLabel('reviewer', undefined), 'reviewer');
  });
});
