// Doctor's checks of the roster and the bridge: none without a roster; problems for an
// invalid roster, an unknown local node and an unreadable credentials file; warnings for
// the link; and its BRIDGE lines.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { join } from 'node:path';
import { bridgeChecks, bridgeDoctorLines } from '../../lib/admin/bridgeDoctor.js';
import { doctor } from '../../lib/admin/doctor.js';
import { bridgePathsOf } from '../../lib/project/layout.js';
import {
  deadPid,
  leaveDeadDaemon,
  pretendDaemonRuns,
  TWO_NODES,
  writeBridgeJson,
  writeRoster,
} from '../support/bridgeView.js';
import { makeProject, type Project } from '../support/project.js';

const ENV = { BATON_NODE: 'a' };

describe('lib/admin/bridgeDoctor', () => {
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
  const kinds = (env: NodeJS.ProcessEnv = ENV) => {
    const checks = bridgeChecks(p.root, env)!;
    return {
      findings: checks.findings.map((f) => f.kind),
      warnings: checks.warnings.map((w) => w.kind),
    };
  };

  it("without a roster: no checks, and doctor's report has only findings and fixed", async () => {
    assert.equal(bridgeChecks(p.root, ENV), undefined);
    assert.deepEqual(Object.keys(await doctor(p.root, false, Date.now(), ENV)), [
      'findings',
      'fixed',
    ]);
  });

  it('the link: handoffd not running, running without a report, running and down are warnings; running and up is none', () => {
    writeRoster(p.root);
    assert.deepEqual(kinds(), { findings: [], warnings: ['bridge-daemon-not-running'] });
    leaveDeadDaemon(p.root, deadPid());
    assert.deepEqual(kinds(), { findings: [], warnings: ['bridge-daemon-not-running'] });
    release = pretendDaemonRuns(p.root);
    assert.deepEqual(kinds(), { findings: [], warnings: ['bridge-no-report'] });
    writeBridgeJson(p.root, { pid: process.pid, connected: false, last_error: null });
    assert.deepEqual(
      bridgeChecks(p.root, ENV)!.warnings.map((w) => w.problem),
      ['bridge not connected: no error reported yet'],
    );
    writeBridgeJson(p.root, { pid: process.pid, connected: true });
    assert.deepEqual(kinds(), { findings: [], warnings: [] });
  });

  it('an unknown local node is a problem at .swarmforge/node naming the nodes', () => {
    writeRoster(p.root);
    const [finding] = bridgeChecks(p.root, {})!.findings;
    assert.deepEqual(finding, {
      path: bridgePathsOf(p.root).node,
      kind: 'local-node',
      problem: 'local node unknown: set BATON_NODE or run baton init --node NAME',
      remedy:
        'run baton init --node NAME (or set BATON_NODE=NAME), NAME one of: a, b; handoffd and baton up refuse to start until then',
    });
  });

  it('an invalid roster: each error a problem at nodes.conf, no roster, no bridge, no BRIDGE line; doctor adds them to its findings', async () => {
    writeRoster(p.root, 'swarm t\nnode a coder\n');
    const checks = bridgeChecks(p.root, ENV)!;
    assert.deepEqual(
      checks.findings.map((f) => [f.path, f.kind, f.problem]),
      [
        [
          bridgePathsOf(p.root).roster,
          'roster',
          "nodes.conf:2: no nats line; add 'nats nats://host:port'",
        ],
        [bridgePathsOf(p.root).roster, 'roster', 'nodes.conf:2: role reviewer is on no node'],
        [bridgePathsOf(p.root).roster, 'roster', 'nodes.conf:2: role QA is on no node'],
      ],
    );
    assert.deepEqual([checks.roster, checks.bridge, bridgeDoctorLines(checks)], [null, null, []]);
    const report = await doctor(p.root, false, Date.now(), ENV);
    assert.deepEqual(Object.keys(report), ['findings', 'fixed', 'warnings', 'roster', 'bridge']);
    assert.equal(report.findings.length, 3);
  });

  it('a credentials file this user cannot read is a problem naming its path; it is checked with access(2), never read', () => {
    const creds = join(p.root, 'swarm.creds');
    fs.writeFileSync(creds, 'SECRET-never-read', { mode: 0o600 });
    writeRoster(p.root, `credentials ${creds}\n${TWO_NODES}`);
    const cjsFs = createRequire(import.meta.url)('node:fs') as typeof fs;
    const { accessSync, readFileSync, openSync } = cjsFs;
    const touched: string[] = [];
    cjsFs.accessSync = (path, mode) => {
      if (path === creds) throw Object.assign(new Error('EACCES'), { code: 'EACCES' });
      accessSync(path, mode);
    };
    cjsFs.readFileSync = ((path: fs.PathOrFileDescriptor, options?: unknown) => {
      if (path === creds) touched.push('read');
      return readFileSync(path, options as never);
    }) as typeof fs.readFileSync;
    cjsFs.openSync = ((path: fs.PathLike, ...rest: unknown[]) => {
      if (path === creds) touched.push('open');
      return openSync(path, ...(rest as [never]));
    }) as typeof fs.openSync;
    syncBuiltinESMExports();
    try {
      const checks = bridgeChecks(p.root, ENV)!;
      assert.deepEqual(
        checks.findings.map((f) => [f.path, f.kind, f.problem]),
        [[creds, 'credentials', 'credentials file is not readable: EACCES']],
      );
      assert.equal(
        bridgeDoctorLines(checks).some((l) => l.includes('credentials')),
        false,
        'no "readable" line',
      );
      assert.deepEqual(touched, []);
    } finally {
      Object.assign(cjsFs, { accessSync, readFileSync, openSync });
      syncBuiltinESMExports();
    }
    assert.deepEqual(bridgeDoctorLines(bridgeChecks(p.root, ENV)!).slice(0, 2), [
      `BRIDGE: roster ${bridgePathsOf(p.root).roster}: swarm t, nodes a, b`,
      `BRIDGE: credentials ${creds}: readable`,
    ]);
  });
});
