// Black-box: the built baton-scripted-agent as a run's worker. A real run (baton run start,
// lease, stage-start), the controller's run_stage request queued from the controller role's
// mailbox and delivered by a real handoffd; the agent, started in its own worktree with the
// agent commands on its PATH, works the stage and replies with `baton run reply`: the
// reply is kept as an artifact of the run and a run_result reaches the controller's inbox.
// Then the whole loop without a model: `baton run drive` and four scripted agents in tmux
// panes (woken by handoffd) take a run from its task through a question, a blocking
// finding, its validation and resolution, and a clean second review to the approval gate.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { initRolesAndMailboxes } from '../../lib/admin/init.js';
import { mailboxOf } from '../../lib/project/layout.js';
import { queueSystemHandoff } from '../../lib/handoff/systemSend.js';
import { parseEnvelope } from '../../lib/queue/envelope.js';
import { requestKey } from '../../lib/run/controller/controllerMail.js';
import { stagePrompt } from '../../lib/run/controller/controllerPrompts.js';
import { type Workflow } from '../../lib/run/record/workflow.js';
import { installCommandLinks } from '../../lib/swarm/commandLinks.js';
import { ensureWorktree } from '../../lib/swarm/worktrees.js';
import {
  endStarted,
  startHandoffd,
  startPanes,
  waitFor,
  type PaneProgram,
  type Started,
} from '../support/daemon.js';
import { BIN_DIR, commitIn, git, itemsIn } from '../support/project.js';
import { itInSoak } from '../support/tier.js';
import { batonRun, leaseFor, makeRunRepo, ok, runDirOf, startRun } from '../support/runs.js';

/** The run's default roles, each a window (the controller's is a mailbox only: no agent is started for it here). */
const CONF = ['worker', 'reviewer-a', 'reviewer-b', 'validator', 'controller']
  .map((role) => `window ${role} baton-scripted-agent ${role === 'controller' ? 'master' : role}\n`)
  .join('');

const GIT_IDENTITY = {
  GIT_AUTHOR_NAME: 't',
  GIT_AUTHOR_EMAIL: 't@t',
  GIT_COMMITTER_NAME: 't',
  GIT_COMMITTER_EMAIL: 't@t',
};

/** A started scripted agent: the child and what it printed so far. */
interface Agent {
  child: ChildProcess;
  stdout: () => string;
  exited: Promise<number | null>;
}

