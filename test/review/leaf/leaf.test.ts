import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { CommandFailure } from '../../../lib/fsx/commandFailure.js';
import { runLeaf, type LeafRequest } from '../../../lib/review/leaf/leaf.js';
import { parseLeafRecord } from '../../../lib/review/leaf/leafRecord.js';
import { LeafInterrupted } from '../../../lib/review/bookbag/reviewErrors.js';
import { fixtureText } from '../../support/fixtures.js';
import { BIN_DIR, git, itemsIn, makeProject, type Project } from '../../support/project.js';

/** A worker (argv, no shell) that prints what a worker sees: its brief on stdin, its environment, its folder and its pid record. */
const INSPECTING_WORKER = [
  process.execPath,
  '-e',
  `
const fs = require('node:fs');
let stdin = '';
process.stdin.on('data', (d) => (stdin += d)).on('end', () => {
  const record = JSON.parse(fs.readFileSync(require('node:path').join(require('node:path').dirname(process.env.BATON_BRIEF), 'leaf.json'), 'utf8'));
  fs.writeFileSync(process.env.BATON_VERIFICATION, 'checked by hand');
  process.stdout.write(JSON.stringify({ stdin, file: fs.readFileSync(process.env.BATON_BRIEF, 'utf8'), role: process.env.SWARMFORGE_ROLE, root: process.env.SWARMFORGE_ROOT, cwd: process.cwd(), pid: process.pid, record }));
});`,
];

describe('lib/review/leaf/leaf', function () {
  this.timeout(30_000);
  let p: Project;
  beforeEach(() => {
    p = makeProject(fixtureText('conf', 'review.conf'));
  });
  afterEach(() => p.cleanup());

  const request = (argv: string[], more: Partial<LeafRequest> = {}): LeafRequest => ({
    role: 'coder',
    domain: 'docs',
    difficulty: 'hard',
    task: 'write the docs',
    argv,
    timeoutMs: 20_000,
    ...more,
  });
  const leavesDir = () => join(p.root, '.swarmforge', 'reviews', 'leaves');
  const studyWorktrees = () =>
    git(p.root, 'worktree', 'list', '--porcelain')
      .split('\n')
      .filter((l) => l.includes('/study-'));

  it("gives the worker its brief on stdin and in BATON_BRIEF, the role and ROOT, runs it in the leaf's worktree with its pid record written, and submits its stdout", async () => {
    const result = await runLeaf(p.root, request(INSPECTING_WORKER));
    const seen = JSON.parse(result.bookbag.output) as Record<string, unknown> & {
      record: Record<string, string>;
    };
    const brief = {
      bead: result.bead,
      role: 'coder',
      domain: 'docs',
      task: 'write the docs',
      difficulty: 'hard',
    };
    assert.match(result.bead, /^coder-docs-([0-9a-f]{8})$/);
    assert.equal(
      result.worktree,
      `study-coder-${result.bead.slice(-8)}`,
      "the worktree carries the bead's rand8",
    );
    assert.deepEqual(
      [JSON.parse(String(seen.stdin)), JSON.parse(String(seen.file))],
      [brief, brief],
    );
    assert.deepEqual(
      [seen.role, seen.root, seen.cwd],
      ['coder', p.root, join(p.root, '.worktrees', result.worktree)],
    );
    assert.match(
      seen.record.leaf!,
      new RegExp(`^${process.pid} \\d+ \\S+ \\S+$`),
      "the leaf's own identity",
    );
    assert.match(
      seen.record.worker!,
      new RegExp(`^${seen.pid} \\d+ \\S+ \\S+$`),
      "the worker's identity, recorded once it runs",
    );
    assert.equal(seen.record.removed_at, '');
    assert.deepEqual(
      [
        result.bookbag.state,
        result.bookbag.submitted_by,
        result.bookbag.difficulty,
        result.branch,
        result.commit,
      ],
      ['WRITTEN', 'coder', 'hard', '', ''],
    );
    assert.match(result.bookbag.verification, /; no commit\n\nchecked by hand\n$/);
    assert.equal(itemsIn(p.box('coder').outbox).length, 2);
    assert.notEqual(
      parseLeafRecord(fs.readFileSync(join(leavesDir(), result.bead, 'leaf.json'), 'utf8'))
        .removed_at,
      '',
    );
    assert.deepEqual(studyWorktrees(), []);
  });

  it('a worker that cannot be started submits nothing; the failure names the audit', async () => {
    await assert.rejects(
      runLeaf(p.root, request(['/nonexistent/worker'])),
      (err: unknown) =>
        err instanceof CommandFailure &&
        err.kind === 'refused' &&
        /^baton leaf: worker failed '.*\/output\.json': could not be started: spawn \/nonexistent\/worker ENOENT; nothing submitted$/.test(
          err.message,
        ),
    );
    assert.deepEqual([itemsIn(p.box('coder').outbox), studyWorktrees()], [[], []]);
  });

  it('told to stop while the worker runs: the worker is killed, the worktree removed, nothing submitted (LeafInterrupted)', async () => {
    const controller = new AbortController();
    const hang = [process.execPath, join(BIN_DIR, 'baton-scripted-worker.js'), '--hang'];
    const running = runLeaf(p.root, request(hang), { signal: controller.signal });
    const deadline = Date.now() + 15_000;
    while (studyWorktrees().length === 0 && Date.now() < deadline)
      await new Promise((r) => setImmediate(r));
    controller.abort('SIGINT');
    await assert.rejects(
      running,
      (err: unknown) =>
        err instanceof LeafInterrupted &&
        err.signal === 'SIGINT' &&
        /worktree removed, nothing submitted; audit '/.test(err.message),
    );
    assert.deepEqual([itemsIn(p.box('coder').outbox), studyWorktrees()], [[], []]);
  });

  it('checks the role and the reviewers before it makes anything', async () => {
    await assert.rejects(
      runLeaf(p.root, request(INSPECTING_WORKER, { role: 'ghost' })),
      /the submitter 'ghost' is not a role/,
    );
    await assert.rejects(
      runLeaf(p.root, request(INSPECTING_WORKER, { domain: '../x' })),
      /invalid domain/,
    );
    assert.equal(fs.existsSync(leavesDir()), false);
  });
});
