// Black-box, end to end: `baton run up` starts scripted agents for the worker, the two
// reviewers and the validator, and the run's controller (`baton run drive`), in a real tmux
// server on the project's private socket, with a real handoffd (docs/runtime.md §9–10).
// Paths: request-changes reopens the first stage of the same run; the cycle limit blocks the
// run and the monitor shows why while every pane is idle; a worker's question waits for a
// person's answer, which reaches the same worker; a stale reply of cycle 1 arriving in
// cycle 2 is rejected and logged; a controller SIGKILLed at each of its steps and restarted
// with --reclaim-stale completes the run, sending no request twice and using no reply twice.
// `npm test` keeps the paths no faster test shows end to end and one of each §11 fault (a
// misbehaving agent, bounded unusable replies, a missed deadline, the validator's edit, a kill
// after a rejection); the others (itInSoak, casesOf) run in `npm run soak`, each naming the
// test of `npm test` that shows its behaviour.
import { casesOf, itInSoak } from '../support/tier.js';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { queueSystemHandoff } from '../../lib/handoff/systemSend.js';
import { Tmux } from '../../lib/adapters/tmux.js';
import { processRunning } from '../../lib/fsx/processIdentity.js';
import { waitFor } from '../support/daemon.js';
import { tearDownSwarm } from '../support/deadProcess.js';
import { BIN_DIR, runBin } from '../support/project.js';
import { batonRun, ok, runDirOf, runSwarmProject, startRun } from '../support/runs.js';

/** swarmforge.conf of a run's roles: scripted agents, the reviewer-a options given. */
const confWith = (reviewerA: string, worker = '') =>
  [
    `window worker baton-scripted-agent master ${worker}`,
    `window reviewer-a baton-scripted-agent master ${reviewerA}`,
    'window reviewer-b baton-scripted-agent master',
    'window validator baton-scripted-agent master',
  ].join('\n') + '\n';

const statusOf = (root: string, runId: string) => ok(batonRun(root, ['status', runId]));
const recordOf = (root: string, runId: string) =>
  JSON.parse(fs.readFileSync(join(runDirOf(root, runId), 'workflow.json'), 'utf8')) as {
    status: string;
    phase: string;
    history: { action: string; detail: string }[];
    review_cycle: number;
  };
// The waits read the record (renamed into place whole, so never torn) rather than start
// `baton run status` many times a second; what a test asserts about a status goes through it.
const untilStatus = (root: string, runId: string, status: string, ms = 60_000) =>
  waitFor(`run ${status}`, () => recordOf(root, runId).status === status, ms);
/** Every request key the controller queued, in the order of its sent/ folder. */
const requestKeys = (root: string) => {
  const sent = join(root, '.swarmforge', 'handoffs', 'controller', 'sent');
  return fs
    .readdirSync(sent)
    .map((n) => /\nkey: (\S+)\n/.exec(fs.readFileSync(join(sent, n), 'utf8'))?.[1])
    .filter((k): k is string => k !== undefined);
};

/** The controller a test started (crashThenRestart), and what it wrote on stderr. */
let driver: ChildProcess | undefined;
let driverStderr = () => '(none)';

/**
 * `baton run up` with the controller to die at `point`, then, once its lease is stale, a new
 * `baton run drive --reclaim-stale`; its stderr is kept for a failure message.
 */
