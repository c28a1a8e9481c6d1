// The daemon's explicit state: fresh values, the memo of mailbox paths, errors logged once,
// and the role table re-read only when roles.tsv changes.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { DaemonLog } from '../../lib/daemon/log.js';
import {
  boxOf,
  currentRoles,
  newDaemonState,
  reportOnce,
  type DaemonState,
} from '../../lib/daemon/state.js';
import { parseLogLine } from '../../lib/project/daemonRecord.js';
import { daemonPathsOf, mailboxOf, rolesPathOf } from '../../lib/project/layout.js';
import { daemonLog } from '../support/daemon.js';
import { makeProject, type Project } from '../support/project.js';

describe('lib/daemon/state', () => {
  let p: Project;
  let state: DaemonState;
  const stateOf = (pollIntervalMs = 1000, rewakeIntervalS = 60) => {
    const paths = daemonPathsOf(p.root);
    fs.mkdirSync(paths.dir, { recursive: true });
    return newDaemonState(
      { root: p.root, pollIntervalMs, rewakeIntervalS },
      paths,
      new DaemonLog(paths.log),
      () => undefined,
      () => false,
    );
  };
  beforeEach(() => {
    p = makeProject();
    state = stateOf();
  });
  afterEach(() => {
    state.log.close();
    p.cleanup();
  });
  const errors = () =>
    daemonLog(p.root)
      .map((l) => parseLogLine(l)!)
      .filter((e) => e.event === 'error')
      .map((e) => e.details);

  it('starts with nothing cached, nothing to retry, zero counts, and every view due at once', () => {
    assert.deepEqual(
      [
        state.boxes.size,
        state.ensured.size,
        state.retryDeep.size,
        state.reported.size,
        state.wakes.size,
      ],
      [0, 0, 0, 0, 0],
    );
    assert.deepEqual(
      { ...state.stats, started_at: '' },
      { passes: 0, delivered: 0, failed: 0, errors: 0, started_at: '', last_pass_at: '' },
    );
    assert.match(state.stats.started_at, /^\d{4}-\d\d-\d\dT.*Z$/);
    assert.equal(state.viewsDueAt, 0);
  });

  it('views every role at most every 5 s, at least every pass interval, and otherwise every tenth of the re-wake interval', () => {
    assert.equal(state.viewIntervalMs, 5000, 'default: 60 s re-wake → 6 s, capped at 5 s');
    assert.equal(stateOf(200, 2).viewIntervalMs, 200, 'a 2 s re-wake → 200 ms');
    assert.equal(stateOf(1000, 2).viewIntervalMs, 1000, 'never more often than the pass interval');
  });

  it('boxOf is mailboxOf, memoized per role', () => {
    const first = boxOf(state, 'coder');
    assert.deepEqual(first, mailboxOf(p.root, 'coder'));
    assert.equal(boxOf(state, 'coder'), first, 'the same object on the next call');
    assert.notEqual(boxOf(state, 'QA'), first);
  });

  it('reportOnce logs an error and counts it the first time a key is seen, never again', () => {
    reportOnce(state, 'k', { what: 'outbox', problem: 'x' });
    reportOnce(state, 'k', { what: 'outbox', problem: 'x' });
    reportOnce(state, 'other', { what: 'outbox', problem: 'y' });
    assert.equal(state.stats.errors, 2);
    assert.deepEqual(errors(), [
      { what: 'outbox', problem: 'x' },
      { what: 'outbox', problem: 'y' },
    ]);
  });

  it('currentRoles parses roles.tsv once, again only after it changes, and logs each bad line once', () => {
    const first = currentRoles(state);
    assert.deepEqual([...first.keys()], ['coder', 'reviewer', 'QA']);
    assert.equal(currentRoles(state), first, 'unchanged file: the cached table');
    fs.appendFileSync(rolesPathOf(p.root), 'ops\tmaster\t/p\ts\tops\tclaude\tbatch\nbroken line\n');
    const second = currentRoles(state);
    assert.deepEqual([...second.keys()], ['coder', 'reviewer', 'QA', 'ops']);
    currentRoles(state);
    fs.appendFileSync(rolesPathOf(p.root), '\n');
    currentRoles(state);
    assert.deepEqual(errors(), [
      { what: 'roles.tsv', problem: `${rolesPathOf(p.root)}:5: fewer than 6 columns` },
    ]);
  });

  it('currentRoles without roles.tsv: no roles, the read error logged once', () => {
    fs.rmSync(rolesPathOf(p.root));
    assert.deepEqual(currentRoles(state), new Map());
    assert.deepEqual(currentRoles(state), new Map());
    assert.equal(errors().length, 1);
    assert.match(errors()[0]!.problem!, /ENOENT/);
  });
});
