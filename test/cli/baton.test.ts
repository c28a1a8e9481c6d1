import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { runBaton } from '../../lib/cli/baton.js';
import { batonVersion } from '../../lib/proc/version.js';
import { formatRoles } from '../../lib/handoff/roles.js';
import { tempDir } from '../support/project.js';

interface Captured {
  stdout: string;
  stderr: string;
  exitCode: number | string | undefined;
  exits: (number | string | null | undefined)[];
}

/**
 * Runs runBaton with stdout/stderr writes, process.exitCode and process.exit captured
 * (yargs calls process.exit after --help and --version), restoring all of them after.
 */
async function baton(argv: string[], env: Record<string, string> = {}): Promise<Captured> {
  const out: string[] = [];
  const err: string[] = [];
  const exits: Captured['exits'] = [];
  const saved = {
    out: process.stdout.write,
    err: process.stderr.write,
    exit: process.exit,
    exitCode: process.exitCode,
  };
  const savedEnv = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  process.exitCode = undefined;
  Object.assign(process.env, env);
  process.stdout.write = ((chunk: string | Uint8Array) => {
    out.push(Buffer.from(chunk).toString());
    return true;
  }) as typeof process.stdout.write;
  process.stderr.write = ((chunk: string | Uint8Array) => {
    err.push(Buffer.from(chunk).toString());
    return true;
  }) as typeof process.stderr.write;
  process.exit = ((code?: number | string | null) => {
    exits.push(code);
  }) as typeof process.exit;
  try {
    await runBaton(argv);
    return { stdout: out.join(''), stderr: err.join(''), exitCode: process.exitCode, exits };
  } finally {
    process.stdout.write = saved.out;
    process.stderr.write = saved.err;
    process.exit = saved.exit;
    process.exitCode = saved.exitCode;
    for (const [k, v] of Object.entries(savedEnv)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

describe('lib/cli/baton', () => {
  it('--help lists every command on stdout and exits 0', async () => {
    const r = await baton(['--help']);
    assert.equal(r.stderr, '');
    assert.ok(r.stdout.startsWith('baton <command>\n'), r.stdout);
    for (const cmd of [
      'baton init',
      'baton status',
      'baton doctor',
      'baton handoff <draft>',
      'baton ready',
      'baton done [id]',
    ]) {
      assert.ok(r.stdout.includes(cmd), cmd);
    }
    assert.deepEqual(r.exits, [0]);
    assert.ok(!r.exitCode, 'no failure exit code');
  });

  it('--version prints the package version and exits 0', async () => {
    const r = await baton(['--version']);
    assert.deepEqual([r.stdout, r.stderr, r.exits], [`${batonVersion()}\n`, '', [0]]);
  });

  it('an unknown command is a usage error on stderr, exit code 1', async () => {
    const r = await baton(['frobnicate']);
    assert.deepEqual(
      [r.stdout, r.stderr, r.exitCode],
      ['', "baton: Unknown argument: frobnicate\nRun 'baton --help' for usage.\n", 1],
    );
  });

  it('no command at all is a usage error too', async () => {
    const r = await baton([]);
    assert.deepEqual(
      [r.stdout, r.stderr, r.exitCode],
      ['', "baton: Name a command; see baton --help.\nRun 'baton --help' for usage.\n", 1],
    );
  });

  it('a command failure goes through describeFailure (no stack): status without a project root, exit 1', async () => {
    const dir = tempDir();
    try {
      const r = await baton(['status'], { SWARMFORGE_ROOT: dir });
      assert.deepEqual([r.stdout, r.exitCode], ['', 1]);
      assert.equal(
        r.stderr,
        `Cannot find SwarmForge project root: SWARMFORGE_ROOT=${dir} has no .swarmforge/roles.tsv\n` +
          `Run 'baton init' in ${dir} (where swarmforge/swarmforge.conf is), or unset SWARMFORGE_ROOT.\n`,
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("status --json prints the statusOf rows of the project and the daemon's status", async () => {
    const dir = tempDir();
    try {
      fs.mkdirSync(join(dir, '.swarmforge'));
      fs.writeFileSync(
        join(dir, '.swarmforge', 'roles.tsv'),
        formatRoles([
          {
            role: 'QA',
            worktreeName: 'master',
            worktreePath: dir,
            session: 's',
            displayName: 'QA',
            agent: 'claude',
            mode: 'batch',
          },
        ]),
      );
      const r = await baton(['status', '--json'], { SWARMFORGE_ROOT: dir });
      assert.equal(r.stderr, '');
      assert.ok(!r.exitCode);
      assert.deepEqual(JSON.parse(r.stdout), {
        roles: [
          {
            role: 'QA',
            mode: 'batch',
            outbox: 0,
            new: 0,
            in_process: 0,
            completed: 0,
            failed: 0,
            oldest_waiting_s: null,
            in_process_s: null,
            in_process_path: null,
            rewakes_spent: false,
            unclaimed_min: null,
          },
        ],
        daemon: {
          running: false,
          pid: null,
          last_pass_at: null,
          passes: 0,
          delivered: 0,
          failed: 0,
          errors: 0,
        },
      });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
