// bridge.json (docs/bridge.md §4) from a real nats-server: the link's state, the remote
// roles from the roster, and per role the server's counts: `pending` what the stream still
// holds for the role beyond what its consumer delivered, `unacked` what was delivered and
// not acknowledged. No credentials content, ever.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { jetstream, jetstreamManager, type StreamInfo } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { type Wire } from '../../lib/bridge/bridgeLink.js';
import { placementOf, writeBridgeReport } from '../../lib/bridge/bridgeReport.js';
import { type BridgeReport } from '../../lib/project/bridgeRecord.js';
import { bridgeSettingsOf } from '../../lib/bridge/bridgeSettings.js';
import { consumerNameOf, streamNameOf, subjectOf } from '../../lib/bridge/wireNames.js';
import { ensureConsumer, ensureStream, openOwners } from '../../lib/bridge/wireSetup.js';
import { type Roster } from '../../lib/handoff/roster.js';
import { startNatsServer, type NatsServerHandle } from '../support/nats.js';
import { tempDir } from '../support/project.js';

const CREDS_CONTENT =
  '-----BEGIN NATS USER JWT-----\nsecret-jwt-content-0123456789\n------END NATS USER JWT------\n';

describe('lib/bridge/bridgeReport', function () {
  this.timeout(30_000);
  let nats: NatsServerHandle;
  let nc: NatsConnection;
  let dir: string;
  let swarms = 0;
  let swarm: string;
  let roster: Roster;
  let wire: Wire;
  before(async () => {
    nats = await startNatsServer();
    nc = await connect({ servers: nats.url });
  });
  after(async () => {
    await nc?.close();
    await nats?.stop();
  });
  beforeEach(async () => {
    dir = tempDir();
    swarms += 1;
    swarm = `report-${swarms}`;
    const credentials = join(dir, 'user.creds');
    fs.writeFileSync(credentials, CREDS_CONTENT);
    roster = {
      file: join(dir, 'nodes.conf'),
      swarm,
      urls: [nats.url],
      replicas: 1,
      credentials,
      nodes: new Map([
        ['a', ['coder']],
        ['b', ['reviewer', 'QA']],
      ]),
      nodeOfRole: new Map([
        ['coder', 'a'],
        ['reviewer', 'b'],
        ['QA', 'b'],
      ]),
    };
    // What node b's link sets up: the stream, b's consumers, the bucket.
    const jsm = await jetstreamManager(nc);
    await ensureStream(jsm, swarm, bridgeSettingsOf({}));
    for (const role of ['reviewer', 'QA'])
      await ensureConsumer(jsm, swarm, role, bridgeSettingsOf({}));
    wire = {
      nc,
      js: jetstream(nc),
      jsm,
      owners: await openOwners(nc, swarm),
      maxPayload: nc.info!.max_payload,
    };
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const reportPath = () => join(dir, 'bridge.json');
  const read = () => JSON.parse(fs.readFileSync(reportPath(), 'utf8')) as BridgeReport;
  const publish = (role: string, n: number) =>
    Promise.all(
      Array.from({ length: n }, (_, i) => wire.js.publish(subjectOf(swarm, role), `m${i}`)),
    );

  it('writes every field: pid, node, swarm, link state, remote roles from the roster, counts per role, updated_at', async () => {
    const before = Date.now();
    await writeBridgeReport(reportPath(), {
      connected: true,
      last_error: null,
      node: 'b',
      roster,
      wire,
    });
    const report = read();
    assert.deepEqual(Object.keys(report).sort(), [
      'connected',
      'last_error',
      'node',
      'pending',
      'pid',
      'remote_roles',
      'stream',
      'swarm',
      'unacked',
      'updated_at',
    ]);
    assert.equal(report.pid, process.pid);
    assert.equal(report.node, 'b');
    assert.equal(report.swarm, swarm);
    assert.equal(report.connected, true);
    assert.equal(report.last_error, null);
    assert.deepEqual(
      report.remote_roles,
      { coder: 'a' },
      'the roles of the other nodes, with their node',
    );
    assert.deepEqual(report.pending, { coder: 0, reviewer: 0, QA: 0 });
    assert.deepEqual(report.unacked, { coder: 0, reviewer: 0, QA: 0 });
    assert.deepEqual(
      report.stream,
      { leader: nc.info!.server_name, replicas: [] },
      'a lone server names no cluster: it is the leader, and there are no other replicas',
    );
    assert.ok(
      Date.parse(report.updated_at) >= before - 1000 &&
        Date.parse(report.updated_at) <= Date.now() + 1000,
    );
    assert.equal(fs.statSync(reportPath()).mode & 0o777, 0o600);
    assert.deepEqual(
      fs.readdirSync(dir).sort(),
      ['bridge.json', 'user.creds'],
      'no temp file left',
    );
  });

  it('the stream of a cluster: its leader and the other replicas, current or lagging, by server_name', () => {
    const info = {
      cluster: {
        name: 'baton',
        leader: 'n2',
        replicas: [
          { name: 'n1', current: true, active: 1 },
          { name: 'n3', current: false, active: 9, offline: true },
        ],
      },
    } as unknown as StreamInfo;
    assert.deepEqual(placementOf(info, 'n1'), {
      leader: 'n2',
      replicas: [
        { name: 'n1', current: true },
        { name: 'n3', current: false },
      ],
    });
    // During an election (or just after a scale-up) the server lists every peer and no leader.
    const electing = {
      cluster: { name: 'baton', replicas: [{ name: 'n1', current: true, active: 0 }] },
    } as unknown as StreamInfo;
    assert.deepEqual(placementOf(electing, 'n1'), {
      leader: null,
      replicas: [{ name: 'n1', current: true }],
    });
  });

  it('not connected: no counts and no stream', async () => {
    await writeBridgeReport(reportPath(), {
      connected: false,
      last_error: 'down',
      node: 'b',
      roster,
      wire: undefined,
    });
    assert.deepEqual([read().pending, read().stream], [{}, null]);
  });

  it("from node a's side, the remote roles are reviewer and QA on b", async () => {
    await writeBridgeReport(reportPath(), {
      connected: true,
      last_error: null,
      node: 'a',
      roster,
      wire,
    });
    assert.deepEqual(read().remote_roles, { reviewer: 'b', QA: 'b' });
  });

  it('pending counts what the stream holds per role; unacked what a consumer fetched without an ack', async () => {
    await publish('reviewer', 3);
    await publish('QA', 1);
    await publish('coder', 2);
    await writeBridgeReport(reportPath(), {
      connected: true,
      last_error: null,
      node: 'b',
      roster,
      wire,
    });
    assert.deepEqual(
      [read().pending, read().unacked],
      [
        { coder: 2, reviewer: 3, QA: 1 },
        { coder: 0, reviewer: 0, QA: 0 },
      ],
    );

    const consumer = await wire.js.consumers.get(streamNameOf(swarm), consumerNameOf('reviewer'));
    const fetched = await consumer.fetch({ max_messages: 2, expires: 2_000 });
    const taken = [];
    for await (const m of fetched) taken.push(m);
    assert.equal(taken.length, 2);
    await writeBridgeReport(reportPath(), {
      connected: true,
      last_error: null,
      node: 'b',
      roster,
      wire,
    });
    assert.deepEqual(
      [read().pending, read().unacked],
      [
        { coder: 2, reviewer: 1, QA: 1 },
        { coder: 0, reviewer: 2, QA: 0 },
      ],
    );

    await taken[0]!.ackAck();
    await writeBridgeReport(reportPath(), {
      connected: true,
      last_error: null,
      node: 'b',
      roster,
      wire,
    });
    assert.deepEqual(
      [read().pending, read().unacked],
      [
        { coder: 2, reviewer: 1, QA: 1 },
        { coder: 0, reviewer: 1, QA: 0 },
      ],
      'an acknowledged message leaves the work queue',
    );
  });

  it('disconnected: the last error kept, no counts', async () => {
    await writeBridgeReport(reportPath(), {
      connected: false,
      last_error: 'disconnected from 127.0.0.1:4222',
      node: 'b',
      roster,
      wire: undefined,
    });
    const report = read();
    assert.equal(report.connected, false);
    assert.equal(report.last_error, 'disconnected from 127.0.0.1:4222');
    assert.deepEqual([report.pending, report.unacked], [{}, {}]);
    assert.deepEqual(report.remote_roles, { coder: 'a' });
  });

  it('counts that cannot be had (the stream is gone) leave the counts empty and still write the report', async () => {
    await wire.jsm.streams.delete(streamNameOf(swarm));
    await writeBridgeReport(reportPath(), {
      connected: true,
      last_error: null,
      node: 'b',
      roster,
      wire,
    });
    assert.deepEqual([read().connected, read().pending, read().unacked], [true, {}, {}]);
  });

  it('replaces the previous report whole; an unwritable place is ignored (advisory)', async () => {
    fs.writeFileSync(reportPath(), '{"old": true}\n');
    await writeBridgeReport(reportPath(), {
      connected: true,
      last_error: null,
      node: 'b',
      roster,
      wire,
    });
    assert.equal(read().node, 'b');
    await writeBridgeReport(join(dir, 'missing', 'bridge.json'), {
      connected: true,
      last_error: null,
      node: 'b',
      roster,
      wire,
    });
    assert.equal(fs.existsSync(join(dir, 'missing')), false);
  });

  it('holds no credentials content (nor their path)', async () => {
    await publish('reviewer', 1);
    await writeBridgeReport(reportPath(), {
      connected: true,
      last_error: null,
      node: 'b',
      roster,
      wire,
    });
    const text = fs.readFileSync(reportPath(), 'utf8');
    for (const line of CREDS_CONTENT.split('\n').filter((l) => l.length > 0))
      assert.ok(!text.includes(line), line);
    assert.ok(!text.includes('user.creds'));
  });
});
