// lib/run/record/agentsView: each agent role with its observed state and since when (the
// record's observations), and what the controller awaits of it with its deadline (its phase
// file); unknown for a role never observed; nothing awaited once the run is not ACTIVE.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { runPathsOf } from '../../../lib/project/layout.js';
import { emptyPhase, writePhase } from '../../../lib/run/controller/controllerPhase.js';
import { agentsViewOf } from '../../../lib/run/record/agentsView.js';
import { sampleWorkflow } from '../sampleWorkflow.js';
import { tempDir } from '../../support/project.js';

describe('lib/run/record/agentsView', () => {
  let root: string;
  beforeEach(() => (root = tempDir()));
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  it('state and since from the observations; the awaited request with its deadline from the phase', () => {
    const wf = sampleWorkflow(root, 'a'.repeat(40), { status: 'ACTIVE', phase: 'REVIEW_PENDING' });
    wf.observations.panes['reviewer-a'] = {
      pane: '%3',
      status: 'dead',
      seen_at: '2030-01-01T00:00:05.000Z',
    };
    const paths = runPathsOf(root, wf.run_id);
    const phase = emptyPhase(new Date());
    phase.awaiting = [
      {
        role: 'reviewer-a',
        kind: 'review',
        stage: 'review',
        cycle: 2,
        lane: 'structured',
        key: 'k',
        generation: 2,
        sent_at: '2030-01-01T00:00:00.000Z',
        deadline_at: '2030-01-01T00:30:00.000Z',
        attempts: 1,
      },
    ];
    fs.mkdirSync(paths.dir, { recursive: true });
    writePhase(paths, phase);
    const views = agentsViewOf(wf, paths);
    assert.deepEqual(
      views.map((v) => v.line),
      [
        `${wf.roles.worker}: unknown`,
        'reviewer-a: dead since 2030-01-01T00:00:05.000Z; awaiting review cycle 2 since ' +
          '2030-01-01T00:00:00.000Z, deadline 2030-01-01T00:30:00.000Z',
        `${wf.roles.reviewers[1]}: unknown`,
        `${wf.roles.validator}: unknown`,
      ],
    );
    assert.deepEqual(views[1]!.awaiting, {
      kind: 'review',
      cycle: 2,
      generation: 2,
      attempts: 1,
      since: '2030-01-01T00:00:00.000Z',
      deadline: '2030-01-01T00:30:00.000Z',
    });
    assert.equal(views[1]!.pane, '%3');
    const blocked = agentsViewOf({ ...wf, status: 'BLOCKED' }, paths);
    assert.equal(blocked[1]!.awaiting, null, 'nothing awaited of a run that is not ACTIVE');
  });
});
