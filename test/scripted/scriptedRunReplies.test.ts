// The scripted agent's run replies: its options, what it reads from a request's task file
// and body, what it plans for each request, and the files it writes (checked with the
// runtime's own evidence parsers) in a real git worktree.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { queueSystemHandoff } from '../../lib/handoff/systemSend.js';
import {
  resolvePrompt,
  stagePrompt,
  validatePrompt,
} from '../../lib/run/controller/controllerPrompts.js';
import {
  parseLaneFile,
  parseResolutionFile,
  parseValidationFile,
} from '../../lib/run/gates/evidence.js';
import { type RunFinding } from '../../lib/run/record/workflow.js';
import {
  answerRunTask,
  isRunTask,
  laneText,
  listedFindingIds,
  makeReply,
  parseFindingsOption,
  planRunReply,
  readRunRequest,
  replyFileName,
  resolutionText,
  runReplyOptions,
  validationText,
  workReportText,
  type CommandResult,
  type RunAgentState,
  type RunCommands,
  type RunReplyOptions,
  type RunRequest,
} from '../../lib/scripted/scriptedRunReplies.js';
import { commitIn, git, tempDir } from '../support/project.js';
import { sampleWorkflow } from '../run/sampleWorkflow.js';

const RUN = 'run-20260102T030405Z-a1b2c3';
const NONE: RunReplyOptions = {
  ask: undefined,
  findings: {},
  findingsLane: 'structured',
  invalid: [],
  misbehave: {},
  slowMs: 0,
};

const finding = (
  id: string,
  severity: RunFinding['severity'],
  lane: RunFinding['lane'],
  title: string,
): RunFinding => ({
  id,
  lane,
  cycle: 1,
  severity,
  title,
  blocking: true,
  validation: null,
  resolved: false,
});

/** Refusal of a malformed option: a usage failure naming it. */
function refuses(argv: string[], pattern: RegExp): void {
  assert.throws(
    () => runReplyOptions(argv),
    (err: Error & { kind?: string }) => err.kind === 'usage' && pattern.test(err.message),
    argv.join(' '),
  );
}

/** A git repository with one commit (git identity in the environment of the test process). */
function repo(): string {
  const root = tempDir('baton-scripted-run-');
  git(root, 'init', '-q', '-b', 'main');
  commitIn(root, 'init');
  return root;
}

/** Real git (with an identity), a recording baton that answers `batonResult`. */
function commands(
  batonResult: CommandResult = { ok: true, output: '{}' },
): RunCommands & { baton: { args: string[]; cwd: string }[] } {
  const baton: { args: string[]; cwd: string }[] = [];
  return {
    baton,
    crash: () => {
      throw new Error('crashed');
    },
    run: (command, args, cwd) => {
      if (command === 'baton') {
        baton.push({ args, cwd });
        return batonResult;
      }
      try {
        return { ok: true, output: `${git(cwd, ...args)}\n` };
      } catch (err) {
        return { ok: false, output: String((err as { stderr?: Buffer }).stderr ?? err) };
      }
    },
  };
}

const request = (type: string, over: Partial<RunRequest> = {}): RunRequest => ({
  type,
  runId: RUN,
  stage: type === 'run_stage' ? 'implementation' : 'review',
  cycle: 1,
  body: '',
  ...over,
});