/** Starts `baton-scripted-agent args` as `role` in `cwd`, the agent commands of ROOT first on its PATH. */
function startAgent(root: string, role: string, cwd: string, args: string[] = []): Agent {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PATH: `${installCommandLinks(root, BIN_DIR)}:${process.env.PATH ?? ''}`,
    SWARMFORGE_ROLE: role,
    ...GIT_IDENTITY,
  };
  delete env.SWARMFORGE_ROOT;
  const child = spawn(process.execPath, [join(BIN_DIR, 'baton-scripted-agent.js'), ...args], {
    cwd,
    env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr!.on('data', (b: Buffer) => (out += b.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, stdout: () => out, exited };
}

/** Starts the controller, `baton run drive RUN-ID`, in ROOT. */
function startDrive(root: string, runId: string): Agent {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.SWARMFORGE_ROOT;
  delete env.SWARMFORGE_ROLE;
  const child = spawn(
    process.execPath,
    [join(BIN_DIR, 'baton.js'), 'run', 'drive', runId, '--poll-interval', '0.1'],
    { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  child.stdout!.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr!.on('data', (b: Buffer) => (out += b.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, stdout: () => out, exited };
}

describe('baton-scripted-agent in a run (built bins, real handoffd)', () => {
  let root: string;
  let agent: Agent | undefined;
  let drive: Agent | undefined;
  const started: Started = {};

  beforeEach(() => {
    root = makeRunRepo();
    fs.mkdirSync(join(root, 'swarmforge'));
    fs.writeFileSync(join(root, 'swarmforge', 'swarmforge.conf'), CONF);
    git(root, 'add', '-A');
    commitIn(root, 'the swarm');
    initRolesAndMailboxes(root);
  });

  afterEach(async () => {
    if (agent) {
      agent.child.stdin!.end();
      if (agent.child.exitCode === null)
        await waitFor(
          'the agent to end at the end of its stdin',
          () => agent!.child.exitCode !== null,
        ).catch(() => agent!.child.kill('SIGKILL'));
      await agent.exited;
      agent = undefined;
    }
    if (drive) {
      if (drive.child.exitCode === null) drive.child.kill('SIGTERM');
      await drive.exited;
      drive = undefined;
    }
    await endStarted(started);
    fs.rmSync(root, { recursive: true, force: true });
  });

  it("works a run_stage in its worktree and replies: the report becomes the run's artifact and a run_result reaches the controller", async () => {
    const runId = await startRun(root);
    const token = await leaseFor(root, runId);
    ok(batonRun(root, ['stage-start', runId, 'implementation', '--lease', token]));
    // (the record read as JSON: lib/run/runStore's generated validator does not load under tsx)
    const workflow = JSON.parse(
      fs.readFileSync(join(runDirOf(root, runId), 'workflow.json'), 'utf8'),
    ) as Workflow;
    const key = requestKey(workflow, 'work', 'implementation');
    await queueSystemHandoff(root, workflow.roles.controller, {
      to: [workflow.roles.worker],
      priority: '40',
      type: 'run_stage',
      headers: { run_id: runId, cycle: '1', stage: 'implementation', kind: 'work', key },
      body: stagePrompt(workflow, 'implementation'),
    });
    started.daemon = await startHandoffd(root);
    const worker = mailboxOf(root, 'worker');
    await waitFor(
      'the run_stage delivered to the worker',
      () => itemsIn(worker.inboxNew).length === 1,
    );

    const worktree = ensureWorktree(root, 'worker').path;
    const before = git(worktree, 'rev-parse', 'HEAD');
    agent = startAgent(root, 'worker', worktree);
    const artifact = join(runDirOf(root, runId), 'artifacts', 'implementation-c1-work.md');
    const controllerBox = mailboxOf(root, 'controller');
    await waitFor("the reply kept as the run's artifact", () => fs.existsSync(artifact));
    await waitFor(
      "a run_result in the controller's inbox",
      () => itemsIn(controllerBox.inboxNew).length === 1,
    );
    const printed = (what: string, pattern: RegExp) =>
      waitFor(what, () => pattern.test(agent!.stdout())).catch((err: Error) =>
        assert.fail(`${err.message}; the agent printed:\n${agent!.stdout()}`),
      );
    await printed('the worker to finish its task and go idle', /^\[worker\] idle \(COMPLETED: /m);

    const replyFile = join(worktree, '.baton', 'replies', `${runId}-implementation-c1-work.md`);
    assert.equal(
      fs.readFileSync(artifact, 'utf8'),
      fs.readFileSync(replyFile, 'utf8'),
      'the artifact is the file the agent wrote in its worktree',
    );
    assert.match(
      fs.readFileSync(artifact, 'utf8'),
      new RegExp(`^# Work report: run ${runId}, stage implementation, cycle 1\n`),
    );
    assert.equal(
      git(worktree, 'rev-parse', 'HEAD~1'),
      before,
      'the agent committed once in its worktree',
    );
    assert.equal(
      git(worktree, 'log', '-1', '--format=%s'),
      `worker: work of run ${runId} stage implementation cycle 1`,
    );

    const [name] = itemsIn(controllerBox.inboxNew);
    const { headers } = await parseEnvelope(fs.readFileSync(join(controllerBox.inboxNew, name!)));
    assert.deepEqual(
      {
        type: headers.type,
        from: headers.from,
        run_id: headers.run_id,
        stage: headers.stage,
        cycle: headers.cycle,
        kind: headers.kind,
        key: headers.key,
        artifact: headers.artifact,
      },
      {
        type: 'run_result',
        from: 'worker',
        run_id: runId,
        stage: 'implementation',
        cycle: '1',
        kind: 'work',
        key,
        artifact: 'artifacts/implementation-c1-work.md',
      },
    );
    assert.match(
      agent.stdout(),
      new RegExp(`^\\[worker\\] replied work for run ${runId} stage implementation cycle 1$`, 'm'),
    );
    assert.equal(itemsIn(worker.completed).length, 1, 'done_with_current completed the run_stage');
  });

  itInSoak(
    'the whole loop without a model: question and answer, a blocking finding validated and resolved, a clean second review, approval',
    'test/bin/swarm.test.ts, the run demo (a failed and a clean cycle with scripted agents); test/run/controller/driveStep.test.ts, a question',
    async () => {
      const runId = await startRun(root);
      const panes: Record<string, PaneProgram> = {};
      const agentArgs: Record<string, string[]> = {
        worker: ['--ask', 'Which database?'],
        'reviewer-a': ['--findings', '1=sec-1 Important the session token is logged|2='],
        'reviewer-b': ['--findings', '1=sec-1 Important the session token is logged|2='],
        validator: [],
      };
      for (const [role, args] of Object.entries(agentArgs)) {
        // (PATH through env(1): a pane's PATH is the tmux server's, whatever -e says)
        const path = `PATH=${installCommandLinks(root, BIN_DIR)}:${process.env.PATH ?? ''}`;
        panes[role] = {
          command: [
            'env',
            path,
            process.execPath,
            join(BIN_DIR, 'baton-scripted-agent.js'),
            ...args,
          ],
          cwd: ensureWorktree(root, role).path,
          env: { SWARMFORGE_ROLE: role, ...GIT_IDENTITY },
        };
      }
      started.panes = await startPanes(root, Object.keys(panes), panes);
      const { tmux, panes: paneIds } = started.panes as Awaited<ReturnType<typeof startPanes>>;
      const screen = (role: string) => tmux.capturePane(paneIds.get(role)!);
      for (const role of Object.keys(panes))
        await waitFor(`${role} to start`, async () =>
          /scripted agent ready/.test(await screen(role)),
        );
      started.daemon = await startHandoffd(root);
      drive = startDrive(root, runId);
      const screens = async () =>
        (
          await Promise.all(
            Object.keys(panes).map(async (role) => `--- ${role}:\n${(await screen(role)).trim()}`),
          )
        ).join('\n');
      const said = (what: string, pattern: RegExp) =>
        waitFor(what, () => pattern.test(drive!.stdout()), 60_000).catch(async (err: Error) =>
          assert.fail(
            `${err.message}; the controller printed:\n${drive!.stdout()}\n${await screens()}`,
          ),
        );

      await said(
        "the worker's question",
        /^QUESTION: from worker: Which database\? \(answer with: baton run answer /m,
      );
      ok(batonRun(root, ['answer', runId, 'use postgres']));
      await said('the approval gate', /^APPROVAL: run /m);
      const wf = JSON.parse(
        fs.readFileSync(join(runDirOf(root, runId), 'workflow.json'), 'utf8'),
      ) as Workflow;
      assert.deepEqual(
        [wf.status, wf.review_cycle, wf.blocking_findings],
        ['WAITING_FOR_HUMAN_APPROVAL', 2, 0],
      );
      assert.deepEqual(
        wf.findings.map((f) => [f.id, f.lane, f.cycle, f.severity, f.validation, f.resolved]),
        [
          [
            'sec-1',
            'structured',
            1,
            'Important',
            { valid: true, reason: 'reproduced by the scripted validator' },
            true,
          ],
        ],
        'the structured lane reported the finding (the independent lane none: --findings-lane defaults to structured)',
      );
      const artifacts = fs.readdirSync(join(runDirOf(root, runId), 'artifacts'));
      for (const name of [
        'implementation-c1-question.md',
        'implementation-c1-work.md',
        'review-c1-review-structured.txt',
        'review-c1-review-independent.txt',
        'review-c1-validation.json',
        'review-c1-resolution.json',
        'review-c2-review-structured.txt',
        'review-c2-review-independent.txt',
      ]) {
        assert.ok(artifacts.includes(name), `${name} in ${artifacts.join(', ')}`);
      }
      assert.match(await screen('worker'), /\[worker\] answer: use postgres/);
      assert.match(
        fs.readFileSync(
          join(runDirOf(root, runId), 'artifacts', 'implementation-c1-work.md'),
          'utf8',
        ),
        /was answered: use postgres/,
      );

      assert.equal(ok(batonRun(root, ['approve', runId])).status, 'COMPLETED');
      assert.equal(await drive.exited, 0, drive.stdout());
      assert.match(drive.stdout(), new RegExp(`^DONE: run ${runId} is COMPLETED$`, 'm'));
    },
  );
});
