import assert from 'node:assert/strict';
import { recordProblems } from '../../../lib/fsx/records.js';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { WORKFLOW } from '../../../lib/run/record/runStore.js';
import { resumeProblems, type ResumeFacts } from '../../../lib/run/owner/verifyResume.js';
import { type Workflow } from '../../../lib/run/record/workflow.js';
import { commitIn, git, tempDir } from '../../support/project.js';
import { checkpointed, sampleWorkflow } from '../sampleWorkflow.js';

const MISSING = 'f'.repeat(40);

describe('lib/run/owner/verifyResume', () => {
  let dir: string;
  let repo: string;
  let base: string;
  let checkpoint: string;
  let paused: Workflow;
  let blocked: Workflow;

  /** The facts of the run's own user, machine and baton, with no bad artifact and no lease. */
  function factsFor(wf: Workflow, changes: Partial<ResumeFacts> = {}): ResumeFacts {
    return {
      root: repo,
      owner: wf.owner,
      machineId: wf.machine_id,
      release: wf.runtime_release,
      artifactsBad: [],
      lease: { live: false, stale: false },
      reclaimStale: false,
      ...changes,
    };
  }

  beforeEach(() => {
    dir = tempDir();
    repo = join(dir, 'repo');
    fs.mkdirSync(repo);
    git(repo, 'init', '-q', '-b', 'main');
    for (const name of ['a.txt', 'b.txt']) fs.writeFileSync(join(repo, name), `${name}\n`);
    git(repo, 'add', '.');
    base = commitIn(repo, 'base');
    checkpoint = commitIn(repo, 'implementation');
    paused = checkpointed(sampleWorkflow(repo, base), checkpoint);
    blocked = { ...paused, status: 'BLOCKED', block_reason: 'acceptance failed' };
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('the hand-made records are valid runs (schema and cross-field rules)', () => {
    for (const wf of [sampleWorkflow(repo, base), paused, blocked]) {
      assert.deepEqual(recordProblems(WORKFLOW, wf), []);
    }
  });

  describe('a run that may continue', () => {
    it('resume at the checkpoint with a clean work tree (untracked files do not count), retry after more commits', () => {
      fs.writeFileSync(join(repo, 'untracked.txt'), 'u\n');
      assert.deepEqual(resumeProblems(paused, 'resume', factsFor(paused)), []);
      commitIn(repo, 'after the block');
      fs.writeFileSync(join(repo, 'a.txt'), 'work in progress\n');
      assert.deepEqual(
        resumeProblems(blocked, 'retry', factsFor(blocked)),
        [],
        'retry needs the checkpoint as an ancestor only, and tolerates edits',
      );
    });

    it('before any checkpoint, resume needs HEAD at base_commit', () => {
      git(repo, 'reset', '-q', '--hard', base);
      const fresh = sampleWorkflow(repo, base);
      assert.deepEqual(resumeProblems(fresh, 'resume', factsFor(fresh)), []);
      assert.deepEqual(
        resumeProblems(
          { ...fresh, status: 'BLOCKED', block_reason: 'x' },
          'retry',
          factsFor(fresh),
        ),
        [],
      );
    });

    it("repo_root may be a worktree of ROOT's repository, checked against its own HEAD and files", () => {
      const wt = join(dir, 'wt');
      git(repo, 'worktree', 'add', '-q', '-b', 'side', wt, checkpoint);
      const inWorktree = { ...paused, repo_root: wt };
      commitIn(repo, 'main moved on');
      fs.writeFileSync(join(repo, 'a.txt'), 'edited in main\n');
      assert.deepEqual(resumeProblems(inWorktree, 'resume', factsFor(inWorktree)), []);
    });

    it('a stale lease is no obstacle with --reclaim-stale', () => {
      assert.deepEqual(
        resumeProblems(
          paused,
          'resume',
          factsFor(paused, {
            lease: { live: false, stale: true, pid: 42, host: 'box' },
            reclaimStale: true,
          }),
        ),
        [],
      );
    });
  });

  describe('each check, its own message', () => {
    it('owner is the current user', () => {
      assert.deepEqual(resumeProblems(paused, 'resume', factsFor(paused, { owner: 'bob' })), [
        `run ${paused.run_id} belongs to alice; you are bob`,
      ]);
    });

    it('same machine_id', () => {
      assert.deepEqual(resumeProblems(paused, 'resume', factsFor(paused, { machineId: '5678' })), [
        'run was made on machine 0123456789abcdef0123456789abcdef; this is 5678',
      ]);
      assert.deepEqual(resumeProblems(paused, 'retry', factsFor(paused, { machineId: '' })), [
        'run was made on machine 0123456789abcdef0123456789abcdef; this is (no machine id)',
      ]);
    });

    it('exact runtime_release, and the schema version on its own', () => {
      assert.deepEqual(resumeProblems(paused, 'resume', factsFor(paused, { release: '0.2.0' })), [
        'run was made by baton 0.1.0; this is baton 0.2.0',
      ]);
      assert.deepEqual(
        resumeProblems(paused, 'resume', factsFor(paused, { release: '0.1.0-rc.1' })),
        ['run was made by baton 0.1.0; this is baton 0.1.0-rc.1'],
      );
      assert.deepEqual(
        resumeProblems({ ...paused, schema_version: 2 }, 'resume', factsFor(paused)),
        ['run was created with schema version 2; this baton supports 1'],
      );
    });

    it('repo_root exists; without it the repository checks are skipped, the rest still run', () => {
      const gone = { ...paused, repo_root: join(dir, 'gone'), base_commit: MISSING };
      assert.deepEqual(
        resumeProblems(gone, 'resume', factsFor(gone, { artifactsBad: ['artifacts/x.json'] })),
        [
          `repo_root '${join(dir, 'gone')}' does not exist`,
          'artifact changed or missing: artifacts/x.json',
        ],
      );
    });

    it('repo_root is a work tree of this repository: not another repository, a plain folder or a folder inside the work tree', () => {
      const other = join(dir, 'other');
      fs.mkdirSync(other);
      git(other, 'init', '-q', '-b', 'main');
      commitIn(other);
      const plain = join(dir, 'plain');
      fs.mkdirSync(plain);
      fs.mkdirSync(join(repo, 'src'));
      const problemsAt = (repoRoot: string) =>
        resumeProblems({ ...paused, repo_root: repoRoot }, 'resume', factsFor(paused));
      assert.deepEqual(problemsAt(other), [
        `repo_root '${other}' is not a work tree of this repository: '${other}' is a work tree of another repository (git dir '${other}/.git', ROOT's is '${repo}/.git')`,
      ]);
      const [outside, ...rest] = problemsAt(plain);
      assert.match(
        outside!,
        new RegExp(
          `^repo_root '${plain}' is not a work tree of this repository: '${plain}' is not a git work tree: fatal: `,
        ),
      );
      assert.deepEqual(rest, []);
      assert.deepEqual(problemsAt(join(repo, 'src')), [
        `repo_root '${repo}/src' is not a work tree of this repository: it is a folder inside the work tree '${repo}'`,
      ]);
    });

    it('base_commit exists; ancestry from it is then not asked', () => {
      const wf = { ...paused, base_commit: MISSING };
      assert.deepEqual(resumeProblems(wf, 'resume', factsFor(wf)), [
        `base commit ${MISSING} does not exist`,
      ]);
      assert.deepEqual(
        resumeProblems({ ...wf, last_checkpoint_commit: null }, 'resume', factsFor(wf)),
        [`base commit ${MISSING} does not exist`],
        'no "HEAD moved" from a base that is not there',
      );
    });

    it('HEAD of repo_root descends from base_commit (retry before a checkpoint reports it once)', () => {
      git(repo, 'checkout', '-q', '-b', 'fork', base);
      const forkBase = commitIn(repo, 'elsewhere');
      git(repo, 'checkout', '-q', 'main');
      const wf = sampleWorkflow(repo, forkBase, { status: 'BLOCKED', block_reason: 'x' });
      assert.deepEqual(resumeProblems(wf, 'retry', factsFor(wf)), [
        `HEAD ${checkpoint} does not descend from base commit ${forkBase}`,
      ]);
      assert.deepEqual(resumeProblems(wf, 'resume', factsFor(wf)), [
        `HEAD ${checkpoint} does not descend from base commit ${forkBase}`,
        `HEAD moved since the run started: ${checkpoint}, base commit ${forkBase} (resume needs them equal)`,
      ]);
    });

    it('resume at the checkpoint, clean, from a base it does not descend from: still refused', () => {
      git(repo, 'checkout', '-q', '-b', 'fork', base);
      const forkBase = commitIn(repo, 'elsewhere');
      git(repo, 'checkout', '-q', 'main');
      const wf = checkpointed(sampleWorkflow(repo, forkBase), checkpoint);
      assert.deepEqual(resumeProblems(wf, 'resume', factsFor(wf)), [
        `HEAD ${checkpoint} does not descend from base commit ${forkBase}`,
      ]);
      const gone = checkpointed(sampleWorkflow(repo, MISSING), checkpoint);
      assert.deepEqual(resumeProblems(gone, 'resume', factsFor(gone)), [
        `base commit ${MISSING} does not exist`,
      ]);
    });

    it('resume: HEAD is the last checkpoint', () => {
      const later = commitIn(repo, 'after the pause');
      assert.deepEqual(resumeProblems(paused, 'resume', factsFor(paused)), [
        `HEAD moved since the last checkpoint: ${later}, checkpoint ${checkpoint} (resume needs them equal)`,
      ]);
      git(repo, 'reset', '-q', '--hard', base);
      assert.deepEqual(resumeProblems(paused, 'resume', factsFor(paused)), [
        `HEAD moved since the last checkpoint: ${base}, checkpoint ${checkpoint} (resume needs them equal)`,
      ]);
    });

    it('resume before any checkpoint: HEAD is base_commit', () => {
      const fresh = sampleWorkflow(repo, base);
      assert.deepEqual(resumeProblems(fresh, 'resume', factsFor(fresh)), [
        `HEAD moved since the run started: ${checkpoint}, base commit ${base} (resume needs them equal)`,
      ]);
    });

    it('resume: no modified tracked file, staged or not (untracked ones do not count)', () => {
      fs.writeFileSync(join(repo, 'a.txt'), 'edited\n');
      fs.writeFileSync(join(repo, 'b.txt'), 'edited\n');
      git(repo, 'add', 'b.txt');
      fs.writeFileSync(join(repo, 'untracked.txt'), 'u\n');
      assert.deepEqual(resumeProblems(paused, 'resume', factsFor(paused)), [
        'tracked files modified since the last checkpoint: a.txt, b.txt',
      ]);
      git(repo, 'reset', '-q', base);
      const fresh = sampleWorkflow(repo, base);
      assert.deepEqual(resumeProblems(fresh, 'resume', factsFor(fresh)), [
        'tracked files modified since the run started: a.txt, b.txt',
      ]);
    });

    it('resume names at most ten modified files, then how many more', () => {
      const names = Array.from({ length: 12 }, (_, i) => `f${String(i).padStart(2, '0')}.txt`);
      for (const name of names) fs.writeFileSync(join(repo, name), 'x\n');
      git(repo, 'add', '.');
      const withFiles = commitIn(repo, 'files');
      for (const name of names) fs.writeFileSync(join(repo, name), 'y\n');
      const wf = checkpointed(sampleWorkflow(repo, base), withFiles);
      assert.deepEqual(resumeProblems(wf, 'resume', factsFor(wf)), [
        `tracked files modified since the last checkpoint: ${names.slice(0, 10).join(', ')} and 2 more`,
      ]);
    });

    it('retry: the checkpoint commit is an ancestor of HEAD', () => {
      git(repo, 'reset', '-q', '--hard', base);
      assert.deepEqual(resumeProblems(blocked, 'retry', factsFor(blocked)), [
        `checkpoint commit ${checkpoint} is not an ancestor of HEAD ${base}`,
      ]);
    });

    it('the checkpoint commit must exist, for resume and retry alike', () => {
      for (const [wf, kind] of [
        [paused, 'resume'],
        [blocked, 'retry'],
      ] as const) {
        const lost = { ...wf, last_checkpoint_commit: MISSING };
        assert.deepEqual(
          resumeProblems(lost, kind, factsFor(lost)),
          [`checkpoint commit ${MISSING} does not exist`],
          kind,
        );
      }
    });

    it("every artifact digest intact: one message per bad artifact, in the caller's order", () => {
      assert.deepEqual(
        resumeProblems(
          paused,
          'resume',
          factsFor(paused, { artifactsBad: ['artifacts/x.json', 'artifacts/run-c1-notes.md'] }),
        ),
        [
          'artifact changed or missing: artifacts/x.json',
          'artifact changed or missing: artifacts/run-c1-notes.md',
        ],
      );
    });

    it('no live lease, even with --reclaim-stale; a stale one only with --reclaim-stale', () => {
      const withLease = (lease: ResumeFacts['lease'], reclaimStale = false) =>
        resumeProblems(paused, 'retry', factsFor(paused, { lease, reclaimStale }));
      assert.deepEqual(withLease({ live: true, stale: false, pid: 4242, host: 'box' }), [
        'a live lease is held by pid 4242 on box',
      ]);
      assert.deepEqual(withLease({ live: true, stale: false, pid: 4242, host: 'box' }, true), [
        'a live lease is held by pid 4242 on box',
      ]);
      assert.deepEqual(withLease({ live: true, stale: false }), [
        'a live lease is held by an unknown pid on an unknown host',
      ]);
      assert.deepEqual(withLease({ live: false, stale: true, pid: 4242, host: 'box' }), [
        'a stale lease of pid 4242 is in the way: add --reclaim-stale',
      ]);
    });
  });

  it("reports every failed check at once, each distinct, in the contract's order", () => {
    const later = commitIn(repo, 'after the pause');
    fs.writeFileSync(join(repo, 'a.txt'), 'edited\n');
    const wf = { ...paused, owner: 'alice', base_commit: base };
    const problems = resumeProblems({ ...wf, schema_version: 3 }, 'resume', {
      root: repo,
      owner: 'bob',
      machineId: '5678',
      release: '0.2.0',
      artifactsBad: ['artifacts/x.json'],
      lease: { live: false, stale: true, pid: 7, host: 'box' },
      reclaimStale: false,
    });
    assert.deepEqual(problems, [
      `run ${paused.run_id} belongs to alice; you are bob`,
      'run was made on machine 0123456789abcdef0123456789abcdef; this is 5678',
      'run was made by baton 0.1.0; this is baton 0.2.0',
      'run was created with schema version 3; this baton supports 1',
      `HEAD moved since the last checkpoint: ${later}, checkpoint ${checkpoint} (resume needs them equal)`,
      'tracked files modified since the last checkpoint: a.txt',
      'artifact changed or missing: artifacts/x.json',
      'a stale lease of pid 7 is in the way: add --reclaim-stale',
    ]);
    assert.equal(new Set(problems).size, problems.length);
  });

  it('renders control characters from the record printable, so one problem stays one line', () => {
    const wf = { ...paused, owner: 'al\nice' };
    assert.deepEqual(resumeProblems(wf, 'resume', factsFor(paused, { owner: 'bob' })), [
      `run ${wf.run_id} belongs to al\\nice; you are bob`,
    ]);
  });
});
