// Starting handoffd's bridge (docs/bridge.md §1): without swarmforge/nodes.conf nothing
// NATS-related is loaded and there is no bridge; an invalid roster or an unknown local
// node stops handoffd before it starts (the roster's own errors, exit 1); a valid one
// starts a bridge that reads its settings from BATON_BRIDGE_* and logs to handoffd's log.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect, nanos } from '@nats-io/transport-node';
import { consumerNameOf, streamNameOf } from '../../lib/bridge/wireNames.js';
import { describeFailure } from '../../lib/cli/failure.js';
import { startBridgeOf } from '../../lib/daemon/bridgeStart.js';
import { DaemonLog } from '../../lib/daemon/log.js';
import { parseLogLine } from '../../lib/project/daemonRecord.js';
import { CommandFailure } from '../../lib/fsx/commandFailure.js';
import { bridgePathsOf, daemonPathsOf } from '../../lib/project/layout.js';
import { mkdirSynced } from '../../lib/fsx/durable.js';
import { daemonLog, waitFor } from '../support/daemon.js';
import { startNatsServer, type NatsServerHandle } from '../support/nats.js';
import { BIN_DIR, makeProject, type Project } from '../support/project.js';
import { nodesConf } from '../support/twoNodes.js';

describe('lib/daemon/bridgeStart', function () {
  this.timeout(30_000);
  let p: Project;
  let log: DaemonLog;
  const saved: Record<string, string | undefined> = {};
  const setEnv = (name: string, value: string | undefined) => {
    if (!(name in saved)) saved[name] = process.env[name];
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  };
  beforeEach(() => {
    p = makeProject();
    const paths = daemonPathsOf(p.root);
    mkdirSynced(paths.tmp);
    log = new DaemonLog(paths.log);
    setEnv('BATON_NODE', undefined);
  });
  afterEach(() => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
      delete saved[name];
    }
    log.close();
    p.cleanup();
  });

  const writeRoster = (text: string) => fs.writeFileSync(bridgePathsOf(p.root).roster, text);
  /** Runs test/support/natsLoadProbe.mjs on ROOT in a process of its own. */
  const probe = (env: Record<string, string> = {}) => {
    const r = spawnSync(
      process.execPath,
      ['--import', 'tsx', join('test', 'support', 'natsLoadProbe.mjs'), p.root],
      { encoding: 'utf8', env: { ...process.env, ...env } },
    );
    assert.equal(r.status, 0, r.stderr);
    return JSON.parse(r.stdout) as { started: boolean; natsModules: number };
  };

  describe('without nodes.conf', () => {
    it('no bridge (undefined), and no bridge.json', async () => {
      assert.equal(await startBridgeOf(p.root, log, () => undefined), undefined);
      assert.equal(fs.existsSync(bridgePathsOf(p.root).state), false);
    });

    it('nothing of the NATS client is loaded (a process of its own); with a roster, the same probe sees it loaded', () => {
      assert.deepEqual(probe(), { started: false, natsModules: 0 });
      writeRoster(nodesConf('probe', 'nats://127.0.0.1:1'));
      const withRoster = probe({ BATON_NODE: 'a' });
      assert.equal(withRoster.started, true);
      assert.ok(withRoster.natsModules > 0, 'the probe sees the client when it is loaded');
    });

    it('the built handoffd (npm run build) holds no NATS client: it requires the bridge bundle, which holds it, only when a bridge starts', () => {
      // What each bundle holds, as the build lists it (scripts/build.mjs).
      const inputs = JSON.parse(fs.readFileSync(join(BIN_DIR, 'bundles.json'), 'utf8')) as Record<
        string,
        string[]
      >;
      const holdsClient = (bundle: string) =>
        inputs[bundle]!.some((input) => input.includes('node_modules/@nats-io/'));
      assert.equal(holdsClient('handoffd.js'), false, 'handoffd.js holds no NATS client');
      assert.equal(holdsClient('baton-bridge.js'), true, 'baton-bridge.js holds it');
      const handoffd = fs.readFileSync(join(BIN_DIR, 'handoffd.js'), 'utf8');
      const siblings = [...handoffd.matchAll(/require\("\.\/([^"]+)"\)/g)].map((m) => m[1]!);
      assert.deepEqual(
        siblings.filter((bundle) => holdsClient(bundle)),
        ['baton-bridge.js'],
        'of the bundles beside it handoffd requires, one holds the client: the bridge',
      );
      // That require sits in the import() of lib/daemon/bridgeStart.ts (esbuild's interop
      // helper around it, its name shortened): the probe above shows, through tsx, that
      // nothing reaches the client without a roster.
      assert.match(
        handoffd,
        /Promise\.resolve\(\)\.then\(\(\)=>[\w$]+\(require\("\.\/baton-bridge\.js"\)/,
      );
    });
  });

  describe("a roster that cannot be used: the roster's error, exit 1, no bridge", () => {
    const refused = async (expected: string[]) => {
      const err = await startBridgeOf(p.root, log, () => undefined).then(
        () => undefined,
        (e: unknown) => e,
      );
      assert.ok(err instanceof CommandFailure, `expected a CommandFailure, got ${String(err)}`);
      assert.equal(err.kind, 'environment');
      assert.deepEqual(err.lines, expected);
      assert.equal(describeFailure('handoffd', err).exitCode, 1);
      assert.equal(fs.existsSync(bridgePathsOf(p.root).state), false, 'nothing written');
    };

    it('an invalid roster: every error with its line', async () => {
      setEnv('BATON_NODE', 'a');
      writeRoster(
        'swarm Bad_Name\nnats nats://127.0.0.1:4222\nnode a coder,reviewer\nnode b reviewer\n',
      );
      await refused([
        "nodes.conf:1: swarm name 'Bad_Name' must match ^[a-z][a-z0-9-]{0,31}$",
        'nodes.conf:4: role reviewer is on two nodes: a (line 3) and b',
        'nodes.conf:4: role QA is on no node',
      ]);
    });

    it('no local node: neither BATON_NODE nor .swarmforge/node', async () => {
      writeRoster(nodesConf('s', 'nats://127.0.0.1:4222'));
      await refused(['local node unknown: set BATON_NODE or run baton init --node NAME']);
    });

    it('a local node the roster does not name', async () => {
      writeRoster(nodesConf('s', 'nats://127.0.0.1:4222'));
      setEnv('BATON_NODE', 'c');
      await refused(['local node unknown: set BATON_NODE or run baton init --node NAME']);
    });
  });

  describe('a valid roster (real nats-server)', () => {
    let nats: NatsServerHandle;
    before(async () => {
      nats = await startNatsServer();
    });
    after(async () => {
      await nats?.stop();
    });

    it("starts the bridge of the local node (.swarmforge/node): settings from BATON_BRIDGE_*, events in handoffd's log, bridge.json written, notify called", async () => {
      writeRoster(nodesConf('start-1', nats.url));
      fs.writeFileSync(bridgePathsOf(p.root).node, 'b\n');
      setEnv('BATON_BRIDGE_ACK_WAIT_MS', '4321');
      let notified = 0;
      const bridge = await startBridgeOf(p.root, log, () => void (notified += 1));
      assert.ok(bridge);
      try {
        assert.deepEqual(bridge.localRoles, ['reviewer', 'QA']);
        assert.equal(bridge.isRemote('coder'), true);
        await waitFor("bridge-connected in handoffd's log", () =>
          daemonLog(p.root).some((l) => parseLogLine(l)?.event === 'bridge-connected'),
        );
        await waitFor('notified', () => notified > 0);
        const nc = await connect({ servers: nats.url });
        try {
          const info = await (
            await jetstreamManager(nc)
          ).consumers.info(streamNameOf('start-1'), consumerNameOf('QA'));
          assert.equal(info.config.ack_wait, nanos(4321));
        } finally {
          await nc.close();
        }
        await waitFor('bridge.json', () => fs.existsSync(bridgePathsOf(p.root).state));
        assert.equal(
          (JSON.parse(fs.readFileSync(bridgePathsOf(p.root).state, 'utf8')) as { node: string })
            .node,
          'b',
        );
      } finally {
        await bridge.close();
      }
    });

    it('with a credentials file, starts without showing its content anywhere it writes', async () => {
      const secret = 'credentials-content-that-must-not-leak';
      fs.writeFileSync(join(p.root, 'user.creds'), `${secret}\n`);
      writeRoster(nodesConf('start-2', nats.url, 'credentials user.creds\n'));
      setEnv('BATON_NODE', 'a');
      const bridge = await startBridgeOf(p.root, log, () => undefined);
      assert.ok(bridge);
      try {
        await waitFor('a bridge-error (the client cannot use these credentials)', () =>
          daemonLog(p.root).some((l) => parseLogLine(l)?.event === 'bridge-error'),
        );
        await bridge.report();
      } finally {
        await bridge.close();
      }
      assert.ok(!daemonLog(p.root).join('\n').includes(secret));
      assert.ok(!fs.readFileSync(bridgePathsOf(p.root).state, 'utf8').includes(secret));
    });
  });
});
