import assert from 'node:assert/strict';
import { join } from 'node:path';
import { readAgentReport } from '../../lib/project/agentObservation.js';
import * as fs from 'node:fs';
import { stopAnswer, stopDecision, stopReason } from '../../lib/hooks/stop.js';
import { makeProject, placeItem, snapshot, tempDir } from '../support/project.js';

const INPUT = { cwd: '/repo', event: 'Stop', stopHookActive: false, sessionId: '' };
const BLOCK2 =
  '{"decision":"block","reason":"2 handoffs wait in the inbox of role reviewer and nothing is in process; ready_for_next claims them."}\n';

describe('lib/hooks/stop', () => {
  it('the reason is a fact: how many handoffs wait for the role, nothing in process, what claims them', () => {
    assert.equal(
      stopReason('QA', 1),
      '1 handoff waits in the inbox of role QA and nothing is in process; ready_for_next claims it.',
    );
    assert.equal(
      stopReason('QA', 4),
      '4 handoffs wait in the inbox of role QA and nothing is in process; ready_for_next claims them.',
    );
  });

  it('blocks only when mail waits, nothing is in process and stop_hook_active is not true', () => {
    const state = { role: 'reviewer', waiting: 2, inProcess: [] };
    assert.equal(stopDecision(INPUT, state), BLOCK2);
    assert.equal(stopDecision(INPUT, { ...state, waiting: 0 }), undefined);
    assert.equal(
      stopDecision(INPUT, { ...state, inProcess: [{ kind: 'handoff', path: '/x' }] }),
      undefined,
    );
    assert.equal(
      stopDecision(INPUT, { ...state, inProcess: [{ kind: 'batch', path: '/b' }] }),
      undefined,
    );
    assert.equal(stopDecision({ ...INPUT, stopHookActive: true, sessionId: '' }, state), undefined);
  });

  it('on a project: blocks with the count of inbox/new; the one file it writes is the role observation (working when blocked, idle when let go)', async () => {
    const p = makeProject();
    try {
      await placeItem(p.box('reviewer').inboxNew, {});
      await placeItem(p.box('reviewer').inboxNew, {});
      const before = snapshot(p.root);
      const input = { ...INPUT, cwd: p.root, sessionId: 'sess-9' };
      assert.equal(stopAnswer(input, { SWARMFORGE_ROLE: 'reviewer' }), BLOCK2);
      const agents = join(p.root, '.swarmforge', 'agents');
      const outsideAgents = (snap: Record<string, string>) =>
        Object.fromEntries(Object.entries(snap).filter(([k]) => !k.includes('.swarmforge/agents')));
      assert.deepEqual(outsideAgents(snapshot(p.root)), outsideAgents(before));
      assert.deepEqual(fs.readdirSync(agents), ['reviewer.json']);
      const report = readAgentReport(p.root, 'reviewer')!;
      assert.deepEqual(
        [report.state, report.event, report.session_id],
        ['working', 'Stop', 'sess-9'],
      );
      assert.equal(stopAnswer(input, { SWARMFORGE_ROLE: 'coder' }), undefined);
      assert.equal(readAgentReport(p.root, 'coder')!.state, 'idle');
    } finally {
      p.cleanup();
    }
  });

  it('with stop_hook_active true it does not even look for the project (nothing to fail on)', () => {
    const outside = tempDir();
    try {
      assert.equal(
        stopAnswer({ cwd: outside, event: 'Stop', stopHookActive: true, sessionId: '' }, {}),
        undefined,
      );
      assert.throws(
        () =>
          stopAnswer(
            { cwd: outside, event: 'Stop', stopHookActive: false, sessionId: '' },
            { SWARMFORGE_ROLE: 'coder' },
          ),
        /Cannot find SwarmForge project root/,
      );
    } finally {
      fs.rmSync(outside, { recursive: true, force: true });
    }
  });
});