describe('lib/scripted/scriptedRunReplies', () => {
  describe('options', () => {
    it('--findings: cycles separated by |, findings by ;, an empty entry meaning none', () => {
      assert.deepEqual(parseFindingsOption('1=sec-1 Important the session token is logged|2='), {
        1: ['sec-1 Important the session token is logged'],
        2: [],
      });
      assert.deepEqual(parseFindingsOption(' 1 = a Critical x ; b Minor y  z |3=c Nit w|'), {
        1: ['a Critical x', 'b Minor y z'],
        3: ['c Nit w'],
      });
      assert.deepEqual(parseFindingsOption(''), {});
    });

    it('reads --ask, --findings, --findings-lane and --invalid; defaults: no question, no findings, structured lane, none invalid', () => {
      assert.deepEqual(runReplyOptions(['--next', 'qa']), { ...NONE, slowMs: 3000 });
      assert.deepEqual(
        runReplyOptions([
          '--ask',
          ' Which database? ',
          '--findings',
          '1=sec-1 Important t',
          '--findings-lane',
          'both',
          '--invalid',
          'a, b,,c',
          '--misbehave',
          'malformed:2,self-approve,silent,crash:3,slow,edit-while-validating',
          '--slow-ms',
          '250',
        ]),
        {
          ask: 'Which database?',
          findings: { 1: ['sec-1 Important t'] },
          findingsLane: 'both',
          invalid: ['a', 'b', 'c'],
          misbehave: {
            malformed: 2,
            'self-approve': 1,
            silent: 1,
            crash: 3,
            slow: 1,
            'edit-while-validating': 1,
          },
          slowMs: 250,
        },
      );
      assert.equal(runReplyOptions(['--findings-lane', 'independent']).findingsLane, 'independent');
    });

    it('refuses a malformed option (usage), naming it', () => {
      refuses(['--misbehave', 'sulky'], /--misbehave takes KIND\[:N\] .*not 'sulky'/);
      refuses(['--slow-ms', 'soon'], /--slow-ms takes a whole number, not 'soon'/);
      refuses(['--misbehave', 'stale:0'], /not 'stale:0'/);
      refuses(
        ['--findings', 'sec-1 Important t'],
        /--findings: 'sec-1 Important t' is not CYCLE=FINDINGS/,
      );
      refuses(['--findings', '0=a Minor t'], /not CYCLE=FINDINGS/);
      refuses(['--findings', '1=a Minor t|1='], /names cycle 1 twice/);
      refuses(['--findings', '1=a Minor'], /'a Minor' is not '<id> <Severity> <title>'/);
      refuses(
        ['--findings-lane', 'left'],
        /--findings-lane is structured, independent or both, not 'left'/,
      );
      refuses(['--ask', '  '], /--ask needs a question/);
      refuses(['--invalid'], /--invalid needs a value/);
      refuses(['--ask', '--findings', '1='], /--ask needs a value/);
    });

    it('knows the run request types, and only those', () => {
      for (const type of ['run_stage', 'run_review', 'run_validate', 'run_resolve', 'run_answer'])
        assert.equal(isRunTask(type), true, type);
      for (const type of ['run_result', 'note', 'git_handoff', 'review_result'])
        assert.equal(isRunTask(type), false, type);
    });
  });

  describe('reading a request', () => {
    let root: string;
    beforeEach(() => {
      root = repo();
    });
    afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

    const queued = (type: string, headers: Record<string, string>, body = 'b\n') =>
      queueSystemHandoff(root, 'controller', {
        to: ['worker'],
        priority: '40',
        type,
        headers,
        body,
      });

    it("takes the headers from the task file's front matter and the body after it", async () => {
      const wf = sampleWorkflow(root, git(root, 'rev-parse', 'HEAD'));
      const path = await queued(
        'run_stage',
        {
          run_id: RUN,
          cycle: '2',
          stage: 'implementation',
          kind: 'work',
          key: `${RUN}/work/implementation/c2/g0`,
        },
        stagePrompt(wf, 'implementation'),
      );
      assert.deepEqual(await readRunRequest(path), {
        type: 'run_stage',
        runId: RUN,
        stage: 'implementation',
        cycle: 2,
        lane: undefined,
        body: stagePrompt(wf, 'implementation'),
        key: `${RUN}/work/implementation/c2/g0`,
        from: 'controller',
      });
      const review = await readRunRequest(
        await queued('run_review', {
          run_id: RUN,
          cycle: '1',
          stage: 'review',
          kind: 'review',
          lane: 'independent',
        }),
      );
      assert.deepEqual(review, {
        type: 'run_review',
        runId: RUN,
        stage: 'review',
        cycle: 1,
        lane: 'independent',
        body: 'b\n',
        key: undefined,
        from: 'controller',
      });
      const answer = await readRunRequest(
        await queued('run_answer', { run_id: RUN, kind: 'answer' }, 'use postgres\n'),
      );
      assert.deepEqual(answer, {
        type: 'run_answer',
        runId: RUN,
        stage: '',
        cycle: 0,
        lane: undefined,
        body: 'use postgres\n',
        key: undefined,
        from: 'controller',
      });
    });

    it('says why when a header it needs is missing', async () => {
      assert.equal(
        await readRunRequest(await queued('run_stage', { cycle: '1', stage: 's' })),
        'run_stage without a run_id header',
      );
      assert.equal(
        await readRunRequest(await queued('run_stage', { run_id: RUN, stage: 's' })),
        'run_stage without a cycle header',
      );
      assert.equal(
        await readRunRequest(await queued('run_stage', { run_id: RUN, cycle: '1' })),
        'run_stage without a stage header',
      );
      assert.equal(
        await readRunRequest(
          await queued('run_review', { run_id: RUN, cycle: '1', lane: 'sideways' }),
        ),
        'run_review without a lane header (structured or independent)',
      );
    });

    it("lists the finding ids of the controller's validate and resolve bodies, each once (a finding of both lanes is listed twice)", () => {
      const wf = sampleWorkflow(root, git(root, 'rev-parse', 'HEAD'));
      const blocking = [
        finding('sec-1', 'Important', 'structured', 'the token is logged'),
        finding('arch.2', 'Critical', 'independent', 'a cycle: (a) -> (b)'),
        finding('sec-1', 'Important', 'independent', 'token logged'),
      ];
      assert.deepEqual(listedFindingIds(validatePrompt(wf, blocking)), ['sec-1', 'arch.2']);
      assert.deepEqual(listedFindingIds(resolvePrompt(wf, blocking.slice(1))), ['arch.2', 'sec-1']);
      assert.deepEqual(listedFindingIds(validatePrompt(wf, [])), []);
      assert.deepEqual(listedFindingIds('- not a finding\n-  x Minor (structured): t\n'), []);
    });
  });

  describe('what it replies', () => {
    it('run_stage: a work report after an empty commit', () => {
      const state: RunAgentState = { asked: false };
      const { notes, reply } = planRunReply(
        'worker',
        NONE,
        state,
        request('run_stage', { cycle: 2 }),
      );
      assert.deepEqual(notes, []);
      assert.deepEqual(reply, {
        kind: 'work',
        runId: RUN,
        stage: 'implementation',
        cycle: 2,
        fileName: `${RUN}-implementation-c2-work.md`,
        text: workReportText('worker', RUN, 'implementation', 2),
        commit: true,
      });
      assert.match(
        reply!.text,
        new RegExp(`^# Work report: run ${RUN}, stage implementation, cycle 2\n`),
      );
      assert.deepEqual(state, { asked: false });
    });

    it('--ask: the first run_stage gets the question; the answer brings the work of that stage; later stages are worked at once', () => {
      const options = { ...NONE, ask: 'Which database?' };
      const state: RunAgentState = { asked: false };
      const asked = planRunReply(
        'worker',
        options,
        state,
        request('run_stage', { stage: 'design' }),
      );
      assert.deepEqual(asked.reply, {
        kind: 'question',
        runId: RUN,
        stage: 'design',
        cycle: 1,
        fileName: `${RUN}-design-c1-question.md`,
        text: 'Which database?\n',
        commit: false,
      });
      assert.deepEqual(state, { asked: true, pending: { runId: RUN, stage: 'design', cycle: 1 } });
      const answered = planRunReply(
        'worker',
        options,
        state,
        request('run_answer', { cycle: 0, body: 'postgres,\nversion 16\n' }),
      );
      assert.deepEqual(answered.notes, ['answer: postgres, version 16']);
      assert.deepEqual(answered.reply, {
        kind: 'work',
        runId: RUN,
        stage: 'design',
        cycle: 1,
        fileName: `${RUN}-design-c1-work.md`,
        text: workReportText('worker', RUN, 'design', 1, 'postgres, version 16'),
        commit: true,
      });
      assert.match(answered.reply!.text, /was answered: postgres, version 16\n/);
      assert.deepEqual(state, { asked: true });
      assert.equal(
        planRunReply('worker', options, state, request('run_stage', { stage: 'implementation' }))
          .reply!.kind,
        'work',
      );
      assert.deepEqual(
        planRunReply('worker', options, state, request('run_answer', { body: 'late\n' })),
        { notes: ['answer: late', 'no question of mine is waiting for it'] },
      );
    });

    it("run_review: the cycle's configured findings, in the structured lane only unless --findings-lane says otherwise", () => {
      const findings = {
        1: ['sec-1 Important the session token is logged', 'style.3 Nit a name'],
        2: [],
      };
      const lanes = (findingsLane: RunReplyOptions['findingsLane'], cycle = 1) =>
        ['structured', 'independent'].map(
          (lane) =>
            planRunReply(
              'r',
              { ...NONE, findings, findingsLane },
              { asked: false },
              request('run_review', { lane, cycle }),
            ).reply!.text,
        );
      const withFindings = laneText('structured', 1, findings[1]);
      assert.equal(
        withFindings,
        'LANE: structured\nCYCLE: 1\nFINDING sec-1 Important the session token is logged\nFINDING style.3 Nit a name\n',
      );
      assert.deepEqual(lanes('structured'), [withFindings, 'LANE: independent\nCYCLE: 1\n']);
      assert.deepEqual(lanes('independent'), [
        'LANE: structured\nCYCLE: 1\n',
        laneText('independent', 1, findings[1]),
      ]);
      assert.deepEqual(lanes('both'), [withFindings, laneText('independent', 1, findings[1])]);
      assert.deepEqual(lanes('both', 2), [
        'LANE: structured\nCYCLE: 2\n',
        'LANE: independent\nCYCLE: 2\n',
      ]);
      assert.deepEqual(lanes('both', 3), [
        'LANE: structured\nCYCLE: 3\n',
        'LANE: independent\nCYCLE: 3\n',
      ]);
      const reply = planRunReply(
        'r',
        NONE,
        { asked: false },
        request('run_review', { lane: 'independent', cycle: 2 }),
      ).reply!;
      assert.deepEqual(
        { ...reply, text: '' },
        {
          kind: 'review',
          runId: RUN,
          stage: 'review',
          cycle: 2,
          lane: 'independent',
          fileName: `${RUN}-review-c2-review-independent.txt`,
          text: '',
          commit: false,
        },
      );
    });

    it('the lane files are what the runtime reads: the findings, the lane and the cycle it asked for', async () => {
      const report = await parseLaneFile(
        laneText('structured', 2, ['sec-1 Important the session token is logged']),
        { lane: 'structured', cycle: 2 },
      );
      assert.deepEqual(report, {
        findings: [{ id: 'sec-1', severity: 'Important', title: 'the session token is logged' }],
        blocking: 1,
      });
      assert.deepEqual(
        await parseLaneFile(laneText('independent', 1, []), { lane: 'independent', cycle: 1 }),
        { findings: [], blocking: 0 },
      );
      await assert.rejects(
        parseLaneFile(laneText('independent', 1, []), { lane: 'structured', cycle: 1 }),
        /mixed generations/,
      );
    });

    it('run_validate: every listed finding judged valid with a reason, the --invalid ones invalid; read by the runtime as such', async () => {
      const body = '- sec-1 Important (structured): t\n- arch-2 Critical (independent): u\n';
      const { reply } = planRunReply(
        'validator',
        { ...NONE, invalid: ['arch-2', 'other'] },
        { asked: false },
        request('run_validate', { cycle: 2, body }),
      );
      assert.deepEqual(
        { ...reply!, text: '' },
        {
          kind: 'validation',
          runId: RUN,
          stage: 'review',
          cycle: 2,
          fileName: `${RUN}-review-c2-validation.json`,
          text: '',
          commit: false,
        },
      );
      assert.equal(reply!.text, validationText(2, ['sec-1', 'arch-2'], ['arch-2', 'other']));
      assert.deepEqual(JSON.parse(reply!.text), {
        cycle: 2,
        findings: [
          { id: 'sec-1', valid: true, reason: 'reproduced by the scripted validator' },
          { id: 'arch-2', valid: false, reason: 'not reproduced by the scripted validator' },
        ],
      });
      assert.deepEqual(await parseValidationFile(reply!.text, 2), JSON.parse(reply!.text));
    });

    it('run_resolve: every listed finding resolved, after an empty commit; read by the runtime as such', async () => {
      const { reply } = planRunReply(
        'worker',
        NONE,
        { asked: false },
        request('run_resolve', {
          cycle: 1,
          body: 'Run x: resolve.\n- sec-1 Important (structured): t\nCommit the fixes\n',
        }),
      );
      assert.deepEqual(
        { ...reply!, text: '' },
        {
          kind: 'resolution',
          runId: RUN,
          stage: 'review',
          cycle: 1,
          fileName: `${RUN}-review-c1-resolution.json`,
          text: '',
          commit: true,
        },
      );
      assert.deepEqual(JSON.parse(reply!.text), {
        cycle: 1,
        resolved: [
          { id: 'sec-1', change: 'fixed by the scripted agent', tests: 'a regression test' },
        ],
      });
      assert.equal(reply!.text, resolutionText(1, ['sec-1']));
      assert.deepEqual(await parseResolutionFile(reply!.text, 1), JSON.parse(reply!.text));
      assert.deepEqual(JSON.parse(resolutionText(3, [])), { cycle: 3, resolved: [] });
    });

    it('names reply files by run, stage, cycle, kind and lane, with the extension of their format', () => {
      assert.equal(
        replyFileName('work', RUN, 'implementation', 1),
        `${RUN}-implementation-c1-work.md`,
      );
      assert.equal(
        replyFileName('question', RUN, 'implementation', 1),
        `${RUN}-implementation-c1-question.md`,
      );
      assert.equal(
        replyFileName('review', RUN, 'review', 3, 'structured'),
        `${RUN}-review-c3-review-structured.txt`,
      );
      assert.equal(
        replyFileName('validation', RUN, 'review', 1),
        `${RUN}-review-c1-validation.json`,
      );
      assert.equal(
        replyFileName('resolution', RUN, 'review', 1),
        `${RUN}-review-c1-resolution.json`,
      );
    });
  });

  describe('making a reply in a worktree', () => {
    let root: string;
    beforeEach(() => {
      root = repo();
    });
    afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

    it('commits (empty), writes the file under .baton/replies of the worktree (from a subfolder too), then runs baton run reply with it', () => {
      fs.mkdirSync(join(root, 'sub'));
      const before = git(root, 'rev-parse', 'HEAD');
      const cmds = commands();
      const plan = planRunReply('worker', NONE, { asked: false }, request('run_stage')).reply!;
      assert.equal(
        makeReply('worker', plan, join(root, 'sub'), cmds),
        `replied work for run ${RUN} stage implementation cycle 1`,
      );
      assert.equal(git(root, 'rev-parse', 'HEAD~1'), before, 'one new commit');
      assert.equal(
        git(root, 'log', '-1', '--format=%s'),
        `worker: work of run ${RUN} stage implementation cycle 1`,
      );
      assert.equal(git(root, 'diff', '--name-only', 'HEAD~1', 'HEAD'), '', 'an empty commit');
      const file = join(root, '.baton', 'replies', `${RUN}-implementation-c1-work.md`);
      assert.equal(
        fs.readFileSync(file, 'utf8'),
        workReportText('worker', RUN, 'implementation', 1),
      );
      assert.deepEqual(cmds.baton, [
        {
          args: [
            'run',
            'reply',
            RUN,
            '--kind',
            'work',
            '--stage',
            'implementation',
            '--cycle',
            '1',
            '--file',
            file,
          ],
          cwd: join(root, 'sub'),
        },
      ]);
      assert.match(
        git(root, 'status', '--porcelain', '--untracked-files=all'),
        /^\?\? \.baton\/replies\//,
        'the reply file stays untracked',
      );
    });

    it('a review: no commit, the lane file, --lane; a question: the question file and a waiting line', () => {
      const before = git(root, 'rev-parse', 'HEAD');
      const cmds = commands();
      const review = planRunReply(
        'reviewer-a',
        { ...NONE, findings: { 1: ['sec-1 Important t'] } },
        { asked: false },
        request('run_review', { lane: 'structured' }),
      ).reply!;
      assert.equal(
        makeReply('reviewer-a', review, root, cmds),
        `replied review for run ${RUN} stage review cycle 1 lane structured`,
      );
      const lane = join(root, '.baton', 'replies', `${RUN}-review-c1-review-structured.txt`);
      assert.equal(
        fs.readFileSync(lane, 'utf8'),
        'LANE: structured\nCYCLE: 1\nFINDING sec-1 Important t\n',
      );
      assert.equal(git(root, 'rev-parse', 'HEAD'), before, 'no commit for a review');
      const question = planRunReply(
        'worker',
        { ...NONE, ask: 'Which db?' },
        { asked: false },
        request('run_stage'),
      ).reply!;
      assert.equal(
        makeReply('worker', question, root, cmds),
        `replied question for run ${RUN} stage implementation cycle 1 (waiting for the answer): Which db?`,
      );
      assert.equal(
        fs.readFileSync(
          join(root, '.baton', 'replies', `${RUN}-implementation-c1-question.md`),
          'utf8',
        ),
        'Which db?\n',
      );
      assert.deepEqual(
        cmds.baton.map((c) => c.args.slice(3)),
        [
          [
            '--kind',
            'review',
            '--stage',
            'review',
            '--cycle',
            '1',
            '--lane',
            'structured',
            '--file',
            lane,
          ],
          [
            '--kind',
            'question',
            '--stage',
            'implementation',
            '--cycle',
            '1',
            '--file',
            join(root, '.baton', 'replies', `${RUN}-implementation-c1-question.md`),
          ],
        ],
      );
    });

    it('says what failed: a refused reply, a folder outside git (nothing written, no reply)', () => {
      const refused = commands({
        ok: false,
        output: 'baton run: run x is in cycle 2, not 1\nmore\n',
      });
      const plan = planRunReply(
        'worker',
        NONE,
        { asked: false },
        request('run_resolve', { body: '- a Critical (structured): t\n' }),
      ).reply!;
      assert.equal(
        makeReply('worker', plan, root, refused),
        `reply resolution for run ${RUN} stage review cycle 1 failed: baton run: run x is in cycle 2, not 1`,
      );
      const outside = tempDir('baton-not-git-');
      try {
        const cmds = commands();
        assert.match(
          makeReply('worker', plan, outside, cmds),
          new RegExp(
            `^reply resolution for run ${RUN} stage review cycle 1 failed: no git worktree here: `,
          ),
        );
        assert.deepEqual(cmds.baton, []);
        assert.equal(fs.existsSync(join(outside, '.baton')), false);
      } finally {
        fs.rmSync(outside, { recursive: true, force: true });
      }
    });

    it('answerRunTask: reads the task file, prints [role] lines; a file without its headers is ignored with the reason', async () => {
      const path = await queueSystemHandoff(root, 'controller', {
        to: ['validator'],
        priority: '40',
        type: 'run_validate',
        headers: { run_id: RUN, cycle: '1', stage: 'review', kind: 'validation' },
        body: '- sec-1 Important (structured): t\n',
      });
      const said: string[] = [];
      const cmds = commands();
      await answerRunTask(
        'validator',
        NONE,
        { asked: false },
        path,
        (l) => said.push(l),
        root,
        cmds,
      );
      assert.deepEqual(said, [
        `[validator] replied validation for run ${RUN} stage review cycle 1`,
      ]);
      assert.equal(
        fs.readFileSync(
          join(root, '.baton', 'replies', `${RUN}-review-c1-validation.json`),
          'utf8',
        ),
        validationText(1, ['sec-1'], []),
      );
      const bare = await queueSystemHandoff(root, 'controller', {
        to: ['validator'],
        priority: '40',
        type: 'run_validate',
        headers: { cycle: '1' },
        body: '',
      });
      await answerRunTask(
        'validator',
        NONE,
        { asked: false },
        bare,
        (l) => said.push(l),
        root,
        cmds,
      );
      assert.equal(said[1], `[validator] ignored ${bare}: run_validate without a run_id header`);
      await answerRunTask(
        'validator',
        NONE,
        { asked: false },
        join(root, 'gone.handoff'),
        (l) => said.push(l),
        root,
        cmds,
      );
      assert.match(
        said[2]!,
        /^\[validator\] ignored .*gone\.handoff: unreadable task file: ENOENT/,
      );
      assert.equal(cmds.baton.length, 1);
    });

    it('misbehaves as told, then behaves: silent (no reply), crash (killed, the request in process), slow (answers after --slow-ms), edit-while-validating (a tracked file changed)', async () => {
      const path = await queueSystemHandoff(root, 'controller', {
        to: ['validator'],
        priority: '40',
        type: 'run_validate',
        headers: { run_id: RUN, cycle: '1', stage: 'review', kind: 'validation', key: 'k1' },
        body: '- sec-1 Important (structured): t\n',
      });
      const options: RunReplyOptions = {
        ...NONE,
        misbehave: { silent: 1, crash: 1, slow: 1, 'edit-while-validating': 1 },
        slowMs: 50,
      };
      const said: string[] = [];
      const cmds = commands();
      const answer = () =>
        answerRunTask(
          'validator',
          options,
          { asked: false },
          path,
          (l) => said.push(l),
          root,
          cmds,
        );
      await answer();
      assert.deepEqual(said, ['[validator] silent: not answering run_validate k1']);
      assert.equal(cmds.baton.length, 0, 'silent: no reply');
      await assert.rejects(answer(), /crashed/);
      assert.equal(cmds.baton.length, 0, 'crash: no reply');
      fs.writeFileSync(join(root, 'notes.md'), 'notes\n');
      git(root, 'add', 'notes.md');
      git(root, 'commit', '-qm', 'notes');
      const started = Date.now();
      await answer();
      assert.ok(Date.now() - started >= 50, 'slow: it waited --slow-ms');
      assert.deepEqual(said.slice(1), [
        '[validator] slow: answering after 50 ms',
        '[validator] edited notes.md while validating',
        `[validator] replied validation for run ${RUN} stage review cycle 1`,
      ]);
      assert.match(git(root, 'status', '--porcelain', '--untracked-files=no'), /M notes.md/);
      await answer();
      assert.equal(said.length, 5, 'then it behaves: one line, the reply');
      assert.equal(cmds.baton.length, 2);
    });
  });
});
