// Black-box: the gates and refusals of docs/runtime.md §3–§8 on the built `baton run`:
// records refused on read, artifacts checked at every gate, acceptance without a shell,
// checkpoint, review and resolution rules, pause, lease fencing, provider backoff.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { waitFor } from '../support/daemon.js';
import { casesOf } from '../support/tier.js';
import { BIN_DIR, commitIn, git } from '../support/project.js';
import {
  batonRun,
  evidence,
  laneFile,
  leaseFor,
  makeRunRepo,
  ok,
  runAtReview,
  runDirOf,
  snapshotOf,
  startRun,
} from '../support/runs.js';

/** The record of a run, parsed. */
const recordOf = (root: string, runId: string) =>
  JSON.parse(fs.readFileSync(join(runDirOf(root, runId), 'workflow.json'), 'utf8')) as Record<
    string,
    any
  >;
/** Rewrites the record by hand (as a person with an editor would). */
const editRecord = (root: string, runId: string, edit: (r: Record<string, any>) => void) => {
  const r = recordOf(root, runId);
  edit(r);
  fs.writeFileSync(join(runDirOf(root, runId), 'workflow.json'), `${JSON.stringify(r, null, 2)}\n`);
};
/** A refusal: the exit code, `lines` stderr lines (one by default) matching `pattern`, no stdout, the run's files unchanged. */
function refused(
  root: string,
  runId: string,
  args: string[],
  code: number,
  pattern: RegExp,
  lines = 1,
): void {
  const before = snapshotOf(runDirOf(root, runId));
  const r = batonRun(root, args);
  assert.equal(r.code, code, `${args.join(' ')}: exit ${r.code}, ${r.stderr}`);
  assert.equal(r.stdout, '');
  assert.equal(r.stderr.split('\n').filter(Boolean).length, lines, r.stderr);
  assert.match(r.stderr, pattern);
  assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
  assert.deepEqual(snapshotOf(runDirOf(root, runId)), before);
}
/** A blocking outcome: exit 2, the status on stdout with BLOCKED, the reason on stderr. */
function blocked(root: string, args: string[], pattern: RegExp): Record<string, any> {
  const r = batonRun(root, args);
  assert.equal(r.code, 2, r.stderr);
  const status = JSON.parse(r.stdout) as Record<string, any>;
  assert.equal(status.status, 'BLOCKED');
  assert.match(r.stderr, pattern);
  assert.match(status.block_reason, pattern);
  return status;
}

