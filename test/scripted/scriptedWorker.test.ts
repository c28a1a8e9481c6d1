import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { CommandFailure } from '../../lib/fsx/commandFailure.js';
import {
  briefOf,
  doWork,
  SCRIPTED_WORKER_USAGE,
  workerSettings,
  type WorkerBrief,
} from '../../lib/scripted/scriptedWorker.js';
import { bareRootForEachTest } from '../support/bookbags.js';
import { commitIn, git } from '../support/project.js';

const BRIEF: WorkerBrief = {
  bead: 'coder-docs-0123abcd',
  role: 'coder',
  domain: 'docs',
  task: 'write the docs',
  difficulty: 'easy',
};

describe('lib/scripted/scriptedWorker', () => {
  const root = bareRootForEachTest();

  it('parses its options; anything else is a usage failure', () => {
    assert.deepEqual(workerSettings([]), { commit: true, exitCode: 0, crash: false, hang: false });
    assert.deepEqual(
      workerSettings(['--no-commit', '--exit', '3', '--crash', '--hang', '--pid-file', 'f']),
      { commit: false, exitCode: 3, crash: true, hang: true, pidFile: 'f' },
    );
    for (const bad of [['--exit'], ['--exit', 'x'], ['--pid-file'], ['--fast']]) {
      assert.throws(
        () => workerSettings(bad),
        (err: unknown) => err instanceof CommandFailure && err.kind === 'usage',
        bad.join(' '),
      );
    }
    assert.match(SCRIPTED_WORKER_USAGE, /^Usage: baton-scripted-worker /);
  });

  it('takes the brief from stdin only when BATON_BRIEF names a file with the same brief', () => {
    const path = join(root(), 'brief.json');
    fs.writeFileSync(path, `${JSON.stringify(BRIEF, null, 2)}\n`);
    assert.deepEqual(briefOf(JSON.stringify(BRIEF), { BATON_BRIEF: path }), BRIEF);
    const failure = (fn: () => unknown, kind: string) =>
      assert.throws(fn, (err: unknown) => err instanceof CommandFailure && err.kind === kind);
    failure(() => briefOf(JSON.stringify(BRIEF), {}), 'environment');
    failure(() => briefOf('not json', { BATON_BRIEF: path }), 'invalid');
    failure(
      () => briefOf(JSON.stringify({ ...BRIEF, task: 'other' }), { BATON_BRIEF: path }),
      'invalid',
    );
  });

  it('writes work/<bead>.txt, commits it, notes its verification and says so; deterministic from the brief', async () => {
    git(root(), 'init', '-q', '-b', 'main');
    commitIn(root(), 'init');
    const note = join(root(), 'verification.txt');
    const done = await doWork(
      BRIEF,
      workerSettings(['--exit', '4']),
      { BATON_VERIFICATION: note },
      root(),
    );
    assert.deepEqual(done, {
      stdout: 'done: write the docs\nwrote: work/coder-docs-0123abcd.txt\ncommitted: yes\n',
      exitCode: 4,
    });
    assert.equal(git(root(), 'show', 'HEAD:work/coder-docs-0123abcd.txt'), 'write the docs');
    assert.equal(git(root(), 'log', '-1', '--format=%s'), 'coder: write the docs');
    assert.equal(
      fs.readFileSync(note, 'utf8'),
      'scripted worker: wrote work/coder-docs-0123abcd.txt; committed: yes\n',
    );
  });

  it('--no-commit leaves the file uncommitted', async () => {
    git(root(), 'init', '-q', '-b', 'main');
    const head = commitIn(root(), 'init');
    const done = await doWork(BRIEF, workerSettings(['--no-commit']), {}, root());
    assert.match(done.stdout, /\ncommitted: no\n$/);
    assert.deepEqual(
      [git(root(), 'rev-parse', 'HEAD'), git(root(), 'status', '--porcelain')],
      [head, '?? work/'],
    );
  });
});
