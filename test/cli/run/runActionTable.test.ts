// lib/cli/runActionTable: the actions of `baton run` (runtime.md §4) with their usage,
// options and positionals; the option checks (required, whole numbers) and each handler's
// own command-line checks, which fail as usage errors (exit 1) before a run is touched.
//
// The table and CommandFailure are loaded with import(), as the CLI loads them: the
// handlers import the runtime with import(), and under mocha a statically imported module
// is another instance than the same module imported with import() (tsx compiles the test
// files for require()), so a failure thrown by the runtime is only an instance of the
// CommandFailure class of the import() graph.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import type * as ActionTable from '../../../lib/cli/run/runActionTable.js';
import { type RunValues } from '../../../lib/cli/run/runActionTable.js';
import type * as Errors from '../../../lib/fsx/commandFailure.js';
import { runsDirOf } from '../../../lib/project/layout.js';
import { readLease } from '../../../lib/run/record/lease.js';
import { type ActionReport, type RunContext } from '../../../lib/run/record/runContext.js';
import { readWorkflow } from '../../../lib/run/record/runStore.js';
import { tempDir } from '../../support/project.js';
import { makeRunRepo } from '../../support/runs.js';

const OWNER_ACTIONS = [
  'start',
  'status',
  'list',
  'pause',
  'resume',
  'retry',
  'request-changes',
  'approve',
  'cancel',
  'fail',
];
const CONTROLLER_ACTIONS = [
  'lease',
  'stage-start',
  'acceptance',
  'checkpoint',
  'artifact',
  'review',
  'resolve-review',
  'provider',
  'block',
];
const RUN_ID = 'run-20260102T030405Z-a1b2c3';

let RUN_ACTIONS: typeof ActionTable.RUN_ACTIONS;
let required: typeof ActionTable.required;
let wholeNumber: typeof ActionTable.wholeNumber;
let CommandFailure: typeof Errors.CommandFailure;

function usage(message: string): (err: unknown) => boolean {
  return (err: unknown) => {
    assert.ok(err instanceof CommandFailure, `not a CommandFailure: ${String(err)}`);
    assert.deepEqual([err.kind, err.message], ['usage', message]);
    return true;
  };
}

