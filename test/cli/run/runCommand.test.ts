// lib/cli/runCommand: `baton run <action>` in process: help, usage errors (exit 1), the
// JSON status of a success, a refusal (one line, exit 2, nothing printed on stdout), a
// blocking outcome (the status still printed, its reason on stderr, exit 2) and a busy
// lease (exit 75). stdout, stderr, the exit code, the directory and the environment are
// captured and restored around each call.
//
// The command is loaded with import(), as bin/baton.ts loads it: it imports the runtime
// with import(), and under mocha a statically imported module is another instance than the
// same module imported with import(), so the failures the runtime throws would not be
// recognised by a statically imported failure.ts.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import type * as RunCommand from '../../../lib/cli/run/runCommand.js';
import { runPathsOf } from '../../../lib/project/layout.js';
import { readWorkflow } from '../../../lib/run/record/runStore.js';
import { waitFor } from '../../support/daemon.js';
import { tempDir } from '../../support/project.js';
import { makeRunRepo } from '../../support/runs.js';

let runRunCommand: typeof RunCommand.runRunCommand;
let runUsage: typeof RunCommand.runUsage;

interface Captured {
  stdout: string;
  stderr: string;
  exitCode: number | string | undefined;
}

/** Starts `baton run ARGV` in `cwd` with `env` set (SWARMFORGE_ROOT unset unless given), capturing its output and exit code until it ends. */
function startBatonRun(
  cwd: string,
  argv: string[],
  env: Record<string, string | undefined> = {},
): { stdout: () => string; done: Promise<Captured> } {
  const out: string[] = [];
  const err: string[] = [];
  const vars = { SWARMFORGE_ROOT: undefined, ...env };
  const saved = {
    out: process.stdout.write,
    err: process.stderr.write,
    exitCode: process.exitCode,
    cwd: process.cwd(),
  };
  const savedEnv = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  const setEnv = (values: Record<string, string | undefined>) => {
    for (const [k, v] of Object.entries(values)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  };
  process.exitCode = undefined;
  setEnv(vars);
  process.chdir(cwd);
  process.stdout.write = ((chunk: string | Uint8Array) =>
    out.push(Buffer.from(chunk).toString()) > 0) as typeof process.stdout.write;
  process.stderr.write = ((chunk: string | Uint8Array) =>
    err.push(Buffer.from(chunk).toString()) > 0) as typeof process.stderr.write;
  const done = (async () => {
    try {
      await runRunCommand(argv, (text) => void process.stdout.write(text));
      return { stdout: out.join(''), stderr: err.join(''), exitCode: process.exitCode };
    } finally {
      process.stdout.write = saved.out;
      process.stderr.write = saved.err;
      process.exitCode = saved.exitCode;
      process.chdir(saved.cwd);
      setEnv(savedEnv);
    }
  })();
  return { stdout: () => out.join(''), done };
}

/** Runs `baton run ARGV` in `cwd` to its end. */
function batonRun(
  cwd: string,
  argv: string[],
  env: Record<string, string | undefined> = {},
): Promise<Captured> {
  return startBatonRun(cwd, argv, env).done;
}

/** The JSON a success printed (no stderr, no exit code). */
function ok(r: Captured): Record<string, any> {
  assert.deepEqual([r.stderr, r.exitCode], ['', undefined], r.stderr);
  assert.ok(r.stdout.endsWith('}\n') || r.stdout.endsWith(']\n'), r.stdout);
  return JSON.parse(r.stdout) as Record<string, any>;
}

describe('lib/cli/run/runCommand', () => {
  let root: string;
  before(async () => {
    ({ runRunCommand, runUsage } = await import('../../../lib/cli/run/runCommand.js'));
  });
  beforeEach(() => {
    root = makeRunRepo();
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  const start = async (extra: string[] = []) =>
    ok(
      await batonRun(root, [
        'start',
        '--request',
        'req-1',
        '--task',
        'add the thing',
        '--spec',
        'spec.md',
        '--acceptance',
        'true',
        ...extra,
      ]),
    ).run_id as string;
  const leaseFor = async (runId: string) =>
    ok(await batonRun(root, ['lease', runId, 'acquire', '--pid', String(process.pid)])).lease
      .token as string;

  describe('help', () => {
    it('`baton run --help` and `-h` print the actions on stdout, exit 0; `baton run` alone prints them and exits 1', async () => {
      for (const flag of ['--help', '-h'])
        assert.deepEqual(await batonRun(root, [flag]), {
          stdout: runUsage(),
          stderr: '',
          exitCode: undefined,
        });
      assert.deepEqual(await batonRun(root, []), { stdout: runUsage(), stderr: '', exitCode: 1 });
      const usage = runUsage();
      assert.ok(usage.startsWith('Usage: baton run <action> [RUN-ID] [options]\n'), usage);
      for (const action of [
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
        'lease',
        'stage-start',
        'acceptance',
        'checkpoint',
        'artifact',
        'review',
        'resolve-review',
        'provider',
        'block',
      ]) {
        assert.match(usage, new RegExp(`^  ${action} +\\S`, 'm'), action);
      }
    });

    it('`baton run <action> --help` prints its usage, even outside any repository and with its other arguments missing', async () => {
      const nowhere = tempDir();
      try {
        assert.deepEqual(await batonRun(nowhere, ['pause', '--help']), {
          stdout:
            'Usage: baton run pause RUN-ID\n\nPause now (no active stage) or at the next checkpoint.\n',
          stderr: '',
          exitCode: undefined,
        });
        const checkpoint = await batonRun(nowhere, ['checkpoint', '--help']);
        assert.ok(
          checkpoint.stdout.startsWith(
            'Usage: baton run checkpoint RUN-ID STAGE --artifact PATH:TYPE [--artifact ...] --lease TOKEN\n',
          ),
          checkpoint.stdout,
        );
      } finally {
        fs.rmSync(nowhere, { recursive: true, force: true });
      }
    });
  });

  describe('usage errors: one line on stderr, exit 1, nothing on stdout', () => {
    const cases: [string, string[], string][] = [
      [
        'an unknown action',
        ['frobnicate'],
        "baton run: unknown action 'frobnicate'; see baton run --help",
      ],
      [
        'an unknown action with a control character, shown printable',
        ['x\u001b[2J'],
        "baton run: unknown action 'x\\u001b[2J'; see baton run --help",
      ],
      [
        'an unknown option',
        ['pause', 'run-20260101T000000Z-000000', '--bogus'],
        "baton run pause: unknown option '--bogus'; see baton run pause --help",
      ],
      [
        'an unknown short option',
        ['list', '-x'],
        "baton run list: unknown option '-x'; see baton run list --help",
      ],
      [
        'an option without its value',
        ['cancel', 'run-20260101T000000Z-000000', '--reason'],
        "baton run cancel: Option '--reason <value>' argument missing; see baton run cancel --help",
      ],
      [
        'a value given to a flag',
        ['resume', 'run-20260101T000000Z-000000', '--reclaim-stale=yes'],
        "baton run resume: Option '--reclaim-stale' does not take an argument; see baton run resume --help",
      ],
      [
        'a missing run id',
        ['pause'],
        'baton run pause: missing run-id; usage: baton run pause RUN-ID',
      ],
      [
        'a missing stage',
        ['stage-start', 'run-20260101T000000Z-000000', '--lease', 't'],
        'baton run stage-start: missing stage; usage: baton run stage-start RUN-ID STAGE --lease TOKEN',
      ],
      [
        'an extra argument',
        ['pause', 'run-20260101T000000Z-000000', 'now'],
        "baton run pause: unexpected argument 'now'; usage: baton run pause RUN-ID",
      ],
      [
        'a malformed run id',
        ['status', 'run-1'],
        "baton run status: malformed run id 'run-1': expected run-<YYYYMMDDTHHMMSSZ>-<6 hex>",
      ],
      [
        'a missing required option',
        ['cancel', 'run-20260101T000000Z-000000'],
        'baton run cancel: cancel: --reason is required',
      ],
    ];
    for (const [what, argv, line] of cases) {
      it(what, async () => {
        assert.deepEqual(await batonRun(root, argv), {
          stdout: '',
          stderr: `${line}\n`,
          exitCode: 1,
        });
      });
    }

    it('an unknown run id', async () => {
      const r = await batonRun(root, ['status', 'run-20260101T000000Z-000000']);
      assert.deepEqual([r.stdout, r.exitCode], ['', 1]);
      assert.equal(
        r.stderr,
        `baton run status: unknown run 'run-20260101T000000Z-000000': no ${runPathsOf(root, 'run-20260101T000000Z-000000').workflow}\n`,
      );
    });

    it('no ROOT: outside a repository without SWARMFORGE_ROOT', async () => {
      const nowhere = tempDir();
      try {
        const r = await batonRun(nowhere, ['list']);
        assert.deepEqual([r.stdout, r.exitCode], ['', 1]);
        assert.match(
          r.stderr,
          /^baton run list: no run ROOT for '.*' \(fatal: not a git repository.*\): run this inside your project's git repository \(its main checkout or a worktree\), or set SWARMFORGE_ROOT\n$/,
        );
        assert.deepEqual(ok(await batonRun(nowhere, ['list'], { SWARMFORGE_ROOT: root })), []);
      } finally {
        fs.rmSync(nowhere, { recursive: true, force: true });
      }
    });
  });

  describe('outcomes', () => {
    it("a success prints the run's JSON status (2-space indented), from the repository or any folder in it", async () => {
      const runId = await start();
      fs.mkdirSync(join(root, 'sub'));
      const r = await batonRun(join(root, 'sub'), ['status', runId]);
      const status = ok(r);
      assert.equal(r.stdout, `${JSON.stringify(status, null, 2)}\n`);
      assert.deepEqual(
        [status.run_id, status.status, status.phase, status.lease],
        [runId, 'ACTIVE', 'IDLE', { held: false }],
      );
      const listed = ok(await batonRun(root, ['list']));
      assert.deepEqual(
        (listed as unknown as { run_id: string }[]).map((s) => s.run_id),
        [runId],
      );
    });

    it('a refusal: one line naming the rule, exit 2, nothing on stdout, the record byte-identical', async () => {
      const runId = await start();
      const before = fs.readFileSync(runPathsOf(root, runId).workflow);
      assert.deepEqual(await batonRun(root, ['approve', runId]), {
        stdout: '',
        stderr: `baton run approve: approve: run ${runId} is ACTIVE; approve needs WAITING_FOR_HUMAN_APPROVAL\n`,
        exitCode: 2,
      });
      assert.deepEqual(
        await batonRun(root, ['stage-start', runId, 'implementation', '--lease', 'f'.repeat(32)]),
        {
          stdout: '',
          stderr: `baton run stage-start: run ${runId} has no lease: acquire one with 'baton run lease ${runId} acquire'\n`,
          exitCode: 2,
        },
      );
      assert.deepEqual(fs.readFileSync(runPathsOf(root, runId).workflow), before);
    });

    it('a blocking outcome: the status still printed on stdout, the reason on stderr, exit 2', async () => {
      const runId = await start(['--retry-attempts', '1']);
      const token = await leaseFor(runId);
      const r = await batonRun(root, [
        'provider',
        runId,
        '--name',
        'claude',
        '--failed',
        'quota exhausted',
        '--lease',
        token,
      ]);
      assert.equal(r.exitCode, 2);
      assert.equal(
        r.stderr,
        'baton run provider: blocked: provider claude failed 1 time(s): quota exhausted\n',
      );
      const status = JSON.parse(r.stdout) as Record<string, any>;
      assert.deepEqual(
        [status.run_id, status.status, status.block_reason, status.lease],
        [runId, 'BLOCKED', 'provider claude failed 1 time(s): quota exhausted', { held: false }],
      );
      assert.equal(readWorkflow(root, runId).workflow.status, 'BLOCKED');
    });

    // BUG-BEGIN (left out of the commit: a failing test of a bug in lib/cli/run/runCommand.ts, the blocked line)
    it('the reason of a blocking outcome is printed on stderr with its secrets redacted, as the status shows it', async () => {
      const runId = await start(['--retry-attempts', '1']);
      const token = await leaseFor(runId);
      const secret = 'sk-abcdefghijklmnopqrstuvwx';
      const r = await batonRun(root, [
        'provider',
        runId,
        '--name',
        'p',
        '--failed',
        `rejected API_KEY=${secret}`,
        '--lease',
        token,
      ]);
      assert.equal(r.exitCode, 2);
      assert.ok(!r.stdout.includes(secret), 'the status redacts it');
      assert.ok(!r.stderr.includes(secret), r.stderr);
    });
    // BUG-END

    it('a failed acceptance is a blocking outcome too', async () => {
      const runId = ok(
        await batonRun(root, [
          'start',
          '--request',
          'r',
          '--task',
          't',
          '--spec',
          'spec.md',
          '--acceptance',
          'false',
        ]),
      ).run_id as string;
      const token = await leaseFor(runId);
      const r = await batonRun(root, ['acceptance', runId, '--lease', token]);
      assert.deepEqual(
        [r.exitCode, r.stderr, JSON.parse(r.stdout).status],
        [2, 'baton run acceptance: blocked: acceptance failed: exit 1\n', 'BLOCKED'],
      );
    });

    it('a block asked for is no failure: exit 0', async () => {
      const runId = await start();
      const token = await leaseFor(runId);
      assert.equal(
        ok(
          await batonRun(root, ['block', runId, '--reason', 'waiting for a key', '--lease', token]),
        ).status,
        'BLOCKED',
      );
    });

    it('a live lease is busy: exit 75', async () => {
      const runId = await start();
      await leaseFor(runId);
      const r = await batonRun(root, ['lease', runId, 'acquire', '--pid', String(process.pid)]);
      assert.equal(r.exitCode, 75);
      assert.match(
        r.stderr,
        new RegExp(`^baton run lease: lease held by pid ${process.pid} on .* until .*\\n$`),
      );
      assert.equal(r.stdout, '');
    });

    it('the lease token is printed by lease acquire only', async () => {
      const runId = await start();
      const token = await leaseFor(runId);
      assert.match(token, /^[0-9a-f]{32}$/);
      const status = ok(await batonRun(root, ['status', runId]));
      assert.equal(status.lease.token, undefined);
      assert.ok(!JSON.stringify(status).includes(token));
    });

    it('status --watch draws the status and returns when interrupted (SIGINT)', async () => {
      const runId = await start();
      const signals = {
        SIGINT: process.listeners('SIGINT'),
        SIGTERM: process.listeners('SIGTERM'),
      };
      process.removeAllListeners('SIGINT');
      try {
        const watch = startBatonRun(root, ['status', runId, '--watch']);
        await waitFor('the first draw', () => watch.stdout().length > 0);
        assert.equal(process.listenerCount('SIGINT'), 1, 'the watch waits for SIGINT');
        process.emit('SIGINT', 'SIGINT');
        const r = await watch.done;
        assert.deepEqual([r.exitCode, r.stderr], [undefined, '']);
        assert.equal(JSON.parse(r.stdout).run_id, runId);
      } finally {
        for (const name of ['SIGINT', 'SIGTERM'] as const) {
          process.removeAllListeners(name);
          for (const l of signals[name]) process.on(name, l);
        }
      }
    });
  });
});
