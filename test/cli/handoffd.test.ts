// The handoffd command line (options, ROOT, exit codes) through the built bin.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { daemonPathsOf } from '../../lib/project/layout.js';
import { waitFor } from '../support/daemon.js';
import { BIN_DIR, makeProject, runBin, tempDir } from '../support/project.js';

describe('lib/cli/handoffd', function () {
  this.timeout(30_000);

  it('--help prints the usage with the three options and exits 0', () => {
    const r = runBin('handoffd', ['--help'], { cwd: process.cwd() });
    assert.equal(r.code, 0);
    assert.equal(r.stderr, '');
    assert.ok(
      r.stdout.startsWith('handoffd [--root DIR] [--poll-interval MS] [--rewake-interval S]\n'),
      r.stdout,
    );
    for (const option of ['--root', '--poll-interval', '--rewake-interval'])
      assert.match(r.stdout, new RegExp(`^ {2}${option} `, 'm'), option);
    assert.match(r.stdout, /--poll-interval .*\[default: 1000\]/);
    assert.match(r.stdout, /\[default: 60\]/);
  });

  it('refuses intervals that are not positive numbers, and unknown arguments: one line, exit 1, before looking for ROOT', () => {
    const cwd = tempDir();
    try {
      for (const args of [
        ['--poll-interval', '0'],
        ['--poll-interval', 'abc'],
        ['--rewake-interval', '-1'],
      ]) {
        const r = runBin('handoffd', args, { cwd });
        assert.deepEqual(
          [r.code, r.stdout, r.stderr],
          [1, '', 'handoffd: intervals must be positive numbers\n'],
          args.join(' '),
        );
      }
      for (const arg of ['--bogus', 'extra']) {
        const r = runBin('handoffd', [arg], { cwd });
        assert.deepEqual(
          [r.code, r.stderr],
          [1, `handoffd: Unknown argument: ${arg.replace(/^--/, '')}\n`],
        );
      }
    } finally {
      fs.rmSync(cwd, { recursive: true, force: true });
    }
  });

  it("outside a project, or with a --root that has no roles.tsv, exits 1 with the protocol's message and a line suggesting baton init", () => {
    const cwd = tempDir();
    try {
      const found = runBin('handoffd', [], { cwd });
      assert.deepEqual(
        [found.code, found.stderr],
        [
          1,
          'Cannot find SwarmForge project root\n' +
            "Run 'baton init' in your project's git repository (where swarmforge/swarmforge.conf is), then run this command inside it.\n",
        ],
      );
      const given = runBin('handoffd', ['--root', cwd], { cwd });
      assert.deepEqual(
        [given.code, given.stderr],
        [
          1,
          `Cannot find SwarmForge project root: SWARMFORGE_ROOT=${cwd} has no .swarmforge/roles.tsv\n` +
            `Run 'baton init' in ${cwd} (where swarmforge/swarmforge.conf is), or unset SWARMFORGE_ROOT.\n`,
        ],
      );
      assert.equal(fs.existsSync(join(cwd, '.swarmforge')), false);
    } finally {
      fs.rmSync(cwd, { recursive: true, force: true });
    }
  });

  it('resolves a relative --root, mirrors the log to stderr unless --quiet, and exits 0 on the stop sentinel', async () => {
    const p = makeProject();
    try {
      for (const quiet of [false, true]) {
        const child = spawn(
          process.execPath,
          [
            join(BIN_DIR, 'handoffd.js'),
            '--root',
            basename(p.root),
            '--poll-interval',
            '100',
            ...(quiet ? ['--quiet'] : []),
          ],
          {
            cwd: dirname(p.root),
            stdio: ['ignore', 'pipe', 'pipe'],
            env: { ...process.env, SWARMFORGE_ROOT: '' },
          },
        );
        let stderr = '';
        child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
        const exited = new Promise<number | null>((resolve) =>
          child.on('exit', (code) => resolve(code)),
        );
        const paths = daemonPathsOf(p.root);
        await waitFor(
          'the pid file',
          () =>
            fs.existsSync(paths.pid) &&
            fs.readFileSync(paths.pid, 'utf8').trim() === String(child.pid),
        );
        fs.writeFileSync(paths.stop, '');
        assert.equal(await exited, 0);
        if (quiet) assert.equal(stderr, '');
        else {
          const lines = stderr.split('\n').filter(Boolean);
          assert.match(lines[0]!, new RegExp(`^\\S+ started pid=${child.pid} root=${p.root}$`));
          assert.match(lines.at(-1)!, new RegExp(`^\\S+ stopped pid=${child.pid}$`));
        }
      }
    } finally {
      p.cleanup();
    }
  });
});
