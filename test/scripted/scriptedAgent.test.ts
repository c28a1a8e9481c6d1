// The scripted agent's parsing of the exact helper outputs (protocol §7) and its settings.
import assert from 'node:assert/strict';
import { batonVersion } from '../../lib/proc/version.js';
import {
  agentSettings,
  answerWithoutStarting,
  parseTasks,
  SCRIPTED_AGENT_USAGE,
} from '../../lib/scripted/scriptedAgent.js';

const TASK = [
  'TASK: /r/.swarmforge/handoffs/reviewer/inbox/in_process/50_20260615T140531Z_000042_from_coder_to_reviewer.handoff',
  'FROM: coder',
  'TYPE: git_handoff',
  'PRIORITY: 50',
  'TASK_NAME: task-1-cave-setup',
  'PAYLOAD:',
  'Re-read your role and constitution.',
  '',
  'merge_and_process coder a1b2c3d9e8',
  '',
].join('\n');

const BATCH_DIR = '/r/.swarmforge/handoffs/qa/inbox/in_process/batch_20260615T140600Z_000001';
const BATCH = [
  `BATCH: ${BATCH_DIR}`,
  'COUNT: 2',
  'PRIORITY: 50',
  '',
  'BATCH_ITEM: 1',
  `TASK: ${BATCH_DIR}/50_a.handoff`,
  'FROM: reviewer',
  'TYPE: git_handoff',
  'PRIORITY: 50',
  'TASK_NAME: task-1',
  'PAYLOAD:',
  'Re-read your role and constitution.',
  '',
  'merge_and_process reviewer 0123456789',
  '',
  'BATCH_ITEM: 2',
  `TASK: ${BATCH_DIR}/50_b.handoff`,
  'FROM: coder',
  'TYPE: note',
  'PRIORITY: 50',
  'PAYLOAD:',
  'Re-read your role and constitution.',
  '',
  'QA passed task-2',
  '',
].join('\n');

