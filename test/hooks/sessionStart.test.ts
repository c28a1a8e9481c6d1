import assert from 'node:assert/strict';
import { readAgentReport } from '../../lib/project/agentObservation.js';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { runPathsOf } from '../../lib/project/layout.js';
import {
  sessionStartAnswer,
  sessionStartContext,
  sessionStartOutput,
} from '../../lib/hooks/sessionStart.js';
import { writeWorkflow } from '../../lib/run/record/runStore.js';
import { makeProject, placeItem, snapshot, type Project } from '../support/project.js';
import { sampleWorkflow } from '../run/sampleWorkflow.js';

const STATE = { root: '/repo', role: 'reviewer', mode: 'task', waiting: 0, inProcess: [] };

describe('lib/hooks/sessionStart', () => {
  it('states the role, what is in process and what waits, one fact a line', () => {
    assert.equal(
      sessionStartContext(STATE, [], []),
      [
        'Baton: this session acts as role reviewer (receive mode task) of the project at /repo.',
        'In process: nothing.',
        'No handoff waits in inbox/new.',
      ].join('\n'),
    );
    assert.equal(
      sessionStartContext({ ...STATE, waiting: 1 }, ['handoff /h (note from coder)'], [])
        .split('\n')
        .slice(1)
        .join('\n'),
      'In process: handoff /h (note from coder).\n1 handoff waits in inbox/new.',
    );
    assert.equal(
      sessionStartContext({ ...STATE, waiting: 3 }, ['a', 'b'], [])
        .split('\n')
        .slice(1)
        .join('\n'),
      'In process: a; b.\n3 handoffs wait in inbox/new.',
    );
  });

  it('adds one line per unfinished run: id, status, phase and the active stage when there is one', () => {
    const runs = [
      {
        runId: 'run-20260101T000000Z-aaaaaa',
        status: 'ACTIVE' as const,
        phase: 'STAGE_ACTIVE' as const,
        activeStage: 'implementation',
      },
      {
        runId: 'run-20260102T000000Z-bbbbbb',
        status: 'PAUSED' as const,
        phase: 'IDLE' as const,
        activeStage: null,
      },
    ];
    assert.deepEqual(sessionStartContext(STATE, [], runs).split('\n').slice(3), [
      'Unfinished run run-20260101T000000Z-aaaaaa: status ACTIVE, phase STAGE_ACTIVE, active stage implementation.',
      'Unfinished run run-20260102T000000Z-bbbbbb: status PAUSED, phase IDLE.',
    ]);
  });

  it('renders control characters from disk printable (a project path cannot add lines to the context)', () => {
    assert.equal(
      sessionStartContext({ ...STATE, root: '/re\npo' }, [], []).split('\n')[0],
      'Baton: this session acts as role reviewer (receive mode task) of the project at /re\\npo.',
    );
  });

  it('the output is one JSON line: hookSpecificOutput with the event name and additionalContext, nothing else (Codex allows no other field)', () => {
    assert.equal(
      sessionStartOutput('a\nb'),
      '{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"a\\nb"}}\n',
    );
  });

  describe('on a project', () => {
    let p: Project;
    beforeEach(() => {
      p = makeProject();
    });
    afterEach(() => p.cleanup());
    const context = async (role: string) =>
      (
        JSON.parse(
          await sessionStartAnswer(
            { cwd: p.root, event: 'SessionStart', stopHookActive: false, sessionId: '' },
            { SWARMFORGE_ROLE: role },
          ),
        ) as { hookSpecificOutput: { additionalContext: string } }
      ).hookSpecificOutput.additionalContext.split('\n');

    it('describes a handoff in process by path, type, sender and task name', async () => {
      const path = await placeItem(p.box('reviewer').inProcess, {
        type: 'git_handoff',
        task: 'task-1-cave-setup',
        commit: 'a1b2c3d9e8',
      });
      assert.equal(
        (await context('reviewer'))[1],
        `In process: handoff ${path} (git_handoff from coder, task task-1-cave-setup).`,
      );
    });

    it('describes a batch in process by path and size, and an unreadable handoff by path and problem', async () => {
      const batch = join(p.box('QA').inProcess, 'batch_20260101T000000Z_000001');
      await placeItem(batch, {});
      await placeItem(batch, {});
      assert.equal((await context('QA'))[1], `In process: batch ${batch} (2 handoffs).`);
      const bad = join(p.box('coder').inProcess, '50_bad.handoff');
      fs.writeFileSync(bad, 'no front matter\n');
      assert.match(
        (await context('coder'))[1]!,
        new RegExp(`^In process: handoff ${bad} \\(unreadable: .+\\)\\.$`),
      );
    });

    it('reports the agent idle in its role observation file (the one file it writes)', async () => {
      await context('coder');
      const report = readAgentReport(p.root, 'coder')!;
      assert.deepEqual([report.state, report.event], ['idle', 'SessionStart']);
    });

    it('lists the unfinished runs of the project, and reads only (but for the observation)', async () => {
      const wf = sampleWorkflow(p.root, 'a'.repeat(40), {
        status: 'ACTIVE',
        phase: 'STAGE_ACTIVE',
        active_stage: 'implementation',
      });
      writeWorkflow(runPathsOf(p.root, wf.run_id).workflow, wf);
      await context('coder');
      const before = snapshot(p.root);
      assert.equal(
        (await context('coder'))[3],
        `Unfinished run ${wf.run_id}: status ACTIVE, phase STAGE_ACTIVE, active stage implementation.`,
      );
      const report = (snap: Record<string, string>) =>
        Object.fromEntries(Object.entries(snap).filter(([k]) => !k.endsWith('agents/coder.json')));
      assert.deepEqual(report(snapshot(p.root)), report(before));
    });
  });
});