describe('lib/cli/run/runActionTable', () => {
  before(async () => {
    ({ RUN_ACTIONS, required, wholeNumber } =
      await import('../../../lib/cli/run/runActionTable.js'));
    ({ CommandFailure } = await import('../../../lib/fsx/commandFailure.js'));
  });

  describe('required', () => {
    it('returns the value as given', () => {
      assert.equal(required({ reason: ' spaced out ' }, 'reason', 'cancel'), ' spaced out ');
    });

    it('a missing option (or one given as a flag) is required; an empty or blank one must not be empty', () => {
      for (const v of [{}, { reason: true }, { reason: ['a'] }] as RunValues[])
        assert.throws(() => required(v, 'reason', 'cancel'), usage('cancel: --reason is required'));
      for (const reason of ['', '   ', '\t\n'])
        assert.throws(
          () => required({ reason }, 'reason', 'cancel'),
          usage('cancel: --reason must not be empty'),
        );
    });
  });

  describe('wholeNumber', () => {
    it("absent: the fallback; else the digits' value", () => {
      assert.equal(wholeNumber({}, 'ttl', 'lease acquire', 60, 1), 60);
      assert.equal(wholeNumber({ ttl: '0' }, 'ttl', 'x', 60), 0);
      assert.equal(wholeNumber({ ttl: '007' }, 'ttl', 'x', 60), 7);
      assert.equal(wholeNumber({ ttl: '86400' }, 'ttl', 'x', 60, 1), 86400);
    });

    it('anything but digits, or below the minimum, is a usage error quoting it', () => {
      for (const value of ['', ' 3', '3 ', '-1', '+1', '1.5', '1e3', '0x10', 'three']) {
        assert.throws(
          () => wholeNumber({ ttl: value }, 'ttl', 'lease acquire', 60),
          usage(`lease acquire: --ttl takes a whole number of at least 0, not '${value}'`),
        );
      }
      assert.throws(
        () => wholeNumber({ ttl: '0' }, 'ttl', 'lease acquire', 60, 1),
        usage("lease acquire: --ttl takes a whole number of at least 1, not '0'"),
      );
      assert.throws(
        () => wholeNumber({ ttl: true }, 'ttl', 'lease acquire', 60, 1),
        usage("lease acquire: --ttl takes a whole number of at least 1, not 'true'"),
      );
    });
  });

  describe('RUN_ACTIONS', () => {
    it('has every action of runtime.md §4, each with a usage that starts with its name and a description', () => {
      for (const name of [...OWNER_ACTIONS, ...CONTROLLER_ACTIONS]) {
        const action = RUN_ACTIONS[name];
        assert.ok(action, name);
        assert.ok(
          action.usage.startsWith(`${name} `) || action.usage === name,
          `${name}: ${action.usage}`,
        );
        assert.ok(action.describe.length > 0, name);
      }
    });

    it('controller actions take --lease TOKEN; owner actions never do', () => {
      for (const name of CONTROLLER_ACTIONS) {
        assert.deepEqual(RUN_ACTIONS[name]!.options.lease, { type: 'string' }, name);
        assert.match(RUN_ACTIONS[name]!.usage, /--lease TOKEN/, name);
      }
      for (const name of OWNER_ACTIONS)
        assert.equal(RUN_ACTIONS[name]!.options.lease, undefined, name);
    });

    it('start and list take no run id; status an optional one; every other action a run id first', () => {
      assert.deepEqual(
        [
          RUN_ACTIONS.start!.positionals,
          RUN_ACTIONS.list!.positionals,
          RUN_ACTIONS.status!.positionals,
        ],
        [[], [], ['run-id?']],
      );
      for (const name of [...OWNER_ACTIONS, ...CONTROLLER_ACTIONS].filter(
        (n) => !['start', 'list', 'status'].includes(n),
      )) {
        assert.equal(RUN_ACTIONS[name]!.positionals[0], 'run-id', name);
      }
      assert.deepEqual(RUN_ACTIONS['stage-start']!.positionals, ['run-id', 'stage']);
      assert.deepEqual(RUN_ACTIONS.checkpoint!.positionals, ['run-id', 'stage']);
      assert.deepEqual(RUN_ACTIONS.artifact!.positionals, ['run-id', 'path']);
    });

    it('the options that repeat: --note, --artifact, --lane; flags: --watch, --reclaim-stale, --succeeded', () => {
      assert.deepEqual(RUN_ACTIONS['request-changes']!.options.note, {
        type: 'string',
        multiple: true,
      });
      assert.deepEqual(RUN_ACTIONS.checkpoint!.options.artifact, {
        type: 'string',
        multiple: true,
      });
      assert.deepEqual(RUN_ACTIONS.review!.options.lane, { type: 'string', multiple: true });
      for (const [name, flag] of [
        ['status', 'watch'],
        ['resume', 'reclaim-stale'],
        ['retry', 'reclaim-stale'],
        ['lease', 'reclaim-stale'],
        ['provider', 'succeeded'],
      ]) {
        assert.deepEqual(
          RUN_ACTIONS[name!]!.options[flag!],
          { type: 'boolean' },
          `${name} --${flag}`,
        );
      }
    });
  });

  describe("the handlers' own checks: usage errors before any run is read", () => {
    let root: string;
    let ctx: RunContext;
    beforeEach(() => {
      root = tempDir();
      ctx = { root, cwd: root, env: {}, user: 'alice', now: () => new Date() };
    });
    afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

    const run = (name: string, v: RunValues, p: string[] = [RUN_ID]) =>
      RUN_ACTIONS[name]!.run(ctx, v, p);
    const cases: [string, RunValues, string, string[]?][] = [
      ['request-changes', {}, 'request-changes: give at least one non-empty --note'],
      [
        'request-changes',
        { note: ['fine', ' '] },
        'request-changes: give at least one non-empty --note',
      ],
      ['cancel', {}, 'cancel: --reason is required'],
      ['fail', { reason: '' }, 'fail: --reason must not be empty'],
      ['block', { lease: 't' }, 'block: --reason is required'],
      ['block', { reason: 'r' }, 'block: --lease is required'],
      [
        'retry',
        { 'add-cycles': 'two' },
        "retry: --add-cycles takes a whole number of at least 0, not 'two'",
      ],
      [
        'lease',
        {},
        "lease: the second argument is acquire, heartbeat or release, not 'renew'",
        [RUN_ID, 'renew'],
      ],
      ['lease', {}, 'lease heartbeat: --lease is required', [RUN_ID, 'heartbeat']],
      ['lease', { lease: '' }, 'lease release: --lease must not be empty', [RUN_ID, 'release']],
      [
        'lease',
        { pid: '0' },
        "lease acquire: --pid takes a whole number of at least 1, not '0'",
        [RUN_ID, 'acquire'],
      ],
      [
        'lease',
        { ttl: '0' },
        "lease acquire: --ttl takes a whole number of at least 1, not '0'",
        [RUN_ID, 'acquire'],
      ],
      ['stage-start', {}, 'stage-start: --lease is required', [RUN_ID, 'implementation']],
      ['acceptance', {}, 'acceptance: --lease is required'],
      ['checkpoint', {}, 'checkpoint: --lease is required', [RUN_ID, 'implementation']],
      [
        'checkpoint',
        { lease: 't', artifact: ['no-type'] },
        "checkpoint: --artifact takes PATH:TYPE, not 'no-type'",
        [RUN_ID, 'implementation'],
      ],
      ['artifact', { lease: 't', producer: 'p' }, 'artifact: --type is required', [RUN_ID, 'f.md']],
      ['artifact', { lease: 't', type: 't' }, 'artifact: --producer is required', [RUN_ID, 'f.md']],
      [
        'review',
        { lease: 't', cycle: '0' },
        "review: --cycle takes a whole number of at least 1, not '0'",
      ],
      ['resolve-review', { lease: 't', cycle: '1' }, 'resolve-review: --resolution is required'],
      [
        'provider',
        { lease: 't', name: 'p' },
        'provider: give exactly one of --failed REASON and --succeeded',
      ],
      [
        'provider',
        { lease: 't', name: 'p', failed: 'x', succeeded: true },
        'provider: give exactly one of --failed REASON and --succeeded',
      ],
      ['provider', { lease: 't', succeeded: true }, 'provider: --name is required'],
      ['provider', { lease: 't', name: 'p', failed: ' ' }, 'provider: --failed must not be empty'],
      [
        'drive',
        { 'rotate-reviewers': true, 'no-rotate-reviewers': true },
        'drive: --rotate-reviewers and --no-rotate-reviewers contradict each other',
      ],
      [
        'up',
        { 'rotate-reviewers': true, 'no-rotate-reviewers': true },
        'up: --rotate-reviewers and --no-rotate-reviewers contradict each other',
      ],
    ];
    for (const [name, v, message, p] of cases) {
      it(`${name} ${JSON.stringify(v)}${p ? ` ${p.slice(1).join(' ')}` : ''}: ${message}`, async () => {
        await assert.rejects(run(name, v, p), usage(message));
        assert.equal(fs.existsSync(runsDirOf(root)), false, 'no run folder was looked for or made');
      });
    }
  });

  describe('the handlers run the runtime', () => {
    let root: string;
    let ctx: RunContext;
    let runId: string;
    beforeEach(async () => {
      root = makeRunRepo();
      ctx = { root, cwd: root, env: {}, user: 'alice', now: () => new Date() };
      runId = (
        (await RUN_ACTIONS.start!.run(
          ctx,
          { request: 'req-1', task: 't', spec: 'spec.md', acceptance: 'true' },
          [],
        )) as ActionReport
      ).status.run_id;
    });
    afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

    it("status and list report the run; lease acquire defaults to the caller's parent pid; its token drives the controller actions", async () => {
      assert.equal(
        ((await RUN_ACTIONS.status!.run(ctx, {}, [runId])) as ActionReport).status.run_id,
        runId,
      );
      assert.deepEqual(
        ((await RUN_ACTIONS.list!.run(ctx, {}, [])) as ActionReport['status'][]).map(
          (s) => s.run_id,
        ),
        [runId],
      );
      assert.deepEqual(
        ((await RUN_ACTIONS.status!.run(ctx, {}, [])) as ActionReport['status'][]).map(
          (s) => s.run_id,
        ),
        [runId],
        'status without a run id lists',
      );
      const acquired = (await RUN_ACTIONS.lease!.run(ctx, { ttl: '120' }, [
        runId,
        'acquire',
      ])) as ActionReport;
      const lease = readLease(readWorkflow(root, runId).paths)!;
      assert.deepEqual(
        [lease.pid, (acquired.status.lease as { token: string }).token],
        [process.ppid, lease.token],
      );
      assert.equal(Date.parse(lease.expires_at) - Date.parse(lease.acquired_at), 120_000);
      await RUN_ACTIONS['stage-start']!.run(ctx, { lease: lease.token }, [runId, 'implementation']);
      await RUN_ACTIONS.acceptance!.run(ctx, { lease: lease.token }, [runId]);
      fs.writeFileSync(join(root, 'w.md'), 'w\n');
      const checkpoint = (await RUN_ACTIONS.checkpoint!.run(
        ctx,
        { lease: lease.token, artifact: ['w.md:work'] },
        [runId, 'implementation'],
      )) as ActionReport;
      assert.deepEqual(
        [checkpoint.status.phase, checkpoint.status.artifacts],
        ['REVIEW_PENDING', 2],
      );
      const provider = (await RUN_ACTIONS.provider!.run(
        ctx,
        { lease: lease.token, name: 'p', failed: 'down' },
        [runId],
      )) as ActionReport;
      assert.equal(provider.status.retry_in_ms, 1000);
      const released = (await RUN_ACTIONS.lease!.run(ctx, { lease: lease.token }, [
        runId,
        'release',
      ])) as ActionReport;
      assert.deepEqual(released.status.lease, { held: false });
    });

    // BUG-BEGIN (left out of the commit: a failing test of a bug in lib/cli/run/runActionTable.ts, review and resolve-review)
    it('review and resolve-review without --cycle are usage errors naming --cycle, not a refusal about cycle -1', async () => {
      fs.writeFileSync(join(root, 's.txt'), 'LANE: structured\nCYCLE: 1\n');
      fs.writeFileSync(join(root, 'i.txt'), 'LANE: independent\nCYCLE: 1\n');
      fs.writeFileSync(join(root, 'r.json'), '{"cycle": 1, "resolved": []}');
      await assert.rejects(
        RUN_ACTIONS.review!.run(
          ctx,
          { lease: 't', lane: ['structured=s.txt', 'independent=i.txt'] },
          [runId],
        ),
        usage('review: --cycle is required'),
      );
      await assert.rejects(
        RUN_ACTIONS['resolve-review']!.run(ctx, { lease: 't', resolution: 'r.json' }, [runId]),
        usage('resolve-review: --cycle is required'),
      );
    });
    // BUG-END

    it("the owner's handlers: pause, retry with --add-cycles, request-changes notes, cancel reason", async () => {
      const token = (
        (await RUN_ACTIONS.lease!.run(ctx, { pid: String(process.pid) }, [
          runId,
          'acquire',
        ])) as ActionReport
      ).status.lease as { token: string };
      await RUN_ACTIONS.block!.run(ctx, { lease: token.token, reason: 'wait' }, [runId]);
      const retried = (await RUN_ACTIONS.retry!.run(ctx, { 'add-cycles': '2' }, [
        runId,
      ])) as ActionReport;
      assert.deepEqual([retried.status.status, retried.status.max_review_cycles], ['ACTIVE', 5]);
      const paused = (await RUN_ACTIONS.pause!.run(ctx, {}, [runId])) as ActionReport;
      assert.deepEqual(
        [paused.status.status, paused.status.pause_requested],
        ['PAUSED', false],
        'no stage active: paused at once',
      );
      const cancelled = (await RUN_ACTIONS.cancel!.run(ctx, { reason: 'enough' }, [
        runId,
      ])) as ActionReport;
      assert.equal(cancelled.status.status, 'CANCELLED');
      assert.equal(
        readWorkflow(root, runId).workflow.history.at(-1)!.detail,
        'enough; channel=cli',
      );
    });
  });
});