async function crashThenRestart(
  root: string,
  runId: string,
  point: string,
  driveArgs: string[] = [],
) {
  ok(batonRun(root, ['up', runId, ...driveArgs], { BATON_CRASH_AT: point }));
  await waitFor(
    `the controller killed at ${point}`,
    () => {
      // Its process gone, not only its lease stale: a status read between the lease's write
      // and its history entry (one locked mutation, read without the lock) sees the lease
      // unrecorded, so stale, while the controller still runs toward its crash point.
      const s = statusOf(root, runId);
      return s.lease.held && s.lease.stale && !processRunning(s.lease.pid);
    },
    60_000,
  );
  const args = ['run', 'drive', runId, '--reclaim-stale', '--poll-interval', '0.2', ...driveArgs];
  driver = spawn(process.execPath, [join(BIN_DIR, 'baton.js'), ...args], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  driver.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  driverStderr = () => stderr;
  return { stderr: () => stderr };
}

describe('baton run drive end to end in tmux (built bins)', function () {
  this.timeout(180_000);
  let root: string;
  afterEach(function () {
    // A failure shows what the controllers and handoffd saw.
    if (this.currentTest?.state === 'failed') {
      const runs = join(root, '.swarmforge', 'runs');
      for (const id of fs.existsSync(runs) ? fs.readdirSync(runs) : []) {
        const dir = join(runs, id, 'controller');
        for (const f of fs.existsSync(dir) ? fs.readdirSync(dir) : [])
          process.stderr.write(
            `${id}/controller/${f}:\n${fs.readFileSync(join(dir, f), 'utf8')}\n`,
          );
      }
      const log = join(root, '.swarmforge', 'daemon', 'handoffd.log');
      if (fs.existsSync(log)) process.stderr.write(fs.readFileSync(log, 'utf8').slice(-4000));
      process.stderr.write(`restarted controller's stderr:\n${driverStderr()}\n`);
    }
    driver?.kill('SIGKILL');
    driver = undefined;
    driverStderr = () => '(none)';
    tearDownSwarm(root);
  });

  it('request-changes reopens the first stage of the same run in the next cycle; a stale cycle-1 reply arriving in cycle 2 is rejected and logged', async () => {
    root = runSwarmProject(confWith(''));
    const runId = await startRun(root);
    ok(batonRun(root, ['up', runId]));
    await untilStatus(root, runId, 'WAITING_FOR_HUMAN_APPROVAL');
    ok(batonRun(root, ['request-changes', runId, '--note', 'rename the flag']));
    await waitFor('cycle 2 under way', () => {
      const record = recordOf(root, runId);
      return record.review_cycle === 2 && record.phase !== 'IDLE';
    });
    await queueSystemHandoff(root, 'reviewer-a', {
      to: ['controller'],
      priority: '40',
      type: 'run_result',
      headers: {
        run_id: runId,
        stage: 'review',
        cycle: '1',
        kind: 'review',
        lane: 'structured',
        key: `${runId}/review/review/c1/g0/structured`,
        artifact: 'artifacts/review-c1-review-structured.txt',
        sha256: '0'.repeat(64),
      },
      body: 'a late reply\n',
    });
    await waitFor('the stale reply rejected', () =>
      /REJECTED: run_result .* cycle 1\)/.test(
        fs.readFileSync(join(runDirOf(root, runId), 'controller', 'controller.log'), 'utf8'),
      ),
    );
    await untilStatus(root, runId, 'WAITING_FOR_HUMAN_APPROVAL');
    assert.equal(statusOf(root, runId).review_cycle, 2);
    ok(batonRun(root, ['approve', runId]));
    const actions = recordOf(root, runId).history.map((h) => h.action);
    assert.deepEqual(
      actions.filter((a) => a === 'stage-start').length,
      2,
      'the first stage ran again',
    );
    assert.ok(actions.indexOf('request-changes') < actions.lastIndexOf('stage-start'));
    assert.equal(
      new Set(requestKeys(root)).size,
      requestKeys(root).length,
      'no request sent twice',
    );
  });

  it('misbehaving agents (a self-approval, hand-queued unusable replies, a stale reply) are refused or rejected, and the run still reaches the owner', async () => {
    root = runSwarmProject(
      confWith(
        '--findings "1=sec-1 Important the token is logged" --misbehave malformed',
        '--misbehave self-approve,malformed,stale',
      ),
    );
    const runId = await startRun(root);
    ok(batonRun(root, ['up', runId]));
    await untilStatus(root, runId, 'WAITING_FOR_HUMAN_APPROVAL', 90_000);
    const log = fs.readFileSync(
      join(runDirOf(root, runId), 'controller', 'controller.log'),
      'utf8',
    );
    assert.match(log, / REJECTED unusable \(1 of 3\): work of worker for cycle 1: /);
    assert.match(log, / REJECTED unusable \(1 of 3\): review structured of reviewer-a /);
    const sent = join(root, '.swarmforge', 'handoffs', 'controller', 'sent');
    const rejection = fs
      .readdirSync(sent)
      .map((n) => fs.readFileSync(join(sent, n), 'utf8'))
      .find((t) => /\ntype: run_rejected\n/.test(t) && /\nto: reviewer-a\n/.test(t))!;
    for (const header of [
      `run_id: ${runId}`,
      'stage: review',
      'cycle: 1',
      'kind: review',
      `reply_key: ${runId}/review/review/c1/g0/structured`,
    ])
      assert.ok(rejection.includes(`\n${header}\n`), `${header} in\n${rejection}`);
    assert.match(rejection, /\nrejected: \S+\n/);
    assert.match(
      rejection,
      /was not used: its artifact artifacts\/\S+ is missing or not a regular file/,
    );
    assert.match(rejection, /Expected: JSON \{lane, cycle, findings: /);
    assert.match(
      rejection,
      new RegExp(
        `\n  baton run reply ${runId} --kind review --stage review --cycle 1 --lane structured --file FILE\n`,
      ),
    );
    const record = recordOf(root, runId);
    assert.equal(
      record.history.filter((h) => h.action === 'approve').length,
      0,
      "the worker's approve was refused",
    );
    const artifacts = (
      JSON.parse(fs.readFileSync(join(runDirOf(root, runId), 'workflow.json'), 'utf8')) as {
        artifacts: { path: string; type: string }[];
      }
    ).artifacts;
    assert.ok(
      artifacts.some((a) => a.type === 'work' && /-c1-work-a2\./.test(a.path)),
      `the work is the second attempt: ${artifacts.map((a) => a.path).join(' ')}`,
    );
    const socket = fs.readFileSync(join(root, '.swarmforge', 'tmux-socket'), 'utf8').trim();
    const workerPane = /^worker\t(\S+)$/m.exec(
      fs.readFileSync(join(root, '.swarmforge', 'panes.tsv'), 'utf8'),
    )![1]!;
    const screen = await new Tmux(socket).run([
      'capture-pane',
      '-p',
      '-J',
      '-S',
      '-500',
      '-t',
      workerPane,
    ]);
    assert.match(
      screen,
      /tried baton run approve \S+: baton run approve: approve is the owner's decision and cannot be made from an agent's pane \(role worker\)/,
    );
    assert.match(screen, /first for another cycle: reply work .* failed: .*is in cycle 1, not 2/);
    ok(batonRun(root, ['approve', runId]));
    const approve = recordOf(root, runId).history.filter((h) => h.action === 'approve');
    assert.deepEqual(
      approve.map((h) => h.detail),
      ['channel=cli'],
    );
  });

  it('a slow reviewer: its deadline is missed once (a provider failure), the request is re-sent as generation 2 with the same key, the late reply to generation 1 is rejected as stale, generation 2 is answered, and the run reaches the owner', async () => {
    // Generation 2 is sent 1 s after the 5 s deadline (the backoff) and awaited for 5 s: the
    // late answer to generation 1 (at 8 s) comes 2 s after the re-send, and leaves generation 2
    // 3 s for a normal answer even on a loaded machine.
    root = runSwarmProject(confWith('--misbehave slow --slow-ms 8000'));
    const runId = await startRun(root);
    ok(batonRun(root, ['up', runId, '--reply-timeout', 'review=5s']));
    await untilStatus(root, runId, 'WAITING_FOR_HUMAN_APPROVAL', 90_000);
    const log = fs.readFileSync(
      join(runDirOf(root, runId), 'controller', 'controller.log'),
      'utf8',
    );
    assert.match(
      log,
      / DEADLINE: reviewer-a did not answer review for cycle 1 within 5s \(1 of 3\)/,
    );
    assert.match(log, / RESEND: review to reviewer-a as generation 2 /);
    assert.match(
      log,
      / REJECTED unusable \(1 of 3\): review structured of reviewer-a for cycle 1: it answers generation 1 of the request, and generation 2 is awaited/,
    );
    const sent = join(root, '.swarmforge', 'handoffs', 'controller', 'sent');
    const reviews = fs
      .readdirSync(sent)
      .map((n) => fs.readFileSync(join(sent, n), 'utf8'))
      .filter((t) => /\ntype: run_review\n/.test(t) && /\nlane: structured\n/.test(t));
    assert.deepEqual(
      reviews.map((t) => /\ngeneration: (\d+)\n/.exec(t)?.[1]),
      ['1', '2'],
      'generation 1, then 2, each once',
    );
    assert.equal(new Set(reviews.map((t) => /\nkey: (\S+)\n/.exec(t)?.[1])).size, 1, 'one key');
    const provider = recordOf(root, runId).history.filter((h) => h.action === 'provider');
    assert.match(provider[0]!.detail, /^reviewer-a failed \(attempt 1 of 3\): no review reply/);
    assert.equal(provider.at(-1)!.detail, 'reviewer-a succeeded');
  });

  it('a worker that crashes: seen dead within a poll (monitor and status), logged agent-dead, and after its deadlines the run blocks naming the worker and the fault', async () => {
    root = runSwarmProject(confWith('', '--misbehave crash'));
    const runId = await startRun(root);
    ok(batonRun(root, ['up', runId, '--reply-timeout', 'work=2s']));
    const monitorAgents = () =>
      (
        JSON.parse(runBin('baton', ['monitor', '--once', '--json'], { cwd: root }).stdout) as {
          runs: { agents: { role: string; state: string; line: string }[] }[];
        }
      ).runs[0]?.agents ?? [];
    // Awaited in the controller's log (a file read), then asked of the monitor once: a
    // `baton monitor` per poll would cost a process each time.
    const controllerLog = join(runDirOf(root, runId), 'controller', 'controller.log');
    await waitFor('the worker seen dead', () =>
      (fs.existsSync(controllerLog) ? fs.readFileSync(controllerLog, 'utf8') : '').includes(
        ' agent-dead role=worker\n',
      ),
    );
    assert.ok(monitorAgents().some((a) => a.role === 'worker' && a.state === 'dead'));
    const worker = (statusOf(root, runId).agents as { role: string; line: string }[])[0]!;
    assert.match(
      worker.line,
      /^worker: dead since \S+; awaiting work cycle 1 since \S+, deadline \S+$/,
    );
    assert.match(
      runBin('baton', ['monitor', '--once'], { cwd: root }).stdout,
      /\n    worker: dead since \S+; awaiting work cycle 1 since /,
    );
    await untilStatus(root, runId, 'BLOCKED', 60_000);
    assert.equal(
      statusOf(root, runId).block_reason,
      'worker did not answer work for cycle 1: 3 deadlines of 2s missed',
    );
    const log = fs.readFileSync(controllerLog, 'utf8');
    assert.match(log, / agent-dead role=worker\n/);
    assert.match(log, / agent-dead role=worker \(its work for cycle 1 is due\)/);
    const failures = recordOf(root, runId).history.filter((h) => h.action === 'provider');
    assert.equal(failures.length, 2, 'two misses recorded as provider failures, the third blocks');
  });

  it('a worker that crashes, with --restart-dead (given to run up): restarted once in its pane at its deadline; the re-sent request reaches the new session and the run reaches the owner', async () => {
    root = runSwarmProject(confWith('', '--misbehave crash'));
    const runId = await startRun(root);
    ok(batonRun(root, ['up', runId, '--reply-timeout', 'work=4s', '--restart-dead']));
    const controllerLog = join(runDirOf(root, runId), 'controller', 'controller.log');
    const logText = () =>
      fs.existsSync(controllerLog) ? fs.readFileSync(controllerLog, 'utf8') : '';
    await waitFor('the worker seen dead', () => logText().includes(' agent-dead role=worker\n'));
    // The owner mends the worker's launch line before its deadline: baton restart types the
    // line swarmforge.conf has then (the scripted agent's fault count is its process's own).
    const conf = join(root, 'swarmforge', 'swarmforge.conf');
    fs.writeFileSync(conf, fs.readFileSync(conf, 'utf8').replace(' --misbehave crash', ''));
    await untilStatus(root, runId, 'WAITING_FOR_HUMAN_APPROVAL', 90_000);
    const restarts = logText().match(/ agent-restarted role=worker \(restarted, pid \d+\)\n/g);
    assert.equal(restarts?.length, 1, logText());
    const failures = recordOf(root, runId).history.filter((h) => h.action === 'provider');
    assert.equal(failures.filter((h) => /no work reply/.test(h.detail)).length, 1);
    const phase = JSON.parse(
      fs.readFileSync(join(runDirOf(root, runId), 'controller', 'phase.json'), 'utf8'),
    ) as { restarted?: string[] };
    assert.deepEqual(phase.restarted, ['worker']);
  });

  it('unusable replies are bounded: the Nth (--reply-attempts 2) blocks the run naming the role, the kind and the last problem', async () => {
    root = runSwarmProject(confWith('', '--misbehave malformed:2'));
    const runId = await startRun(root);
    ok(batonRun(root, ['up', runId, '--reply-attempts', '2']));
    await untilStatus(root, runId, 'BLOCKED', 60_000);
    assert.match(
      statusOf(root, runId).block_reason as string,
      /^worker's work for cycle 1 was unusable 2 times: its artifact artifacts\/\S+ is missing or not a regular file$/,
    );
    const sent = join(root, '.swarmforge', 'handoffs', 'controller', 'sent');
    const rejections = fs
      .readdirSync(sent)
      .filter((n) => /\ntype: run_rejected\n/.test(fs.readFileSync(join(sent, n), 'utf8')));
    assert.equal(rejections.length, 2, 'each unusable reply answered with one run_rejected');
  });

  it("the validator's edit while validating is detected: the run blocks naming what changed, before the worker is asked to resolve", async () => {
    root = runSwarmProject(
      [
        'window worker baton-scripted-agent master',
        'window reviewer-a baton-scripted-agent master --findings "1=sec-1 Important the token is logged"',
        'window reviewer-b baton-scripted-agent master',
        'window validator baton-scripted-agent master --misbehave edit-while-validating',
      ].join('\n') + '\n',
    );
    const runId = await startRun(root);
    ok(batonRun(root, ['up', runId]));
    await untilStatus(root, runId, 'BLOCKED', 60_000);
    assert.match(
      statusOf(root, runId).block_reason as string,
      /^the validator changed the repository while validating: tracked files changed: \S/,
    );
    const sent = join(root, '.swarmforge', 'handoffs', 'controller', 'sent');
    assert.ok(
      !fs
        .readdirSync(sent)
        .some((n) => /\ntype: run_resolve\n/.test(fs.readFileSync(join(sent, n), 'utf8'))),
      'the worker was never asked to resolve',
    );
  });

  // npm run soak only: the request-queued case below stands for a controller killed and
  // restarted in npm test.
  for (const point of ['drive:rejection-sent']) {
    it(`a controller SIGKILLed after sending a rejection, restarted with --reclaim-stale: one rejection, counted once, and the run reaches the owner (${point})`, async () => {
      root = runSwarmProject(confWith('', '--misbehave malformed'));
      const runId = await startRun(root);
      await crashThenRestart(root, runId, point);
      await untilStatus(root, runId, 'WAITING_FOR_HUMAN_APPROVAL');
      const rejections = requestKeys(root).filter((k) => k.includes('/rejected/'));
      assert.equal(rejections.length, 1, `one run_rejected: ${rejections.join(' ')}`);
      const phase = JSON.parse(
        fs.readFileSync(join(runDirOf(root, runId), 'controller', 'phase.json'), 'utf8'),
      ) as { rejections: Record<string, number> };
      assert.deepEqual(Object.values(phase.rejections), [1], 'the attempt counted once');
    });
  }

  itInSoak(
    'the cycle limit blocks the run; the monitor shows the reason while every pane is idle',
    'test/bin/run_gates.test.ts, at the cycle limit the run blocks',
    async () => {
      root = runSwarmProject(confWith('--findings "1=sec-1 Important the token is logged"'));
      const runId = await startRun(root, ['--max-cycles', '1']);
      ok(batonRun(root, ['up', runId]));
      await untilStatus(root, runId, 'BLOCKED');
      const monitor = runBin('baton', ['monitor', '--once'], { cwd: root }).stdout;
      assert.match(
        monitor,
        new RegExp(
          `${runId} \\(req-1\\)  BLOCKED/FINDINGS_PENDING .*BLOCKED: review cycle limit reached with 1 blocking findings`,
        ),
      );
      const view = JSON.parse(
        runBin('baton', ['monitor', '--once', '--json'], { cwd: root }).stdout,
      ) as { roles: { role: string; in_process: number }[] };
      assert.deepEqual(
        view.roles.filter((r) => r.in_process > 0),
        [],
        'every pane idle',
      );
    },
  );

  itInSoak(
    'a worker question: the run stays ACTIVE, the local phase waits for a person, the answer reaches the same worker',
    'test/run/controller/driveStep.test.ts, a question',
    async () => {
      root = runSwarmProject(confWith('', '--ask "Which endpoint does the form post to?"'));
      const runId = await startRun(root);
      ok(batonRun(root, ['up', runId]));
      const question = () =>
        (
          JSON.parse(runBin('baton', ['monitor', '--once', '--json'], { cwd: root }).stdout) as {
            runs: { human_input: { question: string } | null }[];
          }
        ).runs[0]?.human_input;
      await waitFor('the question', () => question() != null);
      assert.match(question()!.question, /Which endpoint/);
      assert.equal(statusOf(root, runId).status, 'ACTIVE');
      ok(batonRun(root, ['answer', runId, 'post to /v2/login']));
      await untilStatus(root, runId, 'WAITING_FOR_HUMAN_APPROVAL');
      const worker = fs
        .readdirSync(join(root, '.swarmforge', 'handoffs', 'worker', 'inbox', 'completed'))
        .map((n) =>
          fs.readFileSync(
            join(root, '.swarmforge', 'handoffs', 'worker', 'inbox', 'completed', n),
            'utf8',
          ),
        );
      assert.equal(
        worker.filter((t) => /type: run_answer/.test(t) && /post to \/v2\/login/.test(t)).length,
        1,
      );
      assert.equal(question(), null);
    },
  );

  // A missed deadline is recorded (history) before it is counted (phase), and the next
  // generation is counted before it is queued: a kill between either pair loses nothing and
  // counts nothing twice. npm run soak only (request-queued stands for them in npm test).
  for (const point of casesOf(['drive:deadline-recorded', 'drive:resend-queued'], () => false)) {
    it(`a controller SIGKILLed at ${point} (a silent reviewer), restarted with --reclaim-stale: the miss counted once, generation 2 sent once, the run reaches the owner`, async () => {
      root = runSwarmProject(confWith('--misbehave silent'));
      const runId = await startRun(root);
      await crashThenRestart(root, runId, point, ['--reply-timeout', 'review=2s']);
      await untilStatus(root, runId, 'WAITING_FOR_HUMAN_APPROVAL', 90_000);
      const history = recordOf(root, runId).history;
      const failures = history.filter((h) => h.action === 'provider' && /failed/.test(h.detail));
      assert.equal(failures.length, 1, failures.map((h) => h.detail).join('\n'));
      const sent = join(root, '.swarmforge', 'handoffs', 'controller', 'sent');
      const generations = fs
        .readdirSync(sent)
        .map((n) => fs.readFileSync(join(sent, n), 'utf8'))
        .filter((t) => /\ntype: run_review\n/.test(t) && /\nlane: structured\n/.test(t))
        .map((t) => /\ngeneration: (\d+)\n/.exec(t)?.[1]);
      assert.deepEqual(generations, ['1', '2']);
    });
  }

  // An observation is written before it is logged and again after a restart if the record
  // does not have it: a kill there loses nothing. npm run soak only (the deadline cases above
  // stand for it in npm test).
  for (const point of casesOf(['drive:observation-recorded'], () => false)) {
    it(`a controller SIGKILLed at ${point} (a worker that crashes), restarted: the worker is seen dead, each generation of its request sent once, the run blocked after its deadlines`, async () => {
      root = runSwarmProject(confWith('', '--misbehave crash'));
      const runId = await startRun(root);
      await crashThenRestart(root, runId, point, ['--reply-timeout', 'work=2s']);
      await untilStatus(root, runId, 'BLOCKED', 90_000);
      assert.equal(
        statusOf(root, runId).block_reason,
        'worker did not answer work for cycle 1: 3 deadlines of 2s missed',
      );
      const sent = join(root, '.swarmforge', 'handoffs', 'controller', 'sent');
      const generations = fs
        .readdirSync(sent)
        .map((n) => fs.readFileSync(join(sent, n), 'utf8'))
        .filter((t) => /\ntype: run_stage\n/.test(t))
        .map((t) => /\ngeneration: (\d+)\n/.exec(t)?.[1]);
      assert.deepEqual(generations, ['1', '2', '3']);
      const workflow = JSON.parse(
        fs.readFileSync(join(runDirOf(root, runId), 'workflow.json'), 'utf8'),
      ) as { observations: { panes: Record<string, { status: string }> } };
      assert.equal(workflow.observations.panes.worker?.status, 'dead');
    });
  }

  // npm test kills the controller where a request was just queued and where a reply was just
  // claimed (the two halves of "no request sent twice, no reply used twice"); npm run soak at
  // every step.
  const points = [
    'drive:request-queued',
    'drive:reply-claimed',
    'drive:acceptance-done',
    'drive:checkpoint-done',
    'drive:review-done',
    'drive:approval-wait',
  ];
  for (const point of casesOf(points, (_, i) => i < 1)) {
    it(`a controller SIGKILLed at ${point} and restarted with --reclaim-stale completes the run: no request sent twice, no reply used twice`, async () => {
      root = runSwarmProject(confWith('--findings "1=sec-1 Important the token is logged"'));
      const runId = await startRun(root);
      const restarted = await crashThenRestart(root, runId, point);
      // A timeout says what the restarted controller printed and where the run stands.
      await untilStatus(root, runId, 'WAITING_FOR_HUMAN_APPROVAL').catch((err: Error) => {
        const status = JSON.stringify(statusOf(root, runId));
        throw new Error(`${err.message}
status: ${status}
controller stderr:
${restarted.stderr()}`);
      });
      // Killed at the approval wait, the run already waits: the restarted controller's
      // reclaim is awaited, not assumed to come before the owner's approval.
      await waitFor('the restarted controller to reclaim the lease', () =>
        recordOf(root, runId).history.some((h) => h.action === 'lease reclaim'),
      );
      ok(batonRun(root, ['approve', runId]));
      const history = recordOf(root, runId).history;
      assert.ok(
        history.some((h) => h.action === 'lease reclaim'),
        'the reclaim is in the history',
      );
      for (const action of ['stage-start', 'checkpoint'])
        assert.equal(history.filter((h) => h.action === action).length, 1, action);
      assert.equal(history.filter((h) => h.action === 'review').length, 2, 'one review per cycle');
      assert.equal(history.filter((h) => h.action === 'resolve-review').length, 1);
      const keys = requestKeys(root);
      assert.equal(new Set(keys).size, keys.length, `no request sent twice: ${keys.join(' ')}`);
    });
  }
});
