// The sender's ledger (lib/daemon/awaitingReceipts.ts) against a stand-in bridge that says
// what became of each copy (the real bridge and server: test/bin/bridge_receipts.test.ts):
// an entry younger than the delay is not looked at; a confirmed role is done; a waiting one
// stays; a vanished one is published again from sent/ with the next resend number and its
// new sequence; an entry of confirmed roles goes; a copy that vanishes every time is given
// up after ten resends; a torn entry is removed.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import type { Bridge, Confirmation, Outgoing } from '../../lib/bridge/bridge.js';
import { bridgeSettingsOf } from '../../lib/bridge/bridgeSettings.js';
import {
  checkAwaiting,
  recordAwaiting,
  type AwaitingEntry,
} from '../../lib/daemon/awaitingReceipts.js';
import { boxOf, type DaemonState } from '../../lib/daemon/state.js';
import { parseLogLine } from '../../lib/project/daemonRecord.js';
import { daemonLog, daemonStateFor } from '../support/daemon.js';
import { makeProject, type Project } from '../support/project.js';

describe('lib/daemon/awaitingReceipts', () => {
  const DELAY = 30_000;
  let p: Project;
  let state: DaemonState;
  let dir: string;
  /** What the stand-in says of each role's copy, and what it was asked to publish. */
  let found: Record<string, Confirmation>;
  let published: { role: string; handoff: Outgoing; resend: number }[];
  let bridge: Bridge;
  beforeEach(() => {
    p = makeProject();
    state = daemonStateFor(p.root);
    dir = join(p.root, '.swarmforge', 'bridge', 'awaiting');
    found = {};
    published = [];
    bridge = {
      settings: { ...bridgeSettingsOf({}), confirmAfterMs: DELAY },
      confirmationOf: (role: string) => Promise.resolve(found[role] ?? 'waiting'),
      publish: (role: string, handoff: Outgoing, resend: number) => {
        published.push({ role, handoff, resend });
        return Promise.resolve({ kind: 'stored', seq: 100 + published.length });
      },
    } as unknown as Bridge;
  });
  afterEach(() => {
    state.log.close();
    p.cleanup();
  });

  const ID = '20261203T190000Z_000001_from_coder';
  const NAME = `50_${ID}_to_reviewer_QA.handoff`;
  /** An entry for reviewer (seq 7) and QA (seq 8), its original in coder's sent/. */
  const recorded = (): string => {
    fs.mkdirSync(boxOf(state, 'coder').sent, { recursive: true });
    fs.writeFileSync(join(boxOf(state, 'coder').sent, NAME), 'the original bytes');
    const entry: AwaitingEntry = {
      id: ID,
      from: 'coder',
      name: NAME,
      roles: { reviewer: 7, QA: 8 },
      resends: 0,
    };
    recordAwaiting(dir, [entry]);
    return join(dir, ID);
  };
  /**
   * `delays` confirmation delays from now, and a millisecond more: a file's time has the
   * sub-millisecond digits Date.now() lacks, so an entry written this millisecond is younger.
   */
  const after = (delays: number) => Date.now() + delays * DELAY + 1;
  const entryAt = (path: string) => JSON.parse(fs.readFileSync(path, 'utf8')) as AwaitingEntry;
  const events = (event: string) =>
    daemonLog(p.root)
      .map((l) => parseLogLine(l)!)
      .filter((e) => e.event === event);

  it('an entry younger than the delay is not looked at', async () => {
    const path = recorded();
    found = { reviewer: 'vanished', QA: 'vanished' };
    await checkAwaiting(state, bridge, dir, Date.now() + DELAY - 1_000);
    assert.deepEqual(published, []);
    assert.deepEqual(entryAt(path).roles, { reviewer: 7, QA: 8 });
  });

  it('confirmed: done; waiting: kept; vanished: published again from sent/ (resend 1), logged, its new sequence kept', async () => {
    const path = recorded();
    found = { reviewer: 'vanished', QA: 'confirmed' };
    await checkAwaiting(state, bridge, dir, after(1));
    assert.deepEqual(
      published.map((x) => [x.role, x.resend, Buffer.from(x.handoff.bytes).toString()]),
      [['reviewer', 1, 'the original bytes']],
    );
    assert.deepEqual(entryAt(path), {
      id: ID,
      from: 'coder',
      name: NAME,
      roles: { reviewer: 101 },
      resends: 1,
    });
    assert.deepEqual(
      events('bridge-resent').map((e) => e.details),
      [{ id: ID, name: NAME, to: 'reviewer' }],
    );
    found = { reviewer: 'confirmed' };
    await checkAwaiting(state, bridge, dir, after(2));
    assert.ok(!fs.existsSync(path), 'every role confirmed: the entry is gone');
    assert.equal(published.length, 1);
  });

  it('a copy that vanishes every time is given up after ten resends, logged, the original kept in sent/', async () => {
    const path = recorded();
    found = { reviewer: 'vanished', QA: 'confirmed' };
    for (let round = 1; round <= 11; round++) await checkAwaiting(state, bridge, dir, after(round));
    assert.deepEqual(
      published.map((x) => x.resend),
      [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
    );
    assert.ok(!fs.existsSync(path));
    assert.deepEqual(
      events('error').map((e) => e.details.problem),
      ['published 10 times again and never confirmed: given up (in sent/)'],
    );
    assert.ok(fs.existsSync(join(boxOf(state, 'coder').sent, NAME)));
  });

  it('a torn entry is removed with one error line; another entry is still checked', async () => {
    const path = recorded();
    fs.writeFileSync(join(dir, 'torn'), '{"id": "20261203T1');
    found = { reviewer: 'confirmed', QA: 'confirmed' };
    const old = new Date(Date.now() - DELAY);
    fs.utimesSync(join(dir, 'torn'), old, old);
    fs.utimesSync(path, old, old);
    await checkAwaiting(state, bridge, dir, Date.now());
    assert.deepEqual(fs.readdirSync(dir), []);
    assert.deepEqual(
      events('error').map((e) => e.details),
      [{ what: 'receipt', id: 'torn', problem: 'unreadable entry removed' }],
    );
  });
});
