// Black-box: every installed command name (each bin of package.json, the .sh aliases
// included) prints the package version for --version, from the build (a copy of the bins
// with no package.json anywhere above them still knows it); baton-scripted-agent --help
// prints its usage instead of starting an agent, baton-scripted-reviewer --help instead of reviewing.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { BIN_DIR, tempDir } from '../support/project.js';

const PKG = JSON.parse(fs.readFileSync('package.json', 'utf8')) as {
  version: string;
  bin: Record<string, string>;
};

describe('--version and --help (built bins)', () => {
  let dir: string;
  beforeEach(() => {
    dir = tempDir();
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** Runs `file args` in `dir` with stdin open (a command that starts instead of answering is killed after 10 s and fails). */
  const run = (file: string, args: string[]) =>
    spawnSync(file, args, {
      cwd: dir,
      input: '',
      timeout: 10_000,
      killSignal: 'SIGKILL',
      encoding: 'utf8',
    });

  it('every command name in package.json, the .sh aliases included, prints the package version, exit 0', () => {
    const names = Object.keys(PKG.bin);
    assert.deepEqual(names.sort(), [
      'baton',
      'baton-scripted-agent',
      'baton-scripted-reviewer',
      'baton-scripted-worker',
      'done_with_current',
      'done_with_current.sh',
      'handoffd',
      'ready_for_next',
      'ready_for_next.sh',
      'swarm_handoff',
      'swarm_handoff.sh',
    ]);
    for (const name of names) {
      fs.symlinkSync(join(BIN_DIR, PKG.bin[name]!.replace(/^dist\/bin\//, '')), join(dir, name));
      const r = run(join(dir, name), ['--version']);
      assert.deepEqual([r.status, r.stdout, r.stderr], [0, `${PKG.version}\n`, ''], name);
    }
  });

  it('the version is built in: a copy of the bins outside the package still prints it', () => {
    fs.cpSync(BIN_DIR, join(dir, 'bin'), { recursive: true });
    for (const bin of ['ready_for_next', 'baton', 'handoffd']) {
      const r = run(process.execPath, [join(dir, 'bin', `${bin}.js`), '--version']);
      assert.deepEqual([r.status, r.stdout], [0, `${PKG.version}\n`], bin);
    }
  });

  it('baton-scripted-agent --help prints its usage and exits without starting (no ready_for_next, no waiting on stdin)', () => {
    const r = run(process.execPath, [join(BIN_DIR, 'baton-scripted-agent.js'), '--help']);
    assert.equal(r.signal, null, 'it started instead of answering');
    assert.equal(r.status, 0, r.stderr);
    assert.match(
      r.stdout,
      /^Usage: baton-scripted-agent \[--next ROLE\] \[--final ROLE\]\s+\[--review\] \[--work-ms N\]\n +\[--ask QUESTION\] \[--findings 'CYCLE=ID SEVERITY TITLE;\.\.\.\|CYCLE=\.\.\.'\]\n +\[--findings-lane structured\|independent\|both\] \[--invalid ID,ID\]\n/,
    );
    assert.doesNotMatch(r.stdout, /scripted agent ready/);
    assert.equal(r.stderr, '');
  });

  it('baton-scripted-agent with a malformed run option says which, exit 1, without starting', () => {
    const r = run(process.execPath, [
      join(BIN_DIR, 'baton-scripted-agent.js'),
      '--findings',
      '1=sec-1 Important the token is logged',
      '--findings-lane',
      'everywhere',
    ]);
    assert.equal(r.signal, null, 'it started instead of refusing');
    assert.deepEqual(
      [r.status, r.stdout, r.stderr],
      [
        1,
        '',
        "baton-scripted-agent: --findings-lane is structured, independent or both, not 'everywhere'\n",
      ],
    );
  });

  it('baton-scripted-reviewer --help prints its usage and exits without reviewing (no findings document)', () => {
    const r = run(process.execPath, [join(BIN_DIR, 'baton-scripted-reviewer.js'), '--help']);
    assert.deepEqual([r.signal, r.status, r.stderr], [null, 0, '']);
    assert.match(r.stdout, /^Usage: baton-scripted-reviewer \[--format json\|markdown\]/);
    assert.doesNotMatch(r.stdout, /^\{/);
  });

  it('baton-scripted-worker --help prints its usage and exits without reading a brief', () => {
    const r = run(process.execPath, [join(BIN_DIR, 'baton-scripted-worker.js'), '--help']);
    assert.deepEqual([r.signal, r.status, r.stderr], [null, 0, '']);
    assert.match(
      r.stdout,
      /^Usage: baton-scripted-worker \[--no-commit\] \[--exit N\]\s+\[--crash\] \[--hang\] \[--pid-file FILE\]\n/,
    );
  });
});
