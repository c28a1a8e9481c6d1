// lib/run/runStore: the record's validator (version fields on their own, then the schema,
// then every cross-field rule), reads that never follow a symlink, atomic 0600 writes that
// refuse an invalid record, and the per-run and per-request locks.
import { schemaProblems } from '../../../lib/fsx/records.js';
import { validateWorkflowSchema } from '../../../lib/run/record/workflowValidator.generated.js';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { runLocksDirOf, runPathsOf, runsDirOf } from '../../../lib/project/layout.js';
import { batonVersion } from '../../../lib/proc/version.js';
import { acquireLock, LockBusy, lockHolder } from '../../../lib/fsx/lock.js';
import {
  crossFieldProblems,
  parseWorkflow,
  readWorkflow,
  requireRunId,
  runIdsOf,
  withRequestLock,
  withRunLock,
  workflowText,
  writeWorkflow,
} from '../../../lib/run/record/runStore.js';
import { type Workflow } from '../../../lib/run/record/workflow.js';
import { tempDir } from '../../support/project.js';
import { checkpointed, sampleWorkflow } from '../sampleWorkflow.js';
import { failure } from '../../support/failures.js';

const RUN_ID = 'run-20260102T030405Z-a1b2c3';
const BASE = 'b'.repeat(40);

