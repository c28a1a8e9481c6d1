import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { processRunning } from '../../../lib/fsx/processIdentity.js';
import {
  KILL_GRACE_MS,
  MAX_STDOUT_BYTES,
  runReviewer,
  type ReviewerRun,
} from '../../../lib/review/teacher/reviewerRun.js';
import { endGroup, groupAlive } from '../../../lib/proc/ending.js';
import { waitFor } from '../../support/daemon.js';
import { tempDir } from '../../support/project.js';
import { reviewerRecords, scriptedReviewer } from '../../support/teachers.js';

describe('lib/review/teacher/reviewerRun', function () {
  this.timeout(30_000);
  let dir: string;
  beforeEach(() => {
    dir = tempDir();
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const node = (code: string, ...args: string[]) => [process.execPath, '-e', code, '--', ...args];
  const run = (argv: string[], extra: Partial<ReviewerRun> = {}) =>
    runReviewer({
      argv,
      cwd: dir,
      prompt: 'the prompt\n',
      timeoutMs: 10_000,
      env: process.env,
      ...extra,
    });

  it('runs the argv without a shell, in the given folder, with the prompt on stdin; exit 0 is a run with its stdout', async () => {
    const started: number[] = [];
    const outcome = await run(
      node(
        "process.stdout.write(JSON.stringify({ argv: process.argv.slice(1), cwd: process.cwd(), stdin: require('fs').readFileSync(0, 'utf8') }))",
        '$HOME',
        ';',
        '$(id)',
        '*',
      ),
      { onStart: (pid) => started.push(pid) },
    );
    assert.equal(outcome.kind, 'exited');
    assert.deepEqual(JSON.parse((outcome as { stdout: string }).stdout), {
      argv: ['$HOME', ';', '$(id)', '*'],
      cwd: dir,
      stdin: 'the prompt\n',
    });
    assert.equal(started.length, 1);
  });

  it('a non-zero exit or a signal is a crash, with stdout and stderr kept; a program that cannot start is unstartable', async () => {
    const crashed = await run(
      node("process.stdout.write('{'); process.stderr.write('Error: boom\\n'); process.exit(3)"),
    );
    assert.deepEqual(
      crashed.kind === 'crashed' && [crashed.code, crashed.signal, crashed.stdout, crashed.stderr],
      [3, null, '{', 'Error: boom\n'],
    );
    const killed = await run(node("process.kill(process.pid, 'SIGKILL')"));
    assert.deepEqual(killed.kind === 'crashed' && [killed.code, killed.signal], [null, 'SIGKILL']);
    const missing = await run([join(dir, 'no-such-reviewer')]);
    assert.deepEqual(
      missing.kind === 'unstartable' && missing.message,
      `cannot run '${join(dir, 'no-such-reviewer')}': ENOENT`,
    );
  });

  it('a reviewer that never reads its prompt (a large one) still ends as a run', async () => {
    const outcome = await run(node("process.stdout.write('{}')"), {
      prompt: 'x'.repeat(4 * 1024 * 1024),
    });
    assert.deepEqual(outcome.kind === 'exited' && outcome.stdout, '{}');
  });

  it('stdout is bounded', async () => {
    const outcome = await run(
      node(
        'const b = Buffer.alloc(1024 * 1024, 120); for (let i = 0; i < 9; i++) process.stdout.write(b)',
      ),
    );
    assert.equal(outcome.kind, 'exited');
    assert.ok((outcome as { stdout: string }).stdout.length <= MAX_STDOUT_BYTES + 1);
  });

  it('at the timeout the whole process group is ended (a helper in it too), and the outcome says timeout', async () => {
    const record = join(dir, 'runs.jsonl');
    const begun = Date.now();
    // 2 s: time for a loaded machine to start the reviewer, so that it records itself and its helper.
    const outcome = await run(scriptedReviewer('--hang', '--record', record), { timeoutMs: 2_000 });
    assert.deepEqual(
      [outcome.kind, outcome.kind === 'timeout' && outcome.timeoutMs],
      ['timeout', 2_000],
    );
    assert.ok(
      Date.now() - begun < 2_000 + KILL_GRACE_MS,
      'the reviewer ended on SIGTERM, without the grace',
    );
    const [line] = reviewerRecords(record);
    assert.equal(processRunning(line!.pid), false, 'the reviewer itself is gone when the run ends');
    assert.equal(line!.helpers.length, 1);
    // The helper got its SIGKILL when the run ended; on a loaded machine it may take a moment to die, never forever.
    await waitFor('the helper to be gone', () => !processRunning(line!.helpers[0]!), 5_000);
  });

  it('a reviewer that ignores SIGTERM is killed after the grace', async () => {
    const ready = join(dir, 'ready');
    const controller = new AbortController();
    const running = run(
      node(
        `process.on('SIGTERM', () => {}); setInterval(() => {}, 1 << 30); require('fs').writeFileSync(${JSON.stringify(ready)}, '')`,
      ),
      { signal: controller.signal },
    );
    await waitFor('the reviewer to ignore SIGTERM', () => fs.existsSync(ready));
    const stopped = Date.now();
    controller.abort();
    assert.equal((await running).kind, 'abandoned');
    assert.ok(Date.now() - stopped >= KILL_GRACE_MS - 50, 'it got the grace, then SIGKILL');
  });

  it('an abort (the teacher got TERM) ends the group at once: abandoned', async () => {
    const record = join(dir, 'runs.jsonl');
    const controller = new AbortController();
    const running = run(scriptedReviewer('--hang', '--record', record), {
      signal: controller.signal,
    });
    await waitFor('the reviewer to start', () => reviewerRecords(record).length === 1);
    controller.abort();
    assert.equal((await running).kind, 'abandoned');
    const [line] = reviewerRecords(record);
    assert.equal(processRunning(line!.pid), false);
    assert.equal(
      (await run(node('0'), { signal: controller.signal })).kind,
      'abandoned',
      'an aborted teacher starts no run',
    );
  });

  it('endGroup ends a group it did not start, and does nothing for a group that is gone', async () => {
    const record = join(dir, 'runs.jsonl');
    const running = run(scriptedReviewer('--hang', '--record', record));
    await waitFor('the reviewer to start', () => reviewerRecords(record).length === 1);
    const [line] = reviewerRecords(record);
    assert.ok(groupAlive(line!.pid));
    await endGroup(line!.pid);
    assert.equal((await running).kind, 'crashed', 'killed from outside: a crash for the run');
    assert.equal(processRunning(line!.pid), false);
    await endGroup(line!.pid);
  });
});
