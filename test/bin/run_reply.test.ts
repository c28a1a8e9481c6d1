// Black-box: `baton run reply` checks the file where it is made (docs/runtime.md §11.1). A
// file that does not parse for its kind is refused with exit 2 and one line naming the file,
// the place and the rule; nothing is copied, nothing queued and no artifact name is taken,
// so the corrected file replies under the name the first one would have had.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { basename, join } from 'node:path';
import { queueSystemHandoff } from '../../lib/handoff/systemSend.js';
import { itemsIn } from '../support/project.js';
import {
  batonRun,
  evidence,
  laneFile,
  makeRunRepo,
  ok,
  runAtReview,
  runDirOf,
  snapshotOf,
} from '../support/runs.js';

describe('baton run reply: files checked where they are made (built bin)', function () {
  this.timeout(60_000);
  let root: string;
  let runId: string;
  let token: string;
  before(async () => {
    root = makeRunRepo();
    ({ runId, token } = await runAtReview(root));
  });
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  const outboxOf = (role: string) => join(root, '.swarmforge', 'handoffs', role, 'outbox');
  const reply = (role: string, args: string[]) =>
    batonRun(root, ['reply', runId, ...args], { SWARMFORGE_ROLE: role });
  /** The reply is refused with `line` alone, and neither the run nor the role's mail changed. */
  function refused(role: string, args: string[], line: string): void {
    const run = snapshotOf(runDirOf(root, runId));
    const mail = snapshotOf(join(root, '.swarmforge', 'handoffs', role));
    const r = reply(role, args);
    assert.deepEqual([r.code, r.stdout, r.stderr], [2, '', `${line}\n`]);
    assert.deepEqual(snapshotOf(runDirOf(root, runId)), run, 'nothing copied');
    assert.deepEqual(snapshotOf(join(root, '.swarmforge', 'handoffs', role)), mail, 'no mail');
  }

  it('a review with a severity that is not a §6 word: refused, then the fixed file replies', () => {
    const review = (severity: string) =>
      evidence(
        root,
        'review.json',
        JSON.stringify({
          lane: 'structured',
          cycle: 1,
          findings: [
            { id: 'sec-1', severity: 'Minor', title: 'a name' },
            { id: 'sec-2', severity, title: 'the token is logged' },
          ],
        }),
      );
    const args = ['--kind', 'review', '--stage', 'review', '--cycle', '1', '--lane', 'structured'];
    refused(
      'reviewer-a',
      [...args, '--file', review('High')],
      "baton run reply: review.json: finding 'sec-2': unknown severity 'High' (Critical, " +
        'Important, Minor, Nit, or CRITICAL, HIGH, MEDIUM, LOW)',
    );
    const accepted = ok(reply('reviewer-a', [...args, '--file', review('Important')]));
    assert.equal(accepted.reply, 'artifacts/review-c1-review-structured.json');
    assert.equal(itemsIn(outboxOf('reviewer-a')).length, 1, 'one run_result queued');
  });

  it('a role not asked, and a kind nothing awaits now, are refused before the file is read', () => {
    const v = evidence(root, 'v.json', '{"cycle": 1, "findings": []}');
    const validation = ['--kind', 'validation', '--stage', 'review', '--cycle', '1', '--file', v];
    refused(
      'worker',
      validation,
      'baton run reply: worker is not asked for the validation of cycle 1: validator is',
    );
    refused(
      'validator',
      validation,
      `baton run reply: run ${runId} does not await a validation now (ACTIVE/REVIEW_PENDING)`,
    );
    refused(
      'reviewer-b',
      [
        ...['--kind', 'review', '--stage', 'review', '--cycle', '1', '--lane', 'structured'],
        ...['--file', v],
      ],
      'baton run reply: reviewer-b is not asked for the review (structured lane) of cycle 1: ' +
        'reviewer-a is',
    );
  });

  it('--key names the request (kind, stage, cycle, lane from it; a disagreeing option is a usage error); the generation copied is the one the role holds in process', async () => {
    const key = `${runId}/review/review/c1/g0/independent`;
    const lane = laneFile(root, 'independent', 1);
    const misnamed = reply('reviewer-b', ['--key', key, '--kind', 'validation', '--file', lane]);
    assert.deepEqual(
      [misnamed.code, misnamed.stderr],
      [1, 'baton run reply: reply: --kind validation disagrees with --key, which names review\n'],
    );
    const held = await queueSystemHandoff(root, 'controller', {
      to: ['reviewer-b'],
      priority: '40',
      type: 'run_review',
      headers: {
        run_id: runId,
        cycle: '1',
        stage: 'review',
        lane: 'independent',
        key,
        generation: '3',
      },
      body: 'review it\n',
    });
    const inProcess = join(root, '.swarmforge', 'handoffs', 'reviewer-b', 'inbox', 'in_process');
    fs.mkdirSync(inProcess, { recursive: true });
    fs.renameSync(held, join(inProcess, basename(held)));
    ok(reply('reviewer-b', ['--key', key, '--file', lane]));
    const [result] = itemsIn(outboxOf('reviewer-b'));
    const text = fs.readFileSync(join(outboxOf('reviewer-b'), result!), 'utf8');
    assert.match(text, new RegExp(`\\nkey: ${key}\\n`));
    assert.match(text, /\ngeneration: 3\n/);
    assert.match(text, /\nlane: independent\n/);
  });

  it('observe is fenced by the lease: no token, a wrong one, refused; with it a change is kept and shown in status', () => {
    const run = snapshotOf(runDirOf(root, runId));
    const bare = batonRun(root, ['observe', runId, '--role', 'worker', '--state', 'dead']);
    assert.deepEqual(
      [bare.code, bare.stderr],
      [1, 'baton run observe: observe: --lease is required\n'],
    );
    const wrong = batonRun(root, [
      ...['observe', runId, '--role', 'worker', '--state', 'dead', '--lease', 'not-the-token'],
    ]);
    assert.equal(wrong.code, 2);
    assert.deepEqual(snapshotOf(runDirOf(root, runId)), run, 'nothing written');
    const bad = batonRun(root, [
      'observe',
      runId,
      '--role',
      'worker',
      '--state',
      'asleep',
      '--lease',
      'x',
    ]);
    assert.match(
      bad.stderr,
      /--state is one of working, idle, waiting, dead, unknown, not 'asleep'/,
    );
    const status = ok(
      batonRun(root, [
        ...['observe', runId, '--role', 'worker', '--state', 'dead', '--pane', '%7'],
        ...['--lease', token],
      ]),
    ) as { agents: { role: string; state: string; line: string }[] };
    assert.equal(status.agents[0]!.state, 'dead');
    assert.match(status.agents[0]!.line, /^worker: dead since \S+Z$/);
    const workflow = fs.readFileSync(join(runDirOf(root, runId), 'workflow.json'));
    ok(
      batonRun(root, [
        'observe',
        runId,
        '--role',
        'worker',
        '--state',
        'dead',
        '--pane',
        '%7',
        '--lease',
        token,
      ]),
    );
    assert.ok(
      fs.readFileSync(join(runDirOf(root, runId), 'workflow.json')).equals(workflow),
      'the same state again writes nothing',
    );
  });

  it('at the findings: a validation of another cycle, a resolution without its fields, an empty question', async () => {
    const findings = makeRunRepo();
    try {
      const { runId: id, token } = await runAtReview(findings);
      ok(
        batonRun(findings, [
          ...['review', id, '--cycle', '1', '--lease', token],
          ...['--lane', `structured=${laneFile(findings, 'structured', 1, ['f-1 Important x'])}`],
          ...['--lane', `independent=${laneFile(findings, 'independent', 1)}`],
        ]),
      );
      const replyIn = (role: string, args: string[]) =>
        batonRun(findings, ['reply', id, ...args], { SWARMFORGE_ROLE: role });
      const expectRefused = (role: string, args: string[], line: string) => {
        const r = replyIn(role, args);
        assert.deepEqual([r.code, r.stderr], [2, `${line}\n`]);
      };
      const file = (name: string, text: string) => ['--file', evidence(findings, name, text)];
      expectRefused(
        'validator',
        [
          ...['--kind', 'validation', '--stage', 'review', '--cycle', '1'],
          ...file('v.json', '{"cycle": 2, "findings": []}'),
        ],
        'baton run reply: v.json: mixed generations: validation file says cycle 2; this review ' +
          'is cycle 1',
      );
      expectRefused(
        'worker',
        [
          ...['--kind', 'resolution', '--stage', 'review', '--cycle', '1'],
          ...file('r.json', '{"cycle": 1, "resolved": [{"id": "x"}]}'),
        ],
        "baton run reply: r.json: finding 'x': change is missing",
      );
      expectRefused(
        'worker',
        [
          ...['--kind', 'question', '--stage', 'implementation', '--cycle', '1'],
          ...file('q.md', ' \n'),
        ],
        'baton run reply: q.md: the file is empty; say what you did or ask',
      );
      assert.deepEqual(itemsIn(join(findings, '.swarmforge', 'handoffs', 'worker', 'outbox')), []);
    } finally {
      fs.rmSync(findings, { recursive: true, force: true });
    }
  });
});