/** A matcher for assert.throws/rejects: a CommandFailure of `kind` whose message is `message` (a string: exactly). */
describe('lib/run/record/runStore', () => {
  let root: string;
  let valid: Workflow;
  beforeEach(() => {
    root = tempDir();
    valid = sampleWorkflow('/repo', BASE);
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  /** Writes `text` as the record of `runId` under ROOT (folders created); returns its path. */
  function placeRecord(text: string | Buffer, runId = RUN_ID): string {
    const { dir, workflow } = runPathsOf(root, runId);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(workflow, text);
    return workflow;
  }

  describe('workflowSchemaProblems', () => {
    it('has nothing to say about a valid record', () => {
      assert.deepEqual(schemaProblems(validateWorkflowSchema, valid), []);
      assert.deepEqual(
        schemaProblems(validateWorkflowSchema, checkpointed(valid, 'c'.repeat(40))),
        [],
      );
    });

    it('names the path and the rule of each problem, an unknown field by name', () => {
      assert.deepEqual(schemaProblems(validateWorkflowSchema, { ...valid, extra: 1 }), [
        "/ must NOT have additional properties 'extra'",
      ]);
      assert.deepEqual(schemaProblems(validateWorkflowSchema, { ...valid, review_cycle: 0 }), [
        '/review_cycle must be >= 1',
      ]);
      assert.deepEqual(schemaProblems(validateWorkflowSchema, { ...valid, status: 'RUNNING' }), [
        '/status must be equal to one of the allowed values',
      ]);
      const { task: _task, ...withoutTask } = valid;
      assert.deepEqual(schemaProblems(validateWorkflowSchema, withoutTask), [
        "/ must have required property 'task'",
      ]);
      assert.deepEqual(
        schemaProblems(validateWorkflowSchema, { ...valid, roles: { ...valid.roles, spy: 'x' } }),
        ["/roles must NOT have additional properties 'spy'"],
      );
    });

    it('checks the forms inside: artifact paths and digests, commits, times, role names of the panes', () => {
      const artifact = {
        path: 'artifacts/a.json',
        sha256: 'a'.repeat(64),
        type: 't',
        producer: 'p',
      };
      for (const path of ['/abs', 'a\\b', 'artifacts/../x', './a', 'a//b', 'a/', '']) {
        assert.notDeepEqual(
          schemaProblems(validateWorkflowSchema, { ...valid, artifacts: [{ ...artifact, path }] }),
          [],
          path,
        );
      }
      assert.notDeepEqual(
        schemaProblems(validateWorkflowSchema, {
          ...valid,
          artifacts: [{ ...artifact, sha256: 'A'.repeat(64) }],
        }),
        [],
      );
      assert.notDeepEqual(
        schemaProblems(validateWorkflowSchema, { ...valid, base_commit: 'abc' }),
        [],
      );
      assert.notDeepEqual(
        schemaProblems(validateWorkflowSchema, { ...valid, updated_at: '2026-01-02 03:04:05' }),
        [],
      );
      assert.notDeepEqual(
        schemaProblems(validateWorkflowSchema, {
          ...valid,
          observations: {
            panes: { '1bad': { pane: '%1', status: 'x', seen_at: valid.created_at } },
            updated_at: null,
          },
        }),
        [],
      );
      assert.deepEqual(
        schemaProblems(validateWorkflowSchema, {
          ...valid,
          observations: {
            panes: { worker: { pane: '%1', status: 'busy', seen_at: valid.created_at } },
            updated_at: valid.created_at,
          },
        }),
        [],
      );
    });

    it('rejects what is not an object at all', () => {
      for (const data of [null, [], 'x', 1])
        assert.notDeepEqual(schemaProblems(validateWorkflowSchema, data), []);
    });
  });

  describe('crossFieldProblems: each rule the schema cannot say, with its own message', () => {
    const cases: [string, (wf: Workflow) => Workflow, string][] = [
      [
        'the active stage is one of stage_order',
        (wf) => ({ ...wf, status: 'ACTIVE', phase: 'STAGE_ACTIVE', active_stage: 'deploy' }),
        "/active_stage 'deploy' is not in stage_order",
      ],
      [
        'the last completed stage is one of stage_order',
        (wf) => ({ ...wf, last_completed_stage: 'design' }),
        "/last_completed_stage 'design' is not in stage_order",
      ],
      [
        'STAGE_ACTIVE has an active stage',
        (wf) => ({ ...wf, status: 'ACTIVE', phase: 'STAGE_ACTIVE' }),
        '/phase STAGE_ACTIVE without an active_stage',
      ],
      [
        'pause_requested without PAUSE_REQUESTED',
        (wf) => ({ ...wf, status: 'ACTIVE', pause_requested: true }),
        '/pause_requested must be true exactly when the phase is PAUSE_REQUESTED',
      ],
      [
        'PAUSE_REQUESTED without pause_requested',
        (wf) => ({ ...wf, status: 'ACTIVE', phase: 'PAUSE_REQUESTED' }),
        '/pause_requested must be true exactly when the phase is PAUSE_REQUESTED',
      ],
      [
        'the review cycle within the limit',
        (wf) => ({ ...wf, review_cycle: 4 }),
        '/review_cycle 4 is above max_review_cycles 3',
      ],
      [
        'COMPLETED is DONE',
        (wf) => ({ ...wf, status: 'COMPLETED', phase: 'APPROVAL_PENDING' }),
        '/phase must be DONE when the status is COMPLETED',
      ],
      [
        'BLOCKED has a reason',
        (wf) => ({ ...wf, status: 'BLOCKED', block_reason: null }),
        '/block_reason must be set when the status is BLOCKED',
      ],
      [
        'BLOCKED has a non-empty reason',
        (wf) => ({ ...wf, status: 'BLOCKED', block_reason: '' }),
        '/block_reason must be set when the status is BLOCKED',
      ],
    ];
    for (const [rule, change, message] of cases) {
      it(rule, () => {
        const wf = change(valid);
        assert.deepEqual(
          schemaProblems(validateWorkflowSchema, wf),
          [],
          'the schema alone accepts it',
        );
        assert.deepEqual(crossFieldProblems(wf), [message]);
      });
    }

    it('an artifact path is recorded once', () => {
      const a = { path: 'artifacts/a.json', sha256: 'a'.repeat(64), type: 't', producer: 'p' };
      assert.deepEqual(
        crossFieldProblems({ ...valid, artifacts: [a, { ...a, sha256: 'b'.repeat(64) }] }),
        ["/artifacts: duplicate path 'artifacts/a.json'"],
      );
      assert.deepEqual(
        crossFieldProblems({ ...valid, artifacts: [a, { ...a, path: 'artifacts/b.json' }] }),
        [],
      );
    });

    it('a finding id is unique within its cycle and lane only', () => {
      const f = {
        id: 'sec-1',
        lane: 'structured' as const,
        cycle: 1,
        severity: 'Important' as const,
        title: 't',
        blocking: true,
        validation: null,
        resolved: false,
      };
      assert.deepEqual(crossFieldProblems({ ...valid, findings: [f, { ...f, title: 'again' }] }), [
        "/findings: duplicate id 'sec-1' in cycle 1, lane structured",
      ]);
      assert.deepEqual(
        crossFieldProblems({
          ...valid,
          findings: [f, { ...f, lane: 'independent' }, { ...f, cycle: 2 }],
        }),
        [],
      );
    });

    it('reports every broken rule, not just the first', () => {
      assert.equal(
        crossFieldProblems({
          ...valid,
          status: 'BLOCKED',
          review_cycle: 9,
          last_completed_stage: 'x',
        }).length,
        3,
      );
      assert.deepEqual(crossFieldProblems(valid), []);
    });
  });

  describe('requireRunId', () => {
    it('returns a well-formed id and refuses a malformed one as a usage error, printable', () => {
      assert.equal(requireRunId(RUN_ID), RUN_ID);
      assert.throws(
        () => requireRunId('run-1'),
        failure('usage', "malformed run id 'run-1': expected run-<YYYYMMDDTHHMMSSZ>-<6 hex>"),
      );
      assert.throws(
        () => requireRunId('../etc'),
        failure('usage', /^malformed run id '\.\.\/etc'/),
      );
      assert.throws(
        () => requireRunId('run-\x1b[2J'),
        failure('usage', /^malformed run id 'run-\\u001b\[2J'/),
      );
    });
  });

  describe('runIdsOf', () => {
    it('no runs folder: no runs', () => {
      assert.deepEqual(runIdsOf(root), []);
    });

    it('lists the run folders that hold a record, sorted; skips a folder without one, a file, locks/ and other names', () => {
      for (const id of ['run-20260103T000000Z-000002', 'run-20260101T000000Z-000001'])
        placeRecord('{}', id);
      fs.mkdirSync(join(runsDirOf(root), 'run-20260102T000000Z-00000f', 'artifacts'), {
        recursive: true,
      });
      fs.mkdirSync(runLocksDirOf(root), { recursive: true });
      fs.mkdirSync(join(runsDirOf(root), 'notes'));
      fs.writeFileSync(join(runsDirOf(root), 'run-20260104T000000Z-000004'), 'a file');
      assert.deepEqual(runIdsOf(root), [
        'run-20260101T000000Z-000001',
        'run-20260103T000000Z-000002',
      ]);
    });
  });

  describe('parseWorkflow', () => {
    const path = '/x/workflow.json';
    const parse = (data: unknown, runId?: string) =>
      parseWorkflow(
        Buffer.from(typeof data === 'string' ? data : JSON.stringify(data)),
        path,
        runId,
      );

    it('returns the record of valid bytes', () => {
      assert.deepEqual(parse(valid), valid);
      assert.deepEqual(parse(valid, RUN_ID), valid);
    });

    it('refuses bytes that are not UTF-8, not JSON or not an object, naming the file', () => {
      assert.throws(
        () => parseWorkflow(Buffer.from([0x7b, 0xff, 0x7d]), path),
        failure('refused', "invalid record '/x/workflow.json': not UTF-8"),
      );
      assert.throws(
        () => parse('{"a":'),
        failure('refused', /^invalid record '\/x\/workflow\.json': not JSON: /),
      );
      for (const data of ['[]', 'null', '1', '"x"'])
        assert.throws(
          () => parse(data),
          failure('refused', "invalid record '/x/workflow.json': not a JSON object"),
        );
    });

    it('checks the schema version before anything else, with its own message', () => {
      const broken = { ...valid, status: 'RUNNING', extra: true };
      assert.throws(
        () => parse({ ...broken, schema_version: 2 }),
        failure('refused', 'run was created with schema version 2; this baton supports 1'),
      );
      assert.throws(
        () => parse({ ...broken, schema_version: '1' }),
        failure('refused', 'run was created with schema version "1"; this baton supports 1'),
      );
      const { schema_version: _v, ...unversioned } = valid;
      assert.throws(
        () => parse(unversioned),
        failure('refused', 'run was created with schema version none; this baton supports 1'),
      );
    });

    it('then the runtime release: present and non-empty; another release is still read (resume and retry check it)', () => {
      for (const runtime_release of ['', 7, undefined]) {
        assert.throws(
          () => parse({ ...valid, runtime_release }),
          failure(
            'refused',
            `invalid record '${path}': no runtime_release (this is baton ${batonVersion()})`,
          ),
        );
      }
      assert.equal(parse({ ...valid, runtime_release: '9.9.9' }).runtime_release, '9.9.9');
    });

    it('then the schema, then the cross-field rules, naming the first problem', () => {
      assert.throws(
        () => parse({ ...valid, extra: 1 }),
        failure(
          'refused',
          "invalid record '/x/workflow.json': / must NOT have additional properties 'extra'",
        ),
      );
      assert.throws(
        () => parse({ ...valid, review_cycle: 5 }),
        failure(
          'refused',
          "invalid record '/x/workflow.json': /review_cycle 5 is above max_review_cycles 3",
        ),
      );
    });

    it("a record in another run's folder is invalid", () => {
      assert.throws(
        () => parse(valid, 'run-20260102T030405Z-000000'),
        failure(
          'refused',
          `invalid record '${path}': /run_id '${RUN_ID}' is not the run's folder 'run-20260102T030405Z-000000'`,
        ),
      );
    });

    it('shows what the record says in printable form: a control character cannot drive the terminal', () => {
      const a = {
        path: 'artifacts/a\u001b[2J.json',
        sha256: 'a'.repeat(64),
        type: 't',
        producer: 'p',
      };
      assert.throws(
        () => parse({ ...valid, artifacts: [a, a] }),
        failure(
          'refused',
          "invalid record '/x/workflow.json': /artifacts: duplicate path 'artifacts/a\\u001b[2J.json'",
        ),
      );
    });
  });

  describe('readWorkflow', () => {
    it('returns the record, its exact bytes and its paths', () => {
      const text = workflowText(valid);
      placeRecord(text);
      const read = readWorkflow(root, RUN_ID);
      assert.deepEqual(read.workflow, valid);
      assert.equal(read.bytes.toString('utf8'), text);
      assert.deepEqual(read.paths, runPathsOf(root, RUN_ID));
    });

    it('an unknown run is a usage error (exit 1); a malformed id too, before any file is looked at', () => {
      assert.throws(
        () => readWorkflow(root, RUN_ID),
        failure('usage', `unknown run '${RUN_ID}': no ${runPathsOf(root, RUN_ID).workflow}`),
      );
      fs.mkdirSync(runPathsOf(root, RUN_ID).dir, { recursive: true });
      assert.throws(
        () => readWorkflow(root, RUN_ID),
        failure('usage', /^unknown run /),
        'a folder without a record is no run',
      );
      assert.throws(
        () => readWorkflow(root, 'run-x'),
        failure('usage', /^malformed run id 'run-x'/),
      );
    });

    it('an invalid record is refused (exit 2)', () => {
      placeRecord(workflowText({ ...valid, review_cycle: 0 }));
      assert.throws(
        () => readWorkflow(root, RUN_ID),
        failure('refused', /^invalid record '.*workflow\.json': \/review_cycle must be >= 1$/),
      );
    });

    it('never follows a symlink, even to a valid record', () => {
      const elsewhere = join(root, 'elsewhere.json');
      fs.writeFileSync(elsewhere, workflowText(valid));
      const { dir, workflow } = runPathsOf(root, RUN_ID);
      fs.mkdirSync(dir, { recursive: true });
      fs.symlinkSync(elsewhere, workflow);
      assert.throws(
        () => readWorkflow(root, RUN_ID),
        failure('refused', `invalid record '${workflow}': is a symlink`),
      );
    });
  });

  describe('writeWorkflow', () => {
    const modeOf = (path: string) => fs.statSync(path).mode & 0o777;

    it('writes the record as 2-space JSON with a final newline, mode 0600, creating the run folder', () => {
      const { workflow, dir } = runPathsOf(root, RUN_ID);
      writeWorkflow(workflow, valid);
      assert.equal(fs.readFileSync(workflow, 'utf8'), `${JSON.stringify(valid, null, 2)}\n`);
      assert.equal(workflowText(valid), `${JSON.stringify(valid, null, 2)}\n`);
      assert.equal(modeOf(workflow), 0o600);
      assert.deepEqual(fs.readdirSync(dir), ['workflow.json'], 'no temp file left beside it');
      assert.deepEqual(readWorkflow(root, RUN_ID).workflow, valid);
    });

    it('replaces the file by a rename (a new inode, never written in place) and keeps 0600 over a looser file', () => {
      const path = placeRecord(workflowText(valid));
      fs.chmodSync(path, 0o644);
      const before = fs.statSync(path).ino;
      const changed = { ...valid, task: 'another task' };
      writeWorkflow(path, changed);
      assert.notEqual(fs.statSync(path).ino, before);
      assert.equal(modeOf(path), 0o600);
      assert.equal(fs.readFileSync(path, 'utf8'), workflowText(changed));
    });

    it('refuses an invalid record (schema, cross-field, an impossible time) and leaves the file as it was', () => {
      const path = placeRecord(workflowText(valid));
      const bytes = fs.readFileSync(path);
      assert.throws(
        () => writeWorkflow(path, { ...valid, status: 'RUNNING' } as unknown as Workflow),
        /^Error: refusing to write an invalid record '.*': \/status must be equal to one of the allowed values$/,
      );
      assert.throws(
        () => writeWorkflow(path, { ...valid, status: 'BLOCKED' }),
        /refusing to write an invalid record '.*': \/block_reason must be set when the status is BLOCKED$/,
      );
      assert.throws(
        () => writeWorkflow(path, { ...valid, updated_at: '2026-13-45T25:61:61Z' }),
        /refusing to write an invalid record '.*': \/updated_at '2026-13-45T25:61:61Z' is not a real date and time$/,
      );
      assert.deepEqual(fs.readFileSync(path), bytes);
      assert.deepEqual(fs.readdirSync(runPathsOf(root, RUN_ID).dir), ['workflow.json']);
    });

    it('refuses to write through a symlink and leaves its target alone', () => {
      const target = join(root, 'target.json');
      fs.writeFileSync(target, 'do not touch\n');
      const { dir, workflow } = runPathsOf(root, RUN_ID);
      fs.mkdirSync(dir, { recursive: true });
      fs.symlinkSync(target, workflow);
      assert.throws(
        () => writeWorkflow(workflow, valid),
        failure('refused', `invalid record '${workflow}': is a symlink`),
      );
      assert.equal(fs.readFileSync(target, 'utf8'), 'do not touch\n');
      assert.ok(fs.lstatSync(workflow).isSymbolicLink());
    });
  });

  describe('locks', () => {
    const runLockDir = join('.swarmforge', 'runs', 'locks', 'run-20260102T030405Z-a1b2c3.lock');

    it('withRunLock holds runs/locks/run-<id>.lock while fn runs (across an await) and returns its value', async () => {
      const dir = join(root, runLockDir);
      const seen: (number | undefined)[] = [];
      const value = await withRunLock(root, RUN_ID, async () => {
        seen.push(lockHolder(dir));
        await new Promise((r) => setImmediate(r));
        seen.push(lockHolder(dir));
        return 42;
      });
      assert.equal(value, 42);
      assert.deepEqual(seen, [process.pid, process.pid]);
      assert.equal(lockHolder(dir), undefined, 'released after');
    });

    it('releases the lock when fn throws', async () => {
      await assert.rejects(
        withRunLock(root, RUN_ID, () => {
          throw new Error('boom');
        }),
        /boom/,
      );
      assert.equal(lockHolder(join(root, runLockDir)), undefined);
      assert.equal(await withRunLock(root, RUN_ID, () => 'again', 200), 'again');
    });

    it('a held run lock makes withRunLock wait for its timeout, then throw LockBusy without running fn', async () => {
      const release = acquireLock(join(root, runLockDir));
      let ran = false;
      try {
        const started = Date.now();
        await assert.rejects(
          withRunLock(
            root,
            RUN_ID,
            () => {
              ran = true;
            },
            150,
          ),
          (err: unknown) => {
            assert.ok(err instanceof LockBusy, String(err));
            assert.match(
              err.message,
              new RegExp(
                `^lock busy '.*run-20260102T030405Z-a1b2c3\\.lock': held by pid ${process.pid}$`,
              ),
            );
            return true;
          },
        );
        assert.ok(Date.now() - started >= 150, 'it waited');
        assert.equal(ran, false);
      } finally {
        release();
      }
      assert.equal(await withRunLock(root, RUN_ID, () => 'free', 150), 'free');
    });

    it('locks of other runs and of requests are separate locks', async () => {
      const release = acquireLock(join(root, runLockDir));
      try {
        assert.equal(
          await withRunLock(root, 'run-20260102T030405Z-000000', () => 'other run', 100),
          'other run',
        );
        assert.equal(
          await withRequestLock(
            root,
            'req-1',
            () => lockHolder(join(runLocksDirOf(root), 'request-req-1.lock')),
            100,
          ),
          process.pid,
        );
      } finally {
        release();
      }
    });

    it('a held request lock makes withRequestLock wait, then throw LockBusy', async () => {
      const release = acquireLock(join(runLocksDirOf(root), 'request-req-1.lock'));
      try {
        await assert.rejects(
          withRequestLock(root, 'req-1', () => 'never', 100),
          LockBusy,
        );
      } finally {
        release();
      }
    });

    it('a malformed run id is refused before any lock is made', async () => {
      await assert.rejects(
        async () => withRunLock(root, '../x', () => 1),
        failure('usage', /^malformed run id/),
      );
      assert.equal(fs.existsSync(runsDirOf(root)), false);
    });
  });
});