describe('lib/scripted/scriptedAgent', () => {
  describe('parseTasks', () => {
    it('reads a task-mode ready_for_next output', () => {
      assert.deepEqual(parseTasks(TASK), {
        batch: undefined,
        tasks: [
          {
            path: '/r/.swarmforge/handoffs/reviewer/inbox/in_process/50_20260615T140531Z_000042_from_coder_to_reviewer.handoff',
            type: 'git_handoff',
            taskName: 'task-1-cave-setup',
            payload: 'Re-read your role and constitution.\n\nmerge_and_process coder a1b2c3d9e8\n',
          },
        ],
      });
    });

    it('reads a batch output: the batch dir and every item, without the next BATCH_ITEM line', () => {
      const { batch, tasks } = parseTasks(BATCH);
      assert.equal(batch, BATCH_DIR);
      assert.deepEqual(
        tasks.map((t) => [t.path, t.type, t.taskName]),
        [
          [`${BATCH_DIR}/50_a.handoff`, 'git_handoff', 'task-1'],
          [`${BATCH_DIR}/50_b.handoff`, 'note', undefined],
        ],
      );
      assert.deepEqual(
        tasks.map((t) => t.payload),
        [
          'Re-read your role and constitution.\n\nmerge_and_process reviewer 0123456789\n',
          'Re-read your role and constitution.\n\nQA passed task-2\n',
        ],
      );
    });

    it('reads done_with_current output: COMPLETED lines are not tasks, the appended ready_for_next output is', () => {
      const done = `COMPLETED: /r/.swarmforge/handoffs/reviewer/inbox/completed/50_x.handoff\n${TASK}`;
      const parsed = parseTasks(done);
      assert.equal(parsed.tasks.length, 1);
      assert.equal(parsed.tasks[0]!.taskName, 'task-1-cave-setup');
      assert.deepEqual(parseTasks('COMPLETED: /r/completed/50_x.handoff\nNO_TASK\n'), {
        batch: undefined,
        tasks: [],
      });
      const doneBatch = `COMPLETED: /r/completed/batch_1/50_a.handoff\nCOMPLETED: /r/completed/batch_1/50_b.handoff\nCOMPLETED_BATCH: /r/completed/batch_1\n${BATCH}`;
      const next = parseTasks(doneBatch);
      assert.equal(next.batch, BATCH_DIR, 'COMPLETED_BATCH is not the batch in process');
      assert.equal(next.tasks.length, 2);
      assert.deepEqual(
        parseTasks(
          'COMPLETED: /r/completed/batch_1/50_a.handoff\nCOMPLETED_BATCH: /r/completed/batch_1\nNO_TASK\n',
        ),
        { batch: undefined, tasks: [] },
      );
    });

    it('finds nothing in NO_TASK or a refusal', () => {
      assert.deepEqual(parseTasks('NO_TASK\n'), { batch: undefined, tasks: [] });
      assert.deepEqual(
        parseTasks(
          'AMBIGUOUS_TASK_STATE: multiple tasks are already in process.\n- /r/a.handoff\n',
        ),
        { batch: undefined, tasks: [] },
      );
    });

    it('defaults a missing TYPE to unknown', () => {
      assert.equal(
        parseTasks('TASK: /r/x.handoff\nFROM: a\nPAYLOAD:\nb\n').tasks[0]!.type,
        'unknown',
      );
    });
  });

  describe('agentSettings', () => {
    const noRun = {
      ask: undefined,
      findings: {},
      findingsLane: 'structured',
      invalid: [],
      misbehave: {},
      slowMs: 3000,
    };

    it('reads --next, --final and --work-ms, and the role from SWARMFORGE_ROLE', () => {
      assert.deepEqual(
        agentSettings(['--next', 'reviewer', '--work-ms', '10'], { SWARMFORGE_ROLE: 'coder' }),
        {
          role: 'coder',
          next: 'reviewer',
          final: undefined,
          review: false,
          workMs: 10,
          run: noRun,
        },
      );
      assert.deepEqual(agentSettings(['--final', 'coder'], { SWARMFORGE_ROLE: 'qa' }), {
        role: 'qa',
        next: undefined,
        final: 'coder',
        review: false,
        workMs: 150,
        run: noRun,
      });
    });

    it('defaults to role "agent" and 150 ms of work', () => {
      assert.deepEqual(agentSettings([], {}), {
        role: 'agent',
        next: undefined,
        final: undefined,
        review: false,
        workMs: 150,
        run: noRun,
      });
      assert.equal(agentSettings(['--review'], { SWARMFORGE_ROLE: 'coder' }).review, true);
    });

    it('reads the run options --ask, --findings, --findings-lane, --invalid, and refuses a malformed one', () => {
      const argv = [
        '--ask',
        'Which database?',
        '--findings',
        '1=sec-1 Important the session token is logged|2=',
        '--findings-lane',
        'both',
        '--invalid',
        'sec-1',
      ];
      assert.deepEqual(agentSettings(argv, { SWARMFORGE_ROLE: 'worker' }).run, {
        ask: 'Which database?',
        findings: { 1: ['sec-1 Important the session token is logged'], 2: [] },
        findingsLane: 'both',
        invalid: ['sec-1'],
        misbehave: {},
        slowMs: 3000,
      });
      assert.throws(
        () => agentSettings(['--findings-lane', 'all'], {}),
        /--findings-lane is structured, independent or both, not 'all'/,
      );
      assert.throws(
        () => agentSettings(['--findings', '1=sec-1'], {}),
        /'sec-1' is not '<id> <Severity> <title>'/,
      );
    });
  });

  describe('answerWithoutStarting', () => {
    it('--help or -h: the usage; else --version: the package version; else nothing (the agent starts)', () => {
      for (const argv of [
        ['--help'],
        ['-h'],
        ['--next', 'qa', '--help'],
        ['--help', '--version'],
      ]) {
        assert.equal(answerWithoutStarting(argv), `${SCRIPTED_AGENT_USAGE}\n`, argv.join(' '));
      }
      assert.equal(answerWithoutStarting(['--version']), `${batonVersion()}\n`);
      assert.equal(answerWithoutStarting(['--next', 'qa', '--work-ms', '5']), undefined);
      assert.match(
        SCRIPTED_AGENT_USAGE,
        /^Usage: baton-scripted-agent \[--next ROLE\] \[--final ROLE\]\s+\[--review\] \[--work-ms N\]\n/,
      );
      for (const option of [
        '[--ask QUESTION]',
        "[--findings 'CYCLE=ID SEVERITY TITLE;...|CYCLE=...']",
        '[--findings-lane structured|independent|both]',
        '[--invalid ID,ID]',
      ]) {
        assert.ok(
          SCRIPTED_AGENT_USAGE.split('\n\n')[0]!.includes(option),
          `the usage line names ${option}`,
        );
      }
      for (const type of [
        'run_stage',
        'run_review',
        'run_validate',
        'run_resolve',
        'run_answer',
        'baton run reply',
      ])
        assert.ok(SCRIPTED_AGENT_USAGE.includes(type), type);
    });
  });
});
