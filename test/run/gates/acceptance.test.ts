import assert from 'node:assert/strict';
import { killIfWorkingIn } from '../../support/deadProcess.js';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { HeadTailBytes } from '../../../lib/proc/boundedRun.js';
import { CommandFailure } from '../../../lib/fsx/commandFailure.js';
import { processRunning } from '../../../lib/fsx/processIdentity.js';
import {
  ACCEPTANCE_KEEP_BYTES,
  runAcceptance,
  streamRecordOf,
  type AcceptanceRecord,
} from '../../../lib/run/gates/acceptance.js';
import { REDACTED } from '../../../lib/run/gates/redact.js';
import { waitFor } from '../../support/daemon.js';
import { tempDir } from '../../support/project.js';

const KIB = 1024;

/** Source of a program that starts a child in its own (inherited) process group, writes both pids to `pids`, then waits forever. */
const HANG_WITH_CHILD = `
const { spawn } = require('node:child_process');
const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 60000)'], { stdio: 'ignore' });
require('node:fs').writeFileSync('pids', process.pid + '\\n' + child.pid + '\\n');
setInterval(() => {}, 60000);`;

describe('lib/run/gates/acceptance', function () {
  this.timeout(30_000);
  let dir: string;
  /** The command that runs node on program file `name` (written into the test folder) with `args`, quoted for the splitter. */
  const nodeCommand = (name: string, source: string, args = '') => {
    fs.writeFileSync(join(dir, name), source);
    return `'${process.execPath}' ${name} ${args}`.trim();
  };
  const pidsWritten = () =>
    fs.existsSync(join(dir, 'pids'))
      ? fs.readFileSync(join(dir, 'pids'), 'utf8').split('\n').filter(Boolean).map(Number)
      : [];
  beforeEach(() => {
    dir = fs.realpathSync(tempDir());
  });
  afterEach(() => {
    for (const pid of pidsWritten()) killIfWorkingIn(pid, dir);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('runs the command from cwd with the given env and records a pass as JSON-ready data', async () => {
    const command = nodeCommand(
      'pass.js',
      "process.stdout.write(process.cwd() + ' ' + process.env.BATON_X + '\\n'); process.stderr.write('note\\n');",
    );
    const record = await runAcceptance({
      command,
      cwd: dir,
      timeoutMs: 10_000,
      env: { ...process.env, BATON_X: 'x1' },
    });
    assert.deepEqual(
      { ...record, duration_ms: 0 },
      {
        argv: [process.execPath, 'pass.js'],
        cwd: dir,
        outcome: 'passed',
        exit_code: 0,
        signal: null,
        duration_ms: 0,
        node_version: process.version,
        error: null,
        stdout: { head: `${dir} x1\n`, tail: '', dropped_bytes: 0 },
        stderr: { head: 'note\n', tail: '', dropped_bytes: 0 },
      },
    );
    assert.ok(record.duration_ms > 0);
    assert.deepEqual(JSON.parse(JSON.stringify(record)), record);
  });

  it('a non-zero exit is failed, with its exit code', async () => {
    const record = await runAcceptance({
      command: nodeCommand('fail.js', 'process.exit(3)'),
      cwd: dir,
      timeoutMs: 10_000,
    });
    assert.deepEqual([record.outcome, record.exit_code, record.signal], ['failed', 3, null]);
  });

  it('runs without a shell: a glob and quoted shell characters reach the program as written', async () => {
    fs.writeFileSync(join(dir, 'a.ts'), '');
    const command = nodeCommand(
      'args.js',
      'process.stdout.write(JSON.stringify(process.argv.slice(2)))',
      `*.ts 'x;y|z' "~"`,
    );
    const record = await runAcceptance({ command, cwd: dir, timeoutMs: 10_000 });
    assert.deepEqual(JSON.parse(record.stdout.head), ['*.ts', 'x;y|z', '~']);
  });

  it('refuses a command with a shell operator before running anything', async () => {
    const command = nodeCommand(
      'mark.js',
      "require('node:fs').writeFileSync('ran', '')",
      '&& true',
    );
    await assert.rejects(
      runAcceptance({ command, cwd: dir, timeoutMs: 10_000 }),
      (err) => err instanceof CommandFailure && err.kind === 'refused',
    );
    assert.equal(fs.existsSync(join(dir, 'ran')), false);
  });

  it('at the timeout kills the whole process group, the program and the child it started', async () => {
    const record = await runAcceptance({
      command: nodeCommand('hang.js', HANG_WITH_CHILD),
      cwd: dir,
      timeoutMs: 3000,
    });
    assert.deepEqual(
      [record.outcome, record.exit_code, record.signal],
      ['timed-out', null, 'SIGTERM'],
    );
    assert.equal(pidsWritten().length, 2);
    await waitFor('the program and its child to be gone', () =>
      pidsWritten().every((pid) => !processRunning(pid)),
    );
  });

  it('a timeout beyond what a Node timer holds does not fire at once', async () => {
    const record = await runAcceptance({
      command: nodeCommand('wait.js', 'setTimeout(() => {}, 300)'),
      cwd: dir,
      timeoutMs: 2 ** 32,
    });
    assert.equal(record.outcome, 'passed');
  });

  it('a missing program or cwd is unstartable, not a throw', async () => {
    const missing = await runAcceptance({
      command: `${join(dir, 'no-such-program')} --token abc`,
      cwd: dir,
      timeoutMs: 10_000,
    });
    assert.deepEqual(
      [missing.outcome, missing.exit_code, missing.signal, missing.argv],
      ['unstartable', null, null, [join(dir, 'no-such-program'), '--token', REDACTED]],
    );
    assert.match(missing.error!, /ENOENT/);
    const gone = await runAcceptance({
      command: `'${process.execPath}' -e 0`,
      cwd: join(dir, 'gone'),
      timeoutMs: 10_000,
    });
    assert.equal(gone.outcome, 'unstartable');
  });

  it('keeps the first and last 64 KiB of a long output, cut at line boundaries, and counts every byte dropped', async () => {
    const lines = Array.from({ length: 30_000 }, (_, i) => `line ${i}\n`).join('');
    fs.writeFileSync(join(dir, 'out.txt'), lines);
    const command = nodeCommand(
      'cat.js',
      "require('node:fs').createReadStream(process.argv[2]).pipe(process.stdout); process.stderr.write('e'.repeat(100 * 1024));",
      'out.txt',
    );
    const { stdout, stderr } = await runAcceptance({ command, cwd: dir, timeoutMs: 10_000 });
    assert.ok(
      stdout.head.length <= ACCEPTANCE_KEEP_BYTES && stdout.tail.length <= ACCEPTANCE_KEEP_BYTES,
    );
    assert.ok(lines.startsWith(stdout.head) && lines.endsWith(stdout.tail));
    assert.match(stdout.head, /\n$/);
    assert.match(stdout.tail, /^line \d+\n/);
    assert.equal(stdout.head.length + stdout.dropped_bytes + stdout.tail.length, lines.length);
    assert.ok(
      stdout.head.length > ACCEPTANCE_KEEP_BYTES - 20 &&
        stdout.tail.length > ACCEPTANCE_KEEP_BYTES - 20,
      'only the partial lines are cut',
    );
    assert.deepEqual(
      stderr,
      { head: 'e'.repeat(100 * KIB), tail: '', dropped_bytes: 0 },
      'at most 128 KiB is kept whole',
    );
  });

  it('redacts secrets in argv and output, also one that a cut would have split past recognition', async () => {
    // The head ends 11 bytes into one GitHub token ('ghp_HEADSEC', too short to be recognised),
    // the tail starts 4 bytes into another ('TAILSECRET…', without its prefix).
    const start = 'API_TOKEN=plain-secret-1\nx\n';
    const headCut = `${start}${'a'.repeat(ACCEPTANCE_KEEP_BYTES - start.length - 12)} ghp_HEADSECRETHEADSECRETHEADSECRET1\n`;
    const middle = `${'f'.repeat(99)}\n`.repeat(1000);
    const tailCut = `ghp_TAILSECRETTAILSECRETTAILSECRET2 ${'c'.repeat(ACCEPTANCE_KEEP_BYTES - 38)}\nend\n`;
    assert.equal(headCut.indexOf('ghp_'), ACCEPTANCE_KEEP_BYTES - 11);
    fs.writeFileSync(join(dir, 'out.txt'), `${headCut}${middle}${tailCut}`);
    const source =
      "require('node:fs').createReadStream('out.txt').pipe(process.stdout); process.stderr.write('Authorization: Bearer bearer-secret-2\\n');";
    const record: AcceptanceRecord = await runAcceptance({
      command: nodeCommand('cat.js', source, '--password pw-secret-3'),
      cwd: dir,
      timeoutMs: 10_000,
    });
    const stored = JSON.stringify(record);
    for (const secret of ['plain-secret-1', 'bearer-secret-2', 'pw-secret-3', 'HEADSEC', 'TAILSEC'])
      assert.ok(!stored.includes(secret), secret);
    assert.equal(record.stdout.head, `API_TOKEN=${REDACTED}\nx\n`);
    assert.equal(record.stdout.tail, 'end\n');
    assert.equal(record.stderr.head, `Authorization: Bearer ${REDACTED}\n`);
  });

  it('streamRecordOf keeps a stream without newlines whole at both ends', () => {
    const kept = new HeadTailBytes(4);
    kept.add(Buffer.from('abcdefghijkl'));
    assert.deepEqual(streamRecordOf(kept), { head: 'abcd', tail: 'ijkl', dropped_bytes: 4 });
  });
});
