// lib/run/controller/agentStates: a role's state from its pane first (gone, dead, or back at
// its shell: dead), then its hooks' file, else unknown; and the `observe` transition that
// keeps it in the run's observations only when it changed.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { type PaneInfo } from '../../../lib/adapters/tmux.js';
import { writeAgentReport } from '../../../lib/project/agentObservation.js';
import { stateOf } from '../../../lib/run/controller/agentStates.js';
import { observeRole } from '../../../lib/run/gates/controllerActions.js';
import { sampleWorkflow } from '../sampleWorkflow.js';
import { tempDir } from '../../support/project.js';

const pane = (command: string, dead = false): PaneInfo => ({ id: '%1', command, dead }) as PaneInfo;

describe('lib/run/controller/agentStates', () => {
  let root: string;
  beforeEach(() => (root = tempDir()));
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  it('the pane decides dead (gone, dead, at its shell); else the hooks say; else unknown', () => {
    assert.equal(stateOf(root, 'worker', '%1', []), 'dead', 'pane gone');
    assert.equal(stateOf(root, 'worker', '%1', [pane('node', true)]), 'dead', 'pane dead');
    assert.equal(stateOf(root, 'worker', '%1', [pane('bash')]), 'dead', 'program exited');
    assert.equal(stateOf(root, 'worker', '%1', [pane('claude')]), 'unknown');
    writeAgentReport(root, 'worker', {
      state: 'working',
      at: new Date().toISOString(),
      session_id: '',
      event: 'Stop',
    });
    assert.equal(stateOf(root, 'worker', '%1', [pane('claude')]), 'working');
    assert.equal(stateOf(root, 'worker', undefined, undefined), 'working', 'no swarm: the hooks');
    assert.equal(
      stateOf(root, 'worker', '%1', [pane('sh')]),
      'dead',
      'never believed over the pane',
    );
  });

  it('observe: a change is kept with the time it was first seen; the same state again writes nothing; a role not of the run is refused', () => {
    const wf = sampleWorkflow(root, 'a'.repeat(40), { status: 'ACTIVE' });
    const t1 = new Date('2030-01-01T00:00:01.000Z');
    const first = observeRole(wf, { role: 'worker', state: 'working', pane: '%1' }, t1).workflow!;
    assert.deepEqual(first.observations, {
      panes: { worker: { pane: '%1', status: 'working', seen_at: t1.toISOString() } },
      updated_at: t1.toISOString(),
    });
    assert.deepEqual(
      observeRole(first, { role: 'worker', state: 'working', pane: '%1' }, new Date()),
      {},
    );
    assert.throws(
      () => observeRole(wf, { role: 'intruder', state: 'idle', pane: '' }, t1),
      /observe: intruder is not a role of run/,
    );
    assert.throws(
      () =>
        observeRole(
          { ...wf, status: 'COMPLETED' },
          { role: 'worker', state: 'idle', pane: '' },
          t1,
        ),
      /terminal/,
    );
  });
});