describe('baton run gates and refusals (built bin)', function () {
  this.timeout(60_000);
  let root: string;
  beforeEach(() => {
    root = makeRunRepo();
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  describe('the command line', () => {
    it('--help on baton run and on each action; an unknown action or option is a usage error (exit 1) that changes nothing', async () => {
      const help = batonRun(root, ['--help']);
      assert.equal(help.code, 0);
      assert.match(help.stdout, /^Usage: baton run <action>/);
      const actions = ['start', 'status', 'pause', 'review', 'resolve-review', 'lease'];
      for (const action of casesOf(actions, (_, i) => i % 3 === 0)) {
        const r = batonRun(root, [action, '--help']);
        assert.deepEqual([r.code, r.stderr], [0, '']);
        assert.match(r.stdout, new RegExp(`^Usage: baton run ${action}`));
      }
      const runId = await startRun(root);
      refused(root, runId, ['frobnicate', runId], 1, /^baton run: unknown action 'frobnicate'/);
      refused(
        root,
        runId,
        ['pause', runId, '--bogus'],
        1,
        /^baton run pause: unknown option '--bogus'; see baton run pause --help$/m,
      );
      refused(root, runId, ['cancel', runId, '--reason', '  '], 1, /--reason must not be empty/);
      refused(root, runId, ['pause', 'run-20260101T000000Z-abcdef'], 1, /unknown run/);
      refused(root, runId, ['pause', 'not-a-run'], 1, /malformed run id/);
      const baton = batonRun(root, []);
      assert.equal(baton.code, 1);
    });

    it('status without an id lists every run; --watch redraws when a run changes', async () => {
      const first = await startRun(root);
      const second = await startRun(root, [], 'req-2');
      const list = JSON.parse(batonRun(root, ['status']).stdout) as { run_id: string }[];
      assert.deepEqual(
        list.map((r) => r.run_id),
        [first, second],
      );
      const watch = spawn(
        process.execPath,
        [join(BIN_DIR, 'baton.js'), 'run', 'status', first, '--watch'],
        { cwd: root },
      );
      let out = '';
      watch.stdout.on('data', (b: Buffer) => {
        out += b.toString();
      });
      await waitFor('the first status', () => /"status": "ACTIVE"/.test(out));
      ok(batonRun(root, ['cancel', first, '--reason', 'enough']));
      await waitFor('the redraw', () => /"status": "CANCELLED"/.test(out));
      const exited = new Promise((done) => watch.on('exit', done));
      watch.kill('SIGINT');
      await exited;
    });
  });

  describe('the record', () => {
    it('an unknown property at the top level or inside an artifact entry is refused on read, exit 2', async () => {
      const { runId } = await runAtReview(root);
      editRecord(root, runId, (r) => {
        r.extra = 1;
      });
      refused(root, runId, ['status', runId], 2, /invalid record .*additional properties 'extra'/);
      editRecord(root, runId, (r) => {
        delete r.extra;
        r.artifacts[0].note = 'x';
      });
      refused(
        root,
        runId,
        ['status', runId],
        2,
        /invalid record .*\/artifacts\/0 must NOT have additional properties 'note'/,
      );
      refused(root, runId, ['pause', runId], 2, /invalid record/);
    });

    it('each malformed artifact entry is refused on read: absolute, backslash, ., .., empty, bad digest, empty type or producer, duplicate path', async () => {
      const { runId } = await runAtReview(root);
      const good = recordOf(root, runId).artifacts[0];
      const forms: [Record<string, unknown>, RegExp][] = [
        [{ path: '/etc/passwd' }, /path/],
        [{ path: 'artifacts\\x.json' }, /path/],
        [{ path: 'artifacts/./x.json' }, /path/],
        [{ path: 'artifacts/../workflow.json' }, /path/],
        [{ path: '' }, /path/],
        [{ sha256: 'ABC' }, /sha256/],
        [{ type: '' }, /type/],
        [{ producer: '' }, /producer/],
      ];
      for (const [change, pattern] of casesOf(forms, (_, i) => i % 3 === 0)) {
        editRecord(root, runId, (r) => {
          r.artifacts = [{ ...good, ...change }];
        });
        refused(root, runId, ['status', runId], 2, pattern);
      }
      editRecord(root, runId, (r) => {
        r.artifacts = [good, good];
      });
      refused(root, runId, ['status', runId], 2, /duplicate path/);
    });

    it('an impossible date or time is refused on read with the field named; a real one (29 February 2024) is read', async () => {
      const { runId } = await runAtReview(root);
      const original = recordOf(root, runId);
      const cases: [(r: Record<string, any>) => void, RegExp][] = [
        [
          (r) => {
            r.created_at = '2026-13-45T25:61:61Z';
          },
          /invalid record .*: \/created_at '2026-13-45T25:61:61Z' is not a real date and time\n/,
        ],
        [
          (r) => {
            r.history[1].at = '2026-02-29T10:00:00Z';
          },
          /: \/history\/1\/at '2026-02-29T10:00:00Z' is not a real date and time\n/,
        ],
        [
          (r) => {
            r.last_checkpoint_at = '2026-04-31T00:00:00.000Z';
          },
          /: \/last_checkpoint_at '2026-04-31T00:00:00\.000Z' is not/,
        ],
        [
          (r) => {
            r.updated_at = '2026-01-01T24:00:00Z';
          },
          /: \/updated_at '2026-01-01T24:00:00Z' is not/,
        ],
      ];
      for (const [edit, pattern] of casesOf(cases, (_, i) => i < 2)) {
        editRecord(root, runId, (r) => Object.assign(r, structuredClone(original)));
        editRecord(root, runId, edit);
        refused(root, runId, ['status', runId], 2, pattern);
        refused(root, runId, ['pause', runId], 2, pattern);
      }
      editRecord(root, runId, (r) =>
        Object.assign(r, structuredClone(original), { created_at: '2024-02-29T23:59:59.999Z' }),
      );
      assert.equal(ok(batonRun(root, ['status', runId])).run_id, runId);
    });

    it('an impossible time in lease.json is refused with the field named', async () => {
      const { runId, token } = await runAtReview(root);
      editLease(root, runId, (l) => {
        l.expires_at = '2026-12-32T00:00:00Z';
      });
      refused(
        root,
        runId,
        ['lease', runId, 'heartbeat', '--lease', token],
        2,
        /invalid lease .*: \/expires_at '2026-12-32T00:00:00Z' is not a real date and time\n/,
      );
    });

    it('a record of another schema version gets its own message', async () => {
      const runId = await startRun(root);
      editRecord(root, runId, (r) => {
        r.schema_version = 2;
      });
      refused(
        root,
        runId,
        ['status', runId],
        2,
        /run was created with schema version 2; this baton supports 1/,
      );
    });
  });

  describe('artifact names (§3)', () => {
    it('a report.md registered in cycle 1 and another in cycle 2 are two artifacts, named by stage (or run: none active or completed), cycle and type', async () => {
      const { runId, token } = await runAtReview(root);
      const report = evidence(root, 'report.md', '# cycle 1\n');
      const first = ok(
        batonRun(root, [
          'artifact',
          runId,
          report,
          '--type',
          'report',
          '--producer',
          'worker',
          '--lease',
          token,
        ]),
      );
      assert.equal(first.artifacts_ok, true);
      ok(
        batonRun(root, [
          'review',
          runId,
          '--cycle',
          '1',
          '--lane',
          `structured=${laneFile(root, 'structured', 1)}`,
          '--lane',
          `independent=${laneFile(root, 'independent', 1)}`,
          '--lease',
          token,
        ]),
      );
      assert.equal(
        ok(batonRun(root, ['request-changes', runId, '--note', 'once more'])).review_cycle,
        2,
      );
      evidence(root, 'report.md', '# cycle 2\n');
      ok(
        batonRun(root, [
          'artifact',
          runId,
          report,
          '--type',
          'report',
          '--producer',
          'worker',
          '--lease',
          token,
        ]),
      );
      const reports = recordOf(root, runId).artifacts.filter(
        (a: { type: string }) => a.type === 'report',
      );
      assert.deepEqual(
        reports.map((a: { path: string }) => a.path),
        ['artifacts/implementation-c1-report.md', 'artifacts/run-c2-report.md'],
      );
      const text = (path: string) => fs.readFileSync(join(runDirOf(root, runId), path), 'utf8');
      assert.deepEqual(
        reports.map((a: { path: string }) => text(a.path)),
        ['# cycle 1\n', '# cycle 2\n'],
      );
      assert.equal(ok(batonRun(root, ['status', runId])).artifacts_ok, true);
    });

    it("a record holding an artifact under its source's own name (made before the names rule) stays valid and readable", async () => {
      const { runId } = await runAtReview(root);
      const dir = runDirOf(root, runId);
      fs.writeFileSync(join(dir, 'artifacts', 'report.md'), '# old\n', { mode: 0o600 });
      const sha256 = createHash('sha256').update('# old\n').digest('hex');
      editRecord(root, runId, (r) => {
        r.artifacts.push({
          path: 'artifacts/report.md',
          sha256,
          type: 'report',
          producer: 'worker',
        });
      });
      const status = ok(batonRun(root, ['status', runId]));
      assert.deepEqual([status.artifacts_ok, status.bad_artifacts], [true, []]);
      assert.equal(ok(batonRun(root, ['pause', runId])).status, 'PAUSED');
    });
  });

  describe('artifacts at the gates', () => {
    it('a changed byte, a missing file or a symlink: status reports it (exit 0) and the next gate blocks', async () => {
      const { runId, token } = await runAtReview(root);
      const work = recordOf(root, runId).artifacts.find((a: any) => a.type === 'work')
        .path as string;
      fs.appendFileSync(join(runDirOf(root, runId), work), 'x');
      const status = ok(batonRun(root, ['status', runId]));
      assert.equal(status.artifacts_ok, false);
      assert.deepEqual(
        status.bad_artifacts.map((b: any) => b.path),
        [work],
      );
      assert.match(status.bad_artifacts[0].problem, /changed/);
      blocked(
        root,
        [
          'review',
          runId,
          '--cycle',
          '1',
          '--lane',
          `structured=${laneFile(root, 'structured', 1)}`,
          '--lane',
          `independent=${laneFile(root, 'independent', 1)}`,
          '--lease',
          token,
        ],
        /artifact changed or missing/,
      );
    });

    it('a missing artifact and one reached through a symlink are reported by status', async () => {
      const { runId } = await runAtReview(root);
      const [acceptance, work] = recordOf(root, runId).artifacts.map((a: any) =>
        join(runDirOf(root, runId), a.path),
      );
      fs.rmSync(acceptance);
      fs.renameSync(work, `${work}.real`);
      fs.symlinkSync(`${work}.real`, work);
      const status = ok(batonRun(root, ['status', runId]));
      assert.deepEqual(
        status.bad_artifacts.map((b: any) => b.problem.split(' ')[0]),
        ['missing', 'reached'],
      );
    });
  });

  describe('acceptance', () => {
    it('a shell operator or expansion in the configured command is refused at start, and nothing is made', () => {
      for (const command of [
        'npm test; rm -rf /',
        'echo $(id)',
        'echo `id`',
        'a | b',
        'echo $HOME',
      ]) {
        const r = batonRun(root, [
          'start',
          '--request',
          'r',
          '--task',
          't',
          '--spec',
          'spec.md',
          '--acceptance',
          command,
        ]);
        assert.equal(r.code, 2, `${command}: ${r.stderr}`);
        assert.match(r.stderr, /shell operator or expansion/);
      }
      assert.equal(fs.existsSync(join(root, '.swarmforge', 'runs')), false);
    });

    it('a different --command is refused; a pass records the evidence; secrets in the output are redacted', async () => {
      const runId = await startRun(root);
      const token = await leaseFor(root, runId);
      refused(
        root,
        runId,
        ['acceptance', runId, '--command', 'node other.mjs', '--lease', token],
        2,
        /differs from the command configured/,
      );
      const status = ok(batonRun(root, ['acceptance', runId, '--lease', token]));
      assert.equal(status.last_acceptance_ok, true);
      const files = fs.readdirSync(join(runDirOf(root, runId), 'artifacts'));
      assert.deepEqual(files, ['run-c1-acceptance.json']);
      const text = fs.readFileSync(join(runDirOf(root, runId), 'artifacts', files[0]!), 'utf8');
      assert.match(text, /accept: argv/);
      assert.doesNotMatch(text, /abc123supersecret/);
      assert.match(text, /API_TOKEN=\[REDACTED\]/);
    });

    it('a non-zero exit, a timeout and a missing program each block the run with a validation-failure artifact', async () => {
      const cases: [string[], () => void, RegExp][] = [
        [[], () => fs.writeFileSync(join(root, 'accept-exit'), '3'), /acceptance failed: exit 3/],
        [
          ['--acceptance-timeout', '1'],
          () => fs.writeFileSync(join(root, 'accept-hang'), ''),
          /acceptance timed out after 1 s/,
        ],
      ];
      for (const [extra, arrange, pattern] of cases) {
        const runId = await startRun(root, extra, `req-${pattern.source.length}`);
        const token = await leaseFor(root, runId);
        arrange();
        const status = blocked(root, ['acceptance', runId, '--lease', token], pattern);
        assert.equal(status.last_acceptance_ok, false);
        assert.ok(
          fs
            .readdirSync(join(runDirOf(root, runId), 'artifacts'))
            .includes('run-c1-validation-failure.json'),
        );
        ok(batonRun(root, ['cancel', runId, '--reason', 'next case']));
        fs.rmSync(join(root, 'accept-exit'), { force: true });
        fs.rmSync(join(root, 'accept-hang'), { force: true });
      }
      const runId = ok(
        batonRun(root, [
          'start',
          '--request',
          'missing',
          '--task',
          't',
          '--spec',
          'spec.md',
          '--acceptance',
          'no-such-program-baton --flag',
        ]),
      ).run_id as string;
      blocked(
        root,
        ['acceptance', runId, '--lease', await leaseFor(root, runId)],
        /acceptance could not start/,
      );
    });
  });

  describe('checkpoint', () => {
    it('refuses a wrong stage, no artifacts, no acceptance and a stale acceptance', async () => {
      const runId = await startRun(root, ['--stages', 'implementation,docs']);
      const token = await leaseFor(root, runId);
      ok(batonRun(root, ['stage-start', runId, 'implementation', '--lease', token]));
      const work = evidence(root, 'work.md', 'work\n');
      refused(
        root,
        runId,
        ['checkpoint', runId, 'implementation', '--artifact', `${work}:work`, '--lease', token],
        2,
        /no passing acceptance/,
      );
      ok(batonRun(root, ['acceptance', runId, '--lease', token]));
      refused(
        root,
        runId,
        ['checkpoint', runId, 'docs', '--artifact', `${work}:work`, '--lease', token],
        2,
        /active stage .* is implementation, not docs/,
      );
      refused(
        root,
        runId,
        ['checkpoint', runId, 'implementation', '--lease', token],
        2,
        /at least one artifact/,
      );
      ok(
        batonRun(root, [
          'checkpoint',
          runId,
          'implementation',
          '--artifact',
          `${work}:work`,
          '--lease',
          token,
        ]),
      );
      ok(batonRun(root, ['stage-start', runId, 'docs', '--lease', token]));
      const more = evidence(root, 'docs.md', 'docs\n');
      refused(
        root,
        runId,
        ['checkpoint', runId, 'docs', '--artifact', `${more}:docs`, '--lease', token],
        2,
        /stale/,
      );
    });
  });

  describe('review', () => {
    const lanesOf = (cycle: number, structured: string[] = [], independent: string[] = []) => [
      '--lane',
      `structured=${laneFile(root, 'structured', cycle, structured)}`,
      '--lane',
      `independent=${laneFile(root, 'independent', cycle, independent)}`,
    ];

    it('refuses mixed cycles and a declared BLOCKING_FINDINGS that does not match; Minor and Nit do not block', async () => {
      const { runId, token } = await runAtReview(root);
      refused(
        root,
        runId,
        ['review', runId, '--cycle', '2', ...lanesOf(2), '--lease', token],
        2,
        /review cycle 1, not 2/,
      );
      refused(
        root,
        runId,
        [
          'review',
          runId,
          '--cycle',
          '1',
          '--lane',
          `structured=${laneFile(root, 'structured', 2)}`,
          '--lane',
          `independent=${laneFile(root, 'independent', 1)}`,
          '--lease',
          token,
        ],
        2,
        /mixed generations/,
      );
      const declared = evidence(
        root,
        'declared.txt',
        'CYCLE: 1\nFINDING a-1 Minor small\nBLOCKING_FINDINGS: 1\n',
      );
      refused(
        root,
        runId,
        [
          'review',
          runId,
          '--cycle',
          '1',
          '--lane',
          `structured=${declared}`,
          '--lane',
          `independent=${laneFile(root, 'independent', 1)}`,
          '--lease',
          token,
        ],
        2,
        /BLOCKING_FINDINGS 1/,
      );
      const status = ok(
        batonRun(root, [
          'review',
          runId,
          '--cycle',
          '1',
          ...lanesOf(1, ['a-1 Minor small', 'a-2 LOW tiny'], ['b-1 Nit wording']),
          '--lease',
          token,
        ]),
      );
      assert.deepEqual(
        [status.status, status.blocking_findings],
        ['WAITING_FOR_HUMAN_APPROVAL', 0],
      );
    });

    it('blocking findings go to FINDINGS_PENDING; at the cycle limit the run blocks; retry needs --add-cycles', async () => {
      const runId = await startRun(root, ['--max-cycles', '1']);
      const token = await leaseFor(root, runId);
      ok(batonRun(root, ['stage-start', runId, 'implementation', '--lease', token]));
      ok(batonRun(root, ['acceptance', runId, '--lease', token]));
      ok(
        batonRun(root, [
          'checkpoint',
          runId,
          'implementation',
          '--artifact',
          `${evidence(root, 'w.md', 'w\n')}:work`,
          '--lease',
          token,
        ]),
      );
      blocked(
        root,
        [
          'review',
          runId,
          '--cycle',
          '1',
          ...lanesOf(1, ['s-1 HIGH the token is logged']),
          '--lease',
          token,
        ],
        /review cycle limit reached with 1 blocking findings/,
      );
      refused(root, runId, ['retry', runId], 2, /cycle limit .*--add-cycles/);
      const status = ok(batonRun(root, ['retry', runId, '--add-cycles', '1']));
      assert.deepEqual(
        [status.status, status.phase, status.max_review_cycles],
        ['ACTIVE', 'FINDINGS_PENDING', 2],
      );
    });

    it('resolve-review without a validation, or with a negative one, blocks the run; a positive and complete one opens the next cycle', async () => {
      const { runId, token } = await runAtReview(root);
      ok(
        batonRun(root, [
          'review',
          runId,
          '--cycle',
          '1',
          ...lanesOf(1, ['s-1 Critical injection']),
          '--lease',
          token,
        ]),
      );
      const resolution = evidence(
        root,
        'resolution.json',
        JSON.stringify({ cycle: 1, resolved: [{ id: 's-1', change: 'escaped', tests: 'a test' }] }),
      );
      blocked(
        root,
        ['resolve-review', runId, '--cycle', '1', '--resolution', resolution, '--lease', token],
        /no validation/,
      );
      ok(batonRun(root, ['retry', runId]));
      const token2 = await leaseFor(root, runId);
      const negative = evidence(
        root,
        'negative.json',
        JSON.stringify({ cycle: 1, findings: [{ id: 's-1', valid: true, reason: '' }] }),
      );
      blocked(
        root,
        [
          'resolve-review',
          runId,
          '--cycle',
          '1',
          '--validation',
          negative,
          '--resolution',
          resolution,
          '--lease',
          token2,
        ],
        /s-1/,
      );
      ok(batonRun(root, ['retry', runId]));
      const token3 = await leaseFor(root, runId);
      const positive = evidence(
        root,
        'positive.json',
        JSON.stringify({ cycle: 1, findings: [{ id: 's-1', valid: true, reason: 'reproduced' }] }),
      );
      const status = ok(
        batonRun(root, [
          'resolve-review',
          runId,
          '--cycle',
          '1',
          '--validation',
          positive,
          '--resolution',
          resolution,
          '--lease',
          token3,
        ]),
      );
      assert.deepEqual([status.phase, status.review_cycle], ['REVIEW_PENDING', 2]);
      refused(
        root,
        runId,
        ['review', runId, '--cycle', '2', ...lanesOf(2), '--lease', token3],
        2,
        /ran before the last resolution/,
      );
    });
  });

  describe('the owner', () => {
    it('approve only from WAITING_FOR_HUMAN_APPROVAL; request-changes reopens the first stage of the same run', async () => {
      const { runId, token } = await runAtReview(root);
      refused(root, runId, ['approve', runId], 2, /needs WAITING_FOR_HUMAN_APPROVAL/);
      ok(
        batonRun(root, [
          'review',
          runId,
          '--cycle',
          '1',
          '--lane',
          `structured=${laneFile(root, 'structured', 1)}`,
          '--lane',
          `independent=${laneFile(root, 'independent', 1)}`,
          '--lease',
          token,
        ]),
      );
      const changed = ok(
        batonRun(root, [
          'request-changes',
          runId,
          '--note',
          'rename the flag',
          '--note',
          'add a test',
        ]),
      );
      assert.deepEqual(
        [
          changed.run_id,
          changed.status,
          changed.phase,
          changed.review_cycle,
          changed.last_checkpoint_at,
          changed.last_acceptance_ok,
        ],
        [runId, 'ACTIVE', 'IDLE', 2, null, null],
      );
      const notes = fs.readFileSync(
        join(runDirOf(root, runId), 'artifacts', 'run-c1-change-request.json'),
        'utf8',
      );
      assert.match(notes, /rename the flag/);
      ok(batonRun(root, ['stage-start', runId, 'implementation', '--lease', token]));
    });

    it('pause: at once with no active stage after a checkpoint, else requested and honoured at the next checkpoint with the lease released', async () => {
      const runId = await startRun(root);
      const token = await leaseFor(root, runId);
      ok(batonRun(root, ['stage-start', runId, 'implementation', '--lease', token]));
      const requested = ok(batonRun(root, ['pause', runId]));
      assert.deepEqual(
        [requested.status, requested.phase, requested.pause_requested],
        ['ACTIVE', 'PAUSE_REQUESTED', true],
      );
      ok(batonRun(root, ['acceptance', runId, '--lease', token]));
      const paused = ok(
        batonRun(root, [
          'checkpoint',
          runId,
          'implementation',
          '--artifact',
          `${evidence(root, 'w.md', 'w\n')}:work`,
          '--lease',
          token,
        ]),
      );
      assert.deepEqual(
        [paused.status, paused.phase, paused.pause_requested, paused.lease],
        ['PAUSED', 'REVIEW_PENDING', false, { held: false }],
      );
      assert.equal(fs.existsSync(join(runDirOf(root, runId), 'lease.json')), false);
      const resumed = ok(batonRun(root, ['resume', runId]));
      assert.deepEqual([resumed.status, resumed.phase], ['ACTIVE', 'REVIEW_PENDING']);
      const now = ok(batonRun(root, ['pause', runId]));
      assert.equal(now.status, 'PAUSED');
    });
  });

  describe('the lease', () => {
    it('a second live controller is refused (75), a wrong token refused (2), a stale lease taken only with --reclaim-stale', async () => {
      const runId = await startRun(root);
      const token = await leaseFor(root, runId);
      refused(
        root,
        runId,
        ['lease', runId, 'acquire', '--pid', String(process.pid)],
        75,
        /lease held by pid/,
      );
      refused(
        root,
        runId,
        ['stage-start', runId, 'implementation', '--lease', 'f'.repeat(32)],
        2,
        /token/,
      );
      editLease(root, runId, (l) => {
        l.acquired_at = l.heartbeat_at = '2000-01-01T00:00:00.000Z';
        l.expires_at = '2000-01-01T00:01:00.000Z';
      });
      refused(
        root,
        runId,
        ['lease', runId, 'acquire', '--pid', String(process.pid)],
        2,
        /stale lease.*--reclaim-stale/,
      );
      const status = ok(
        batonRun(root, [
          'lease',
          runId,
          'acquire',
          '--pid',
          String(process.pid),
          '--reclaim-stale',
        ]),
      );
      assert.notEqual(status.lease.token, token);
      assert.equal(recordOf(root, runId).history.at(-1).action, 'lease reclaim');
    });
  });

  describe('provider', () => {
    it('retries with a recorded backoff, then blocks with a provider-failure artifact', async () => {
      const runId = await startRun(root, ['--retry-attempts', '3', '--retry-base-ms', '250']);
      const token = await leaseFor(root, runId);
      const fail = () =>
        batonRun(root, [
          'provider',
          runId,
          '--name',
          'claude',
          '--failed',
          'rate limited',
          '--lease',
          token,
        ]);
      assert.deepEqual([ok(fail()).retry_in_ms, ok(fail()).retry_in_ms], [250, 500]);
      assert.deepEqual(
        recordOf(root, runId)
          .history.filter((h: any) => h.action === 'provider')
          .map((h: any) => /retry in (\d+) ms/.exec(h.detail)?.[1]),
        ['250', '500'],
      );
      const r = fail();
      assert.equal(r.code, 2);
      assert.equal(JSON.parse(r.stdout).status, 'BLOCKED');
      assert.ok(
        fs
          .readdirSync(join(runDirOf(root, runId), 'artifacts'))
          .some((n) => n.includes('provider-failure')),
      );
    });
  });

  describe('resume and retry verification (§7): each check with its own message, nothing changed', () => {
    it('owner, machine, release, repo root, base commit, ancestry, drift, a damaged artifact, a live lease', async () => {
      const { runId } = await runAtReview(root);
      const liveLease = fs.readFileSync(join(runDirOf(root, runId), 'lease.json'));
      ok(batonRun(root, ['pause', runId]));
      const check = (edit: (r: Record<string, any>) => void, pattern: RegExp) => {
        const original = fs.readFileSync(join(runDirOf(root, runId), 'workflow.json'));
        editRecord(root, runId, edit);
        refused(root, runId, ['resume', runId], 2, pattern);
        fs.writeFileSync(join(runDirOf(root, runId), 'workflow.json'), original);
      };
      const recordChecks: [(r: Record<string, any>) => void, RegExp][] = [
        [(r) => (r.owner = 'someone-else'), /belongs to someone-else; you are/],
        [(r) => (r.machine_id = '0'.repeat(32)), /run was made on machine/],
        [(r) => (r.runtime_release = '9.9.9'), /made by baton 9\.9\.9/],
        [(r) => (r.repo_root = '/no/such/repo'), /repo_root '\/no\/such\/repo' does not exist/],
        [(r) => (r.base_commit = 'b'.repeat(40)), /base commit b+ does not exist/],
      ];
      // The owner and the release are also among the every-check-at-once test's lines.
      for (const [edit, pattern] of casesOf(recordChecks, (_, i) => i % 2 === 1))
        check(edit, pattern);
      fs.writeFileSync(join(root, 'spec.md'), 'changed\n');
      refused(root, runId, ['resume', runId], 2, /tracked files modified .*spec\.md/);
      git(root, 'checkout', '-q', 'spec.md');
      commitIn(root, 'moved on');
      refused(root, runId, ['resume', runId], 2, /HEAD moved since the last checkpoint/);
      git(root, 'reset', '-q', '--hard', 'HEAD~1');
      git(root, 'checkout', '-q', '--orphan', 'elsewhere');
      commitIn(root, 'unrelated');
      // An unrelated HEAD fails two checks: ancestry, and HEAD = the last checkpoint.
      refused(
        root,
        runId,
        ['resume', runId],
        2,
        /does not descend from base commit(.|\n)*HEAD moved since the last checkpoint/,
        2,
      );
      git(root, 'checkout', '-q', '-f', 'main');
      const work = recordOf(root, runId).artifacts[1].path as string;
      const original = fs.readFileSync(join(runDirOf(root, runId), work));
      fs.appendFileSync(join(runDirOf(root, runId), work), 'x');
      refused(root, runId, ['resume', runId], 2, /artifact changed or missing/);
      fs.writeFileSync(join(runDirOf(root, runId), work), original);
      fs.writeFileSync(join(runDirOf(root, runId), 'lease.json'), liveLease);
      refused(
        root,
        runId,
        ['resume', runId],
        2,
        new RegExp(`a live lease is held by pid ${process.pid}`),
      );
      fs.rmSync(join(runDirOf(root, runId), 'lease.json'));
      assert.equal(ok(batonRun(root, ['resume', runId])).status, 'ACTIVE');
    });

    it('every failed check at once, one line each, exit 2, nothing changed: resume and retry alike', async () => {
      const { runId, token } = await runAtReview(root);
      const dir = runDirOf(root, runId);
      const liveLease = fs.readFileSync(join(dir, 'lease.json'));
      ok(batonRun(root, ['pause', runId]));
      editRecord(root, runId, (r) => {
        r.owner = 'someone-else';
        r.runtime_release = '9.9.9';
      });
      fs.writeFileSync(join(root, 'spec.md'), 'changed\n');
      fs.appendFileSync(join(dir, recordOf(root, runId).artifacts[1].path as string), 'x');
      fs.writeFileSync(join(dir, 'lease.json'), liveLease);
      const expected = [
        new RegExp(
          `^baton run resume: resume: run ${runId} belongs to someone-else; you are \\S+$`,
        ),
        /^baton run resume: resume: run was made by baton 9\.9\.9; this is baton \S+$/,
        /^baton run resume: resume: tracked files modified since the last checkpoint: spec\.md$/,
        /^baton run resume: resume: artifact changed or missing: artifacts\/\S+ \(changed/,
        new RegExp(`^baton run resume: resume: a live lease is held by pid ${process.pid} on `),
      ];
      const check = (args: string[], lines: RegExp[]) => {
        const before = snapshotOf(dir);
        const r = batonRun(root, args);
        assert.deepEqual([r.code, r.stdout], [2, ''], r.stderr);
        const printed = r.stderr.split('\n').filter(Boolean);
        assert.equal(printed.length, lines.length, r.stderr);
        lines.forEach((pattern, i) => assert.match(printed[i]!, pattern));
        assert.deepEqual(snapshotOf(dir), before);
      };
      check(['resume', runId], expected);
      editRecord(root, runId, (r) => {
        r.status = 'BLOCKED';
        r.block_reason = 'by hand';
      });
      const retryLines = expected
        .filter((_, i) => i !== 2)
        .map((p) => new RegExp(p.source.replaceAll('resume', 'retry')));
      check(['retry', runId], retryLines);
      void token;
    });
  });
});

/** Rewrites lease.json by hand. */
function editLease(root: string, runId: string, edit: (l: Record<string, any>) => void): void {
  const path = join(runDirOf(root, runId), 'lease.json');
  const lease = JSON.parse(fs.readFileSync(path, 'utf8')) as Record<string, any>;
  edit(lease);
  fs.writeFileSync(path, JSON.stringify(lease));
}
