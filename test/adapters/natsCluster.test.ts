// The plan of a local cluster (docs/bridge.md §5) and the argv each member runs with: client
// ports P..P+N-1, route ports P+100.., server_name n<k>, one cluster name, every route,
// a store each in <natsDir>/<k>/. Pure: no server is started here (test/bin/nats.test.ts
// starts a real cluster).
import assert from 'node:assert/strict';
import { clusterPlan } from '../../lib/adapters/natsCluster.js';
import { natsServerArgv } from '../../lib/adapters/natsServer.js';

describe('lib/adapters/natsCluster', () => {
  it('clusterPlan: member k on client port P+k-1 and route port P+100+k-1, named n<k>, its store and pid in <natsDir>/<k>/, every route listed', () => {
    const plan = clusterPlan(3, 4222, '/r/.swarmforge/nats');
    const routes = [4322, 4323, 4324];
    assert.deepEqual(plan, [
      {
        index: 1,
        port: 4222,
        storeDir: '/r/.swarmforge/nats/1',
        pidFile: '/r/.swarmforge/nats/1/nats-server.pid',
        member: { name: 'n1', cluster: 'baton', routePort: 4322, routes },
      },
      {
        index: 2,
        port: 4223,
        storeDir: '/r/.swarmforge/nats/2',
        pidFile: '/r/.swarmforge/nats/2/nats-server.pid',
        member: { name: 'n2', cluster: 'baton', routePort: 4323, routes },
      },
      {
        index: 3,
        port: 4224,
        storeDir: '/r/.swarmforge/nats/3',
        pidFile: '/r/.swarmforge/nats/3/nats-server.pid',
        member: { name: 'n3', cluster: 'baton', routePort: 4324, routes },
      },
    ]);
    assert.deepEqual(
      clusterPlan(5, 20000, '/n').map((m) => [m.port, m.member.routePort]),
      [
        [20000, 20100],
        [20001, 20101],
        [20002, 20102],
        [20003, 20103],
        [20004, 20104],
      ],
    );
  });

  it("a member's argv: the lone server's, then its server_name, the cluster's name, its route listener and every route (an argument vector, no config file, no shell)", () => {
    const [m] = clusterPlan(3, 4222, '/r/nats');
    assert.deepEqual(natsServerArgv(4222, '/r/nats/1', m!.member), [
      '-js',
      '-a',
      '127.0.0.1',
      '-p',
      '4222',
      '-sd',
      '/r/nats/1',
      '--server_name',
      'n1',
      '--cluster_name',
      'baton',
      '--cluster',
      'nats://127.0.0.1:4322',
      '--routes',
      'nats://127.0.0.1:4322,nats://127.0.0.1:4323,nats://127.0.0.1:4324',
    ]);
    assert.deepEqual(natsServerArgv(4222, '/r/nats'), [
      '-js',
      '-a',
      '127.0.0.1',
      '-p',
      '4222',
      '-sd',
      '/r/nats',
    ]);
  });
});
