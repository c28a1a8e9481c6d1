// Black-box tests of `baton leaf run|clean` and the leaf part of `baton doctor` on the built
// bins (docs/review.md §8), in real git repositories with real worktrees and real
// processes: the scripted worker does the work, crashes, hangs (with a child in its
// process group) or exits non-zero; the leaf is sent SIGTERM or SIGKILL. Whatever
// happened, the worktree ends removed (by the leaf itself, or by `baton leaf clean` after
// a SIGKILL), the branch survives only with commits, and only a successful worker's work
// is submitted.
import assert from 'node:assert/strict';
import { killIfWorkingIn } from '../support/deadProcess.js';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { processRunning } from '../../lib/fsx/processIdentity.js';
import { waitFor } from '../support/daemon.js';
import { fixtureText } from '../support/fixtures.js';
import {
  BIN_DIR,
  git,
  itemsIn,
  makeProject,
  runBin,
  type Project,
  type RunResult,
} from '../support/project.js';

const CONF = fixtureText('conf', 'review.conf');
const WORKER = [process.execPath, join(BIN_DIR, 'baton-scripted-worker.js')];

describe('baton leaf (built bins)', function () {
  this.timeout(60_000);
  let p: Project;
  let pidFile: string;
  beforeEach(() => {
    p = makeProject(CONF);
    pidFile = join(p.root, '..', `${p.root.split('/').pop()}-worker.pids`);
  });
  afterEach(() => {
    for (const pid of workerPids()) killIfWorkingIn(pid, p.root);
    fs.rmSync(pidFile, { force: true });
    p.cleanup();
  });

  const leafArgs = (task: string, extra: string[], worker: string[]) => [
    'leaf',
    'run',
    '--role',
    'coder',
    '--domain',
    'docs',
    '--task',
    task,
    ...extra,
    '--',
    ...WORKER,
    ...worker,
  ];
  const leaf = (task: string, extra: string[], worker: string[] = []) =>
    runBin('baton', leafArgs(task, extra, worker), { cwd: p.root });
  const baton = (args: string[], role?: string) => runBin('baton', args, { cwd: p.root, role });
  const reviews = () => join(p.root, '.swarmforge', 'reviews');
  const leafWorktrees = () =>
    fs.existsSync(join(p.root, '.worktrees'))
      ? fs.readdirSync(join(p.root, '.worktrees')).filter((n) => n.startsWith('study-'))
      : [];
  const registeredWorktrees = () =>
    git(p.root, 'worktree', 'list', '--porcelain')
      .split('\n')
      .filter((l) => l.startsWith('worktree ')).length;
  const studyBranches = () =>
    git(p.root, 'branch', '--list', 'study-*', '--format=%(refname:short)')
      .split('\n')
      .filter(Boolean);
  const bookbags = () =>
    fs.existsSync(join(reviews(), 'bookbag'))
      ? fs.readdirSync(join(reviews(), 'bookbag')).filter((n) => n.endsWith('.json'))
      : [];
  const auditOf = (bead: string) =>
    JSON.parse(fs.readFileSync(join(reviews(), 'leaves', bead, 'output.json'), 'utf8')) as Record<
      string,
      unknown
    >;
  const beadOfAuditLine = (stderr: string) =>
    /leaves\/([^/]+)\/output\.json/.exec(stderr)?.[1] ?? assert.fail(`no audit path in: ${stderr}`);
  function workerPids(): number[] {
    return fs.existsSync(pidFile)
      ? fs.readFileSync(pidFile, 'utf8').split('\n').filter(Boolean).map(Number)
      : [];
  }

  /** Starts `baton leaf run` as a child of the test (so it can be signalled); `ended` resolves with its outcome. */
  function startLeaf(args: string[]): { pid: number; ended: Promise<RunResult> } {
    const child = spawn(process.execPath, [join(BIN_DIR, 'baton.js'), ...args], {
      cwd: p.root,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    const ended = new Promise<RunResult>((done) =>
      child.on('close', (code, signal) => {
        const stdoutBytes = Buffer.concat(out);
        done({
          code,
          signal,
          stdout: stdoutBytes.toString(),
          stderr: Buffer.concat(err).toString(),
          stdoutBytes,
        });
      }),
    );
    return { pid: child.pid!, ended };
  }

  /** Starts a leaf whose worker hangs, and resolves once the worker runs (its pid file written). */
  async function startHangingLeaf(): Promise<{ pid: number; ended: Promise<RunResult> }> {
    const running = startLeaf(leafArgs('hang', [], ['--hang', '--pid-file', pidFile]));
    await waitFor('the worker and its child to run', () => workerPids().length === 2);
    assert.deepEqual(leafWorktrees().length, 1, 'the worktree exists while the worker runs');
    return running;
  }

  it('a successful worker: the worktree is removed, its branch kept with the commit, the bookbag WRITTEN with branch and commit, one review_request per lens queued from the role', () => {
    const r = leaf('write the docs', ['--difficulty', 'easy']);
    assert.equal(r.code, 0, r.stderr);
    const lines =
      /^BEAD: (coder-docs-([0-9a-f]{8}))\nAUDIT: (.+)\nBRANCH: (study-coder-\2) ([0-9a-f]{40})\n$/.exec(
        r.stdout,
      );
    assert.ok(lines, r.stdout);
    const [, bead, , audit, branch, commit] = lines;
    assert.equal(audit, join(reviews(), 'leaves', bead!, 'output.json'));
    assert.deepEqual(
      [leafWorktrees(), registeredWorktrees()],
      [[], 1],
      'the worktree is gone and git no longer lists it',
    );
    assert.deepEqual(studyBranches(), [branch]);
    assert.equal(git(p.root, 'rev-parse', `refs/heads/${branch}`), commit);
    assert.equal(git(p.root, 'show', `${commit}:work/${bead}.txt`), 'write the docs');
    const bag = JSON.parse(
      fs.readFileSync(join(reviews(), 'bookbag', `${bead}.json`), 'utf8'),
    ) as Record<string, unknown>;
    assert.deepEqual(
      [
        bag.state,
        bag.submitted_by,
        bag.student,
        bag.difficulty,
        bag.branch,
        bag.commit,
        bag.files_changed,
      ],
      ['WRITTEN', 'coder', 'coder', 'easy', branch, commit, [`work/${bead}.txt`]],
    );
    assert.equal(
      bag.output,
      `done: write the docs\nwrote: work/${bead}.txt\ncommitted: yes\n`,
      "the output is the worker's stdout",
    );
    assert.match(
      String(bag.verification),
      /worker exited with code 0 after [\d.]+ s; 1 file changed; commit [0-9a-f]{40} on branch study-coder-/,
    );
    const requests = itemsIn(p.box('coder').outbox);
    assert.deepEqual(requests.map((n) => /_to_(\w+)\.handoff$/.exec(n)?.[1]).sort(), [
      'coo',
      'cto',
    ]);
    for (const name of requests)
      assert.match(
        fs.readFileSync(join(p.box('coder').outbox, name), 'utf8'),
        new RegExp(`\ntype: review_request\n[^]*\nbead: ${bead}\n`),
      );
    const brief = JSON.parse(
      fs.readFileSync(join(reviews(), 'leaves', bead!, 'brief.json'), 'utf8'),
    ) as unknown;
    assert.deepEqual(brief, {
      bead,
      role: 'coder',
      domain: 'docs',
      task: 'write the docs',
      difficulty: 'easy',
    });
    assert.deepEqual(
      [auditOf(bead!).outcome, auditOf(bead!).exit_code, auditOf(bead!).branch],
      ['succeeded', 0, branch],
    );
  });

  it('a worker that commits nothing: its empty branch is deleted and the bookbag names no branch (--json)', () => {
    const r = leaf('look around', ['--json'], ['--no-commit']);
    assert.equal(r.code, 0, r.stderr);
    const shown = JSON.parse(r.stdout) as Record<string, string>;
    assert.deepEqual([shown.branch, shown.commit, shown.state], ['', '', 'WRITTEN']);
    assert.match(shown.worktree!, /^study-coder-[0-9a-f]{8}$/);
    assert.deepEqual([leafWorktrees(), studyBranches()], [[], []]);
    const bag = JSON.parse(
      fs.readFileSync(join(reviews(), 'bookbag', `${shown.bead}.json`), 'utf8'),
    ) as Record<string, unknown>;
    assert.deepEqual(
      [bag.branch, bag.commit, bag.files_changed],
      ['', '', [`work/${shown.bead}.txt`]],
    );
  });

  it('a worker that exits non-zero: nothing submitted, exit 2 naming the audit, the worktree removed (its committed branch kept)', () => {
    const r = leaf('fail', [], ['--exit', '3']);
    assert.equal(r.code, 2);
    const bead = beadOfAuditLine(r.stderr);
    assert.equal(
      r.stderr,
      `baton leaf: worker failed '${join(reviews(), 'leaves', bead, 'output.json')}': exited with code 3 after ${(Number(auditOf(bead).duration_ms) / 1000).toFixed(2)} s; nothing submitted\n`,
    );
    assert.deepEqual(
      [bookbags(), itemsIn(p.box('coder').outbox)],
      [[], []],
      'no bookbag, no request',
    );
    assert.deepEqual([auditOf(bead).outcome, auditOf(bead).exit_code], ['failed', 3]);
    assert.deepEqual(leafWorktrees(), []);
    assert.equal(
      studyBranches().length,
      1,
      'the worker committed before failing: its branch is kept',
    );
  });

  it('a worker that crashes (SIGKILL of itself): nothing submitted, exit 2, the worktree and its empty branch removed', () => {
    const r = leaf('crash', [], ['--crash']);
    assert.equal(r.code, 2);
    const bead = beadOfAuditLine(r.stderr);
    assert.match(r.stderr, /: was killed by SIGKILL; nothing submitted\n$/);
    assert.deepEqual(
      [auditOf(bead).outcome, auditOf(bead).signal, auditOf(bead).files_changed],
      ['failed', 'SIGKILL', [`work/${bead}.txt`]],
    );
    assert.deepEqual([leafWorktrees(), studyBranches(), bookbags()], [[], [], []]);
  });

  it('a worker that hangs past --timeout: its whole process group is killed, nothing submitted, the worktree removed', async () => {
    const r = leaf('hang', ['--timeout', '1'], ['--hang', '--pid-file', pidFile]);
    assert.equal(r.code, 2);
    assert.match(
      r.stderr,
      /: timed out after 1 s \(its process group was killed\); nothing submitted\n$/,
    );
    assert.equal(auditOf(beadOfAuditLine(r.stderr)).outcome, 'timed-out');
    assert.equal(workerPids().length, 2);
    await waitFor('the worker and its child to be gone', () =>
      workerPids().every((pid) => !processRunning(pid)),
    );
    assert.deepEqual([leafWorktrees(), studyBranches(), bookbags()], [[], [], []]);
  });

  it('SIGTERM to the leaf: it kills the worker group, removes the worktree, submits nothing and exits 143', async () => {
    const running = await startHangingLeaf();
    process.kill(running.pid, 'SIGTERM');
    const r = await running.ended;
    assert.equal(r.code, 143, r.stderr);
    const bead = beadOfAuditLine(r.stderr);
    assert.equal(
      r.stderr,
      `baton: interrupted by SIGTERM: worktree removed, nothing submitted; audit '${join(reviews(), 'leaves', bead, 'output.json')}'\n`,
    );
    assert.deepEqual(
      [auditOf(bead).outcome, auditOf(bead).interrupted_by],
      ['interrupted', 'SIGTERM'],
    );
    await waitFor('the worker and its child to be gone', () =>
      workerPids().every((pid) => !processRunning(pid)),
    );
    assert.deepEqual(
      [leafWorktrees(), registeredWorktrees(), studyBranches(), bookbags()],
      [[], 1, [], []],
    );
  });

  it('SIGKILL of the leaf leaves an orphan: doctor lists it, leaf clean kills the worker group and removes it, then neither finds anything', async () => {
    const running = await startHangingLeaf();
    process.kill(running.pid, 'SIGKILL');
    assert.equal((await running.ended).signal, 'SIGKILL');
    const [orphan] = leafWorktrees();
    assert.ok(orphan, 'the SIGKILLed leaf left its worktree');
    const doctor = baton(['doctor', '--json']);
    assert.equal(doctor.code, 2);
    const findings = (
      JSON.parse(doctor.stdout) as { findings: { path: string; kind: string; remedy: string }[] }
    ).findings.filter((f) => f.kind === 'orphan-leaf');
    assert.deepEqual(
      findings.map((f) => [f.path, f.remedy]),
      [
        [
          join(p.root, '.worktrees', orphan),
          'run baton leaf clean: it stops what is left of the worker, removes the worktree and keeps the branch when it holds commits',
        ],
      ],
    );
    const clean = baton(['leaf', 'clean']);
    assert.equal(clean.code, 0, clean.stderr);
    const bead = `coder-docs-${orphan.slice(-8)}`;
    assert.equal(
      clean.stdout,
      `REMOVED: ${join(p.root, '.worktrees', orphan)} (bead ${bead}; worker killed; branch deleted: nothing committed)\n`,
    );
    await waitFor('the worker and its child to be gone', () =>
      workerPids().every((pid) => !processRunning(pid)),
    );
    assert.deepEqual([leafWorktrees(), registeredWorktrees(), studyBranches()], [[], 1, []]);
    assert.deepEqual(baton(['leaf', 'clean', '--json']).stdout, '[]\n');
    assert.equal(baton(['leaf', 'clean']).stdout, 'OK: no orphan leaves\n');
    assert.ok(!baton(['doctor']).stdout.includes('leaf '), 'doctor lists no leaf any more');
  });

  it("leaf clean leaves a live leaf alone, and keeps an orphan's branch that holds commits", async () => {
    const running = await startHangingLeaf();
    assert.equal(baton(['leaf', 'clean']).stdout, 'OK: no orphan leaves\n');
    assert.equal(leafWorktrees().length, 1);
    const [orphan] = leafWorktrees();
    git(
      join(p.root, '.worktrees', orphan!),
      'commit',
      '-q',
      '--allow-empty',
      '-m',
      'work the worker committed',
    );
    const tip = git(p.root, 'rev-parse', `refs/heads/${orphan}`);
    process.kill(running.pid, 'SIGKILL');
    await running.ended;
    const clean = JSON.parse(baton(['leaf', 'clean', '--json']).stdout) as Record<
      string,
      unknown
    >[];
    assert.deepEqual(
      clean.map((c) => [c.worktree, c.branch, c.commit, c.worker_killed]),
      [[orphan, orphan, tip, true]],
    );
    assert.deepEqual([leafWorktrees(), studyBranches()], [[], [orphan]]);
  });

  it('--wait: prints the bead, then both verdicts once the reviewers recorded them (exit 0)', async () => {
    const running = startLeaf(leafArgs('write the docs', ['--wait', '--wait-timeout', '30'], []));
    await waitFor('the bookbag', () => bookbags().length === 1);
    const bead = bookbags()[0]!.replace(/\.json$/, '');
    const cto = baton(['review', 'verdict', bead, '--lens', 'cto'], 'cto');
    assert.equal(cto.code, 0, cto.stderr);
    assert.equal(
      baton(
        [
          'review',
          'verdict',
          bead,
          '--lens',
          'coo',
          '--finding',
          'HIGH:scope:half the task is missing',
        ],
        'coo',
      ).code,
      0,
    );
    const r = await running.ended;
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      r.stdout,
      new RegExp(
        `^BEAD: ${bead}\nAUDIT: .+\nBRANCH: study-coder-\\S+ [0-9a-f]{40}\ncto: PASS\ncoo: FAIL\n$`,
      ),
    );
  });

  it('--wait: on timeout prints what is there and exits 75; SIGTERM while waiting exits 143 at once and the review goes on', async () => {
    const timedOut = leaf('write the docs', ['--wait', '--wait-timeout', '0.5']);
    assert.equal(timedOut.code, 75);
    assert.match(timedOut.stdout, /\ncto: \(empty\)\ncoo: \(empty\)\n$/);
    assert.match(
      timedOut.stderr,
      /^baton leaf: timed out waiting for both verdicts of coder-docs-[0-9a-f]{8}\n$/,
    );
    const running = startLeaf(leafArgs('more docs', ['--wait', '--wait-timeout', '60'], []));
    await waitFor('the second bookbag', () => bookbags().length === 2);
    process.kill(running.pid, 'SIGTERM');
    const r = await running.ended;
    assert.equal(r.code, 143, r.stderr);
    assert.match(
      r.stderr,
      /^baton: interrupted by SIGTERM: stopped waiting for the verdicts of coder-docs-[0-9a-f]{8} \(its review goes on\)\n$/,
    );
    assert.equal(bookbags().length, 2, 'the submitted bead stays');
  });

  it('doctor lists a bookbag hand-edited to accepted: true with a FAIL verdict, as inconsistent', () => {
    const r = leaf('write the docs', []);
    assert.equal(r.code, 0, r.stderr);
    const bead = /^BEAD: (\S+)$/m.exec(r.stdout)![1]!;
    assert.equal(
      baton(
        ['review', 'verdict', bead, '--lens', 'cto', '--finding', 'HIGH:auth:the token is logged'],
        'cto',
      ).code,
      0,
    );
    assert.equal(baton(['review', 'verdict', bead, '--lens', 'coo'], 'coo').code, 0);
    assert.deepEqual(
      baton(['doctor', '--json']).stdout.includes('bookbag'),
      false,
      'a consistent bookbag is no problem',
    );
    const path = join(reviews(), 'bookbag', `${bead}.json`);
    fs.writeFileSync(
      path,
      fs.readFileSync(path, 'utf8').replace('"accepted": false', '"accepted": true'),
    );
    const doctor = baton(['doctor']);
    assert.equal(doctor.code, 2);
    assert.match(
      doctor.stdout,
      new RegExp(
        `^PROBLEM: ${path}: bookbag ${bead} is inconsistent: accepted is true but both verdicts are not PASS\\n  fix: no command writes to it: [^\\n]*baton review validate ${bead} passes\\n`,
        'm',
      ),
    );
  });

  it('refuses before anything is made: no worker after --, an unknown role, no reviewers configured', () => {
    const none = runBin(
      'baton',
      ['leaf', 'run', '--role', 'coder', '--domain', 'docs', '--task', 't'],
      { cwd: p.root },
    );
    assert.deepEqual(
      [none.code, none.stderr.split('\n')[0]],
      [
        1,
        'baton leaf run: name the worker after --: baton leaf run --role R --domain D --task TEXT -- WORKER-ARGV...',
      ],
    );
    const ghost = runBin(
      'baton',
      ['leaf', 'run', '--role', 'ghost', '--domain', 'docs', '--task', 't', '--', ...WORKER],
      { cwd: p.root },
    );
    assert.deepEqual(
      [ghost.code, ghost.stderr],
      [2, "baton review: the submitter 'ghost' is not a role of roles.tsv\n"],
    );
    fs.rmSync(join(p.root, '.swarmforge', 'reviewers.tsv'));
    const unreviewed = leaf('t', []);
    assert.equal(unreviewed.code, 1);
    assert.match(unreviewed.stderr, /no cto reviewer/);
    assert.equal(fs.existsSync(join(reviews(), 'leaves')), false, 'no leaf was started');
    assert.deepEqual(leafWorktrees(), []);
  });
});
