import assert from 'node:assert/strict';
import { killIfWorkingIn } from '../support/deadProcess.js';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { processRunning } from '../../lib/fsx/processIdentity.js';
import {
  BoundedBytes,
  HeadTailBytes,
  runBounded,
  type BoundedRunOptions,
} from '../../lib/proc/boundedRun.js';
import { waitFor } from '../support/daemon.js';
import { tempDir } from '../support/project.js';

/** A node program given as source (argv only, never a shell). */
const node = (source: string, ...args: string[]) => [process.execPath, '-e', source, ...args];
/** Source of a program that starts a child in its own process group, writes both pids to `file`, then waits forever. */
const HANG_WITH_CHILD = `
const { spawn } = require('node:child_process');
const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 60000)'], { stdio: 'ignore' });
require('node:fs').writeFileSync(process.argv[1], process.pid + '\\n' + child.pid + '\\n');
setInterval(() => {}, 60000);`;

describe('lib/proc/boundedRun', function () {
  this.timeout(20_000);
  let dir: string;
  const options = (more: Partial<BoundedRunOptions> = {}): BoundedRunOptions => ({
    cwd: dir,
    env: process.env,
    stdin: '',
    timeoutMs: 10_000,
    ...more,
  });
  const pidsIn = (file: string) =>
    fs.existsSync(file)
      ? fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map(Number)
      : [];
  beforeEach(() => {
    dir = tempDir();
  });
  afterEach(() => {
    for (const pid of pidsIn(join(dir, 'pids'))) killIfWorkingIn(pid, dir);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('BoundedBytes keeps the head or the tail within its limit and counts what it dropped', () => {
    const head = new BoundedBytes(5, 'head');
    const tail = new BoundedBytes(5, 'tail');
    for (const chunk of ['abc', 'defg', 'hi']) {
      head.add(Buffer.from(chunk));
      tail.add(Buffer.from(chunk));
    }
    assert.deepEqual(
      [head.text(), head.dropped, tail.text(), tail.dropped],
      ['abcde', 4, 'efghi', 4],
    );
  });

  it('HeadTailBytes keeps the first and the last bytes without overlap and counts what it dropped between them', () => {
    const both = new HeadTailBytes(4);
    for (const chunk of ['ab', 'cdef', 'ghijk', 'lm']) both.add(Buffer.from(chunk));
    assert.deepEqual(
      [both.head().toString(), both.tail().toString(), both.dropped],
      ['abcd', 'jklm', 5],
    );
    const small = new HeadTailBytes(4);
    for (const chunk of ['abc', 'def']) small.add(Buffer.from(chunk));
    assert.deepEqual(
      [small.head().toString(), small.tail().toString(), small.dropped, small.text()],
      ['abcd', 'ef', 0, 'abcdef'],
    );
  });

  it('gives the program its stdin, cwd and env, and reports its exit code, stdout and stderr', async () => {
    const run = await runBounded(
      node(
        "process.stdin.on('data', (d) => process.stdout.write(process.cwd() + ' ' + process.env.X + ' ' + d)); process.stderr.write('e'); process.exitCode = 3;",
      ),
      options({ stdin: 'the brief', env: { ...process.env, X: 'x' } }),
    );
    assert.deepEqual(
      [run.exitCode, run.signal, run.timedOut, run.aborted, run.error],
      [3, null, false, false, ''],
    );
    assert.deepEqual([run.stdout, run.stderr], [`${dir} x the brief`, 'e']);
    assert.ok(run.durationMs > 0);
  });

  it('keeps stdout from its start and stderr from its end within their limits', async () => {
    const run = await runBounded(
      node(
        "process.stdout.write('a'.repeat(100) + 'b'.repeat(100)); process.stderr.write('c'.repeat(100) + 'd'.repeat(100));",
      ),
      options({ stdoutLimit: 100, stderrLimit: 100 }),
    );
    assert.deepEqual(
      [run.stdout, run.stdoutDropped, run.stderr, run.stderrDropped],
      ['a'.repeat(100), 100, 'd'.repeat(100), 100],
    );
  });

  it('keeps each stream with the keepers it is given instead of the default bounds', async () => {
    const stdoutKeeper = new HeadTailBytes(10);
    const stderrKeeper = new HeadTailBytes(10);
    const run = await runBounded(
      node(
        "process.stdout.write('a'.repeat(10) + 'b'.repeat(50) + 'c'.repeat(10)); process.stderr.write('d'.repeat(15));",
      ),
      options({ stdoutKeeper, stderrKeeper, stdoutLimit: 1, stderrLimit: 1 }),
    );
    assert.deepEqual(
      [stdoutKeeper.head().toString(), stdoutKeeper.tail().toString(), stdoutKeeper.dropped],
      ['a'.repeat(10), 'c'.repeat(10), 50],
    );
    assert.deepEqual(
      [run.stdout, run.stdoutDropped, run.stderr, run.stderrDropped],
      ['a'.repeat(10) + 'c'.repeat(10), 50, 'd'.repeat(15), 0],
    );
  });

  it('a timeout ends the whole process group (SIGTERM first): the program and the child it started', async () => {
    const pids = join(dir, 'pids');
    const run = await runBounded(node(HANG_WITH_CHILD, pids), options({ timeoutMs: 1000 }));
    assert.deepEqual([run.timedOut, run.signal, run.exitCode], [true, 'SIGTERM', null]);
    assert.equal(pidsIn(pids).length, 2);
    await waitFor('both to be gone', () => pidsIn(pids).every((pid) => !processRunning(pid)));
  });

  it('a program that ignores SIGTERM is killed after the grace, with its group', async () => {
    const pids = join(dir, 'pids');
    const stubborn = `process.on('SIGTERM', () => {}); ${HANG_WITH_CHILD}`;
    const run = await runBounded(node(stubborn, pids), options({ timeoutMs: 500, graceMs: 300 }));
    assert.deepEqual([run.timedOut, run.signal, run.exitCode], [true, 'SIGKILL', null]);
    assert.ok(run.durationMs >= 800, `${run.durationMs} ms: the grace was given`);
    await waitFor('both to be gone', () => pidsIn(pids).every((pid) => !processRunning(pid)));
  });

  it('an abort ends the group at once; an already aborted signal starts nothing', async () => {
    const pids = join(dir, 'pids');
    const controller = new AbortController();
    const running = runBounded(node(HANG_WITH_CHILD, pids), options({ signal: controller.signal }));
    await waitFor('the program and its child', () => pidsIn(pids).length === 2);
    controller.abort('SIGTERM');
    const run = await running;
    assert.deepEqual([run.aborted, run.timedOut, run.signal], [true, false, 'SIGTERM']);
    await waitFor('both to be gone', () => pidsIn(pids).every((pid) => !processRunning(pid)));
    const marker = join(dir, 'started');
    const never = await runBounded(
      node("require('node:fs').writeFileSync(process.argv[1], '')", marker),
      options({ signal: controller.signal }),
    );
    assert.deepEqual([never.aborted, never.exitCode, fs.existsSync(marker)], [true, null, false]);
  });

  it('when the program exits, what it left running in its group is killed (it cannot hold the output open)', async () => {
    const pids = join(dir, 'pids');
    const source = `const c = require('node:child_process').spawn(process.execPath, ['-e', 'setInterval(() => {}, 60000)'], { stdio: 'inherit' });
require('node:fs').writeFileSync(process.argv[1], c.pid + '\\n'); process.stdout.write('left a child'); process.exit(0);`;
    const run = await runBounded(node(source, pids), options());
    assert.deepEqual([run.exitCode, run.timedOut, run.stdout], [0, false, 'left a child']);
    await waitFor('the child to be gone', () => !processRunning(pidsIn(pids)[0]!));
  });

  it('a program that cannot be started is reported, with no exit code; onSpawn gets the pid of one that starts', async () => {
    const missing = await runBounded(['/nonexistent/worker'], options());
    assert.deepEqual([missing.exitCode, missing.error], [null, 'spawn /nonexistent/worker ENOENT']);
    let spawned = 0;
    const run = await runBounded(
      node('process.stdout.write(String(process.pid))'),
      options({ onSpawn: (pid) => (spawned = pid) }),
    );
    assert.equal(run.stdout, String(spawned));
  });

  it('a program that never reads its stdin does not break the run', async () => {
    const run = await runBounded(
      node('process.exit(0)'),
      options({ stdin: 'x'.repeat(1024 * 1024) }),
    );
    assert.deepEqual([run.exitCode, run.error], [0, '']);
  });
});
