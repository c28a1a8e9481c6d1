// Black-box tests of `baton review teacher` and `baton-scripted-reviewer` on the built bins
// (docs/review.md §7): a real handoffd delivers the requests (and the results); a reviewer
// that hangs, crashes, prints garbage or contradicts itself ends in a recorded FAIL after the
// bounded attempts; a teacher SIGKILLed mid-review (or between its verdict and the
// completion) resumes the same request and the bead gets one verdict per lens; TERM abandons
// the run cleanly; sessions are pruned to 10 and a corrupt one starts fresh. The end-to-end
// run of two teachers in tmux panes is in review_teacher_tmux.test.ts.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { personaPathOf, reviewPathsOf } from '../../lib/project/layout.js';
import { teacherFolderOf } from '../../lib/review/teacher/teacherFolder.js';
import yaml from 'js-yaml';
import { processRunning } from '../../lib/fsx/processIdentity.js';
import { endStarted, startHandoffd, waitFor, type Started } from '../support/daemon.js';
import { itemsIn, runBin, runBinAsync, type Project, type RunResult } from '../support/project.js';
import {
  makeTeachersProject,
  reviewerRecords,
  scriptedReviewer,
  startTeacher,
  teacherWorktree,
} from '../support/teachers.js';

describe('baton review teacher (built bins)', function () {
  this.timeout(60_000);
  let p: Project;
  const started: Started = {};
  beforeEach(async () => {
    p = makeTeachersProject();
    started.daemon = await startHandoffd(p.root, ['--poll-interval', '100']);
  });
  afterEach(async () => {
    await endStarted(started);
    p.cleanup();
  });

  const reviews = () => join(p.root, '.swarmforge', 'reviews');
  const record = () => join(p.root, 'reviewer-runs.jsonl');
  type Bag = {
    state: string;
    attempts: Record<string, number>;
    history: { event: string; detail: string }[];
  } & Record<string, unknown>;
  const bookbag = (bead: string) =>
    JSON.parse(fs.readFileSync(join(reviews(), 'bookbag', `${bead}.json`), 'utf8')) as Bag;
  const box = (lens: string) => p.box(`teacher-${lens}`);

  /** Submits work (as coder) whose output is `output`; waits until handoffd has delivered both requests. */
  const submit = async (output = 'the work\n'): Promise<string> => {
    fs.writeFileSync(join(p.root, 'out.txt'), output);
    const r = runBin(
      'baton',
      ['review', 'submit', '--task', 'add the login form', '--output-file', 'out.txt'],
      { cwd: p.root, role: 'coder' },
    );
    assert.equal(r.code, 0, r.stderr);
    await waitFor(
      'both requests delivered',
      () => itemsIn(box('cto').inboxNew).length === 1 && itemsIn(box('coo').inboxNew).length === 1,
    );
    return r.stdout.trim();
  };
  /** `baton review teacher --lens <lens> --once <options> -- <reviewer>` as its role, in its worktree. */
  const once = (
    lens: string,
    options: string[],
    reviewer: string[],
    env: Record<string, string> = {},
  ): Promise<RunResult> =>
    runBinAsync(
      'baton',
      ['review', 'teacher', '--lens', lens, '--once', ...options, '--', ...reviewer],
      { cwd: teacherWorktree(p.root, lens), role: `teacher-${lens}`, env, timeoutMs: 30_000 },
    );
  const lines = (r: RunResult) =>
    r.stdout
      .split('\n')
      .filter(Boolean)
      .map((l) =>
        l
          .replace(/session \S+ \((fresh|after \S+)\)/, 'session S ($1)')
          .replace(/^SESSION: \S+/, 'SESSION: P'),
      );
  const events = (bag: Bag, event: string) =>
    bag.history.filter((h) => h.event === event).map((h) => h.detail);
  const requestCompleted = (lens: string) => {
    assert.deepEqual(itemsIn(box(lens).inProcess), [], 'nothing stays in process');
    assert.equal(itemsIn(box(lens).completed).length, 1, 'the request is completed');
  };
  /**
   * `second`, the cto teacher after one killed with its reviewer running, ended that `orphan`
   * (its helpers too) and gave the lens one verdict from one counted run.
   */
  const endsOrphanThenReviewsOnce = (
    second: RunResult,
    orphan: ReturnType<typeof reviewerRecords>[number],
    bead: string,
  ) => {
    assert.equal(second.code, 0, second.stderr);
    assert.match(
      second.stderr,
      new RegExp(
        `^baton review teacher: ended reviewer pid ${orphan.pid} of bead ${bead} left running by a killed teacher`,
      ),
    );
    for (const pid of [orphan.pid, ...orphan.helpers])
      assert.equal(processRunning(pid), false, `orphan pid ${pid} is gone`);
    const bag = bookbag(bead);
    assert.deepEqual(
      [bag.cto_verdict, events(bag, 'cto_verdict').length, bag.attempts.cto],
      ['PASS', 1, 1],
    );
    requestCompleted('cto');
  };

  it("a PASS from the scripted reviewer: one run in the teacher's worktree, the prompt names the lens and bead, the request completed", async () => {
    const bead = await submit();
    const r = await once('cto', [], scriptedReviewer('--record', record()));
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(lines(r), [
      'TEACHER: cto as teacher-cto in ' +
        teacherWorktree(p.root, 'cto') +
        `, session S (fresh), persona ${resolve('personas', 'teacher-cto.md')}`,
      `REVIEWING: ${bead} cto attempt 1 of 3`,
      `VERDICT: ${bead} cto PASS score 100, 0 finding(s), 1 attempt(s); bead CTO_REVIEWED`,
      'SESSION: P (1 reviewed)',
    ]);
    const [run] = reviewerRecords(record());
    assert.deepEqual(
      [run!.cwd, run!.lens, run!.bead, run!.attempt, run!.strict],
      [teacherWorktree(p.root, 'cto'), 'cto', bead, 1, false],
    );
    const bag = bookbag(bead);
    assert.deepEqual(
      [bag.cto_verdict, bag.cto_reviewer, bag.attempts, bag.coo_verdict],
      ['PASS', 'teacher-cto', { cto: 1, coo: 0 }, ''],
    );
    requestCompleted('cto');
    assert.equal(itemsIn(box('coo').inboxNew).length, 1, "the other lens's request is not touched");
  });

  it('personas: a committed SOUL.md wins and its file is on the TEACHER line; a symlinked one is passed over for the shipped persona; the consolidation summary reaches the prompt', async () => {
    const bead = await submit();
    const committed = personaPathOf(p.root, 'teacher-cto');
    fs.mkdirSync(dirname(committed), { recursive: true });
    fs.writeFileSync(committed, '---\nname: teacher-cto\n---\nI am the project CTO.\n');
    const secret = join(p.root, 'secret.txt');
    fs.writeFileSync(secret, 'a secret of this machine\n');
    fs.mkdirSync(dirname(personaPathOf(p.root, 'teacher-coo')), { recursive: true });
    fs.symlinkSync(secret, personaPathOf(p.root, 'teacher-coo'));
    const coo = teacherFolderOf(reviewPathsOf(p.root, {}), 'coo');
    fs.mkdirSync(dirname(coo.consolidation), { recursive: true });
    fs.writeFileSync(
      coo.consolidation,
      'lens: coo\nrecurring_sections:\n  - section: docs\n    findings: 3\n',
    );
    const cto = await once('cto', [], scriptedReviewer('--record', record()));
    assert.equal(cto.code, 0, cto.stderr);
    assert.match(cto.stdout, new RegExp(`, persona ${committed}\n`));
    const r = await once('coo', [], scriptedReviewer('--record', record()));
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /persona '.*teacher-coo\/SOUL\.md' is a symlink: ignored/);
    assert.match(r.stdout, new RegExp(`, persona ${resolve('personas', 'teacher-coo.md')}\n`));
    const [ctoRun, cooRun] = reviewerRecords(record());
    assert.equal(ctoRun!.bead, bead);
    assert.match(ctoRun!.prompt, /^I am the project CTO\.\n---\n/);
    assert.match(cooRun!.prompt, /^You are teacher-coo, the delivery reviewer/);
    assert.match(
      cooRun!.prompt,
      /consolidation summary\); look there first:\n- docs: 3 findings\n/,
    );
    assert.doesNotMatch(cooRun!.prompt, /a secret of this machine/);
  });

  it('a reviewer that hangs past --timeout: its process group (a helper included) is killed each time; after --max-attempts the verdict is FAIL with one HIGH finding', async () => {
    const bead = await submit();
    const begun = Date.now();
    // 2 s: time for a loaded machine to start the reviewer, so each run gets to record itself.
    const r = await once(
      'cto',
      ['--timeout', '2', '--max-attempts', '2'],
      scriptedReviewer('--hang', '--record', record()),
    );
    assert.equal(r.code, 0, r.stderr);
    assert.ok(Date.now() - begun < 20_000, 'bounded: two runs of 2 s');
    assert.deepEqual(lines(r).slice(1, -1), [
      `REVIEWING: ${bead} cto attempt 1 of 2`,
      `ATTEMPT FAILED: ${bead} cto attempt 1 of 2: reviewer timed out after 2 s`,
      `REVIEWING: ${bead} cto attempt 2 of 2`,
      `ATTEMPT FAILED: ${bead} cto attempt 2 of 2: reviewer timed out after 2 s`,
      `VERDICT: ${bead} cto FAIL score 88, 1 finding(s), 2 attempt(s); bead CTO_REVIEWED`,
    ]);
    const bag = bookbag(bead);
    assert.deepEqual(bag.cto_findings, [
      {
        section: 'review',
        severity: 'HIGH',
        description: 'review could not be completed: reviewer timed out after 2 s',
      },
    ]);
    assert.deepEqual(events(bag, 'cto_attempt'), [
      'attempt 1 of 2: reviewer timed out after 2 s',
      'attempt 2 of 2: reviewer timed out after 2 s',
    ]);
    const runs = reviewerRecords(record());
    assert.equal(runs.length, 2);
    assert.deepEqual(
      runs.map((x) => x.strict),
      [false, true],
      'the second run gets the stricter instruction',
    );
    for (const pid of runs.flatMap((x) => [x.pid, ...x.helpers]))
      assert.equal(processRunning(pid), false, `pid ${pid} of the reviewer's group is gone`);
    assert.equal(runs[0]!.helpers.length, 1);
    requestCompleted('cto');
  });

  it('a reviewer that crashes every time: FAIL after the default 3 attempts, each counted in the bookbag with its reason', async () => {
    const bead = await submit();
    const r = await once('coo', [], scriptedReviewer('--crash'));
    assert.equal(r.code, 0, r.stderr);
    const reason =
      'reviewer exited with code 1: baton-scripted-reviewer: crashing as asked (--crash)';
    const bag = bookbag(bead);
    assert.deepEqual(
      [bag.coo_verdict, bag.attempts.coo, bag.coo_findings],
      [
        'FAIL',
        3,
        [
          {
            section: 'review',
            severity: 'HIGH',
            description: `review could not be completed: ${reason}`,
          },
        ],
      ],
    );
    assert.deepEqual(
      events(bag, 'coo_attempt'),
      [1, 2, 3].map((n) => `attempt ${n} of 3: ${reason}`),
    );
    assert.equal(events(bag, 'coo_verdict').length, 1);
    requestCompleted('coo');
  });

  it('a reviewer that prints garbage twice: FAIL when 2 attempts are allowed; PASS on the third (strict) run when 3 are', async () => {
    const bead = await submit();
    const cto = await once(
      'cto',
      ['--max-attempts', '2'],
      scriptedReviewer('--garbage', '2', '--counter', join(p.root, 'cto.count')),
    );
    assert.equal(cto.code, 0, cto.stderr);
    const reason = 'unparsable output: no front matter (a --- block with verdict: and summary:)';
    assert.deepEqual(
      [bookbag(bead).cto_verdict, bookbag(bead).attempts.cto, bookbag(bead).cto_findings],
      [
        'FAIL',
        2,
        [
          {
            section: 'review',
            severity: 'HIGH',
            description: `review could not be completed: ${reason}`,
          },
        ],
      ],
    );
    const coo = await once(
      'coo',
      [],
      scriptedReviewer(
        '--garbage',
        '2',
        '--counter',
        join(p.root, 'coo.count'),
        '--record',
        record(),
      ),
    );
    assert.equal(coo.code, 0, coo.stderr);
    const bag = bookbag(bead);
    assert.deepEqual(
      [bag.coo_verdict, bag.attempts.coo, bag.state, bag.accepted],
      ['PASS', 3, 'REVIEWED', false],
    );
    assert.deepEqual(
      reviewerRecords(record()).map((x) => [x.attempt, x.strict]),
      [
        [1, false],
        [2, true],
        [3, true],
      ],
    );
    await waitFor(
      'the result delivered to the submitter',
      () => itemsIn(p.box('coder').inboxNew).length === 1,
    );
  });

  it('a reviewer whose declared verdict contradicts its findings: each run is a failed attempt, then FAIL', async () => {
    const bead = await submit('the work\nFINDING: HIGH auth: passwords stored in clear\n');
    const r = await once('cto', ['--max-attempts', '2'], scriptedReviewer('--declare', 'PASS'));
    assert.equal(r.code, 0, r.stderr);
    const reason =
      "contradictory output: declared PASS but the HIGH finding 'auth: passwords stored in clear' blocks";
    assert.deepEqual(bookbag(bead).cto_findings, [
      {
        section: 'review',
        severity: 'HIGH',
        description: `review could not be completed: ${reason}`,
      },
    ]);
    assert.equal(bookbag(bead).attempts.cto, 2);
  });

  it('a teacher SIGKILLed mid-review leaves the request in process; the next one ends the orphaned reviewer, resumes that request, and the lens gets exactly one verdict', async () => {
    const bead = await submit();
    const first = startTeacher(p.root, 'cto', [], scriptedReviewer('--hang', '--record', record()));
    await waitFor(
      'the reviewer to start and the request to be claimed',
      () => reviewerRecords(record()).length === 1 && itemsIn(box('cto').inProcess).length === 1,
    );
    first.child.kill('SIGKILL');
    await first.exited;
    const [orphan] = reviewerRecords(record());
    assert.equal(itemsIn(box('cto').inProcess).length, 1, 'the request stays in process');
    assert.ok(
      processRunning(orphan!.pid),
      'the reviewer outlived its teacher (its own process group)',
    );
    endsOrphanThenReviewsOnce(await once('cto', [], scriptedReviewer()), orphan!, bead);
  });

  it('a teacher killed after starting its reviewer early, before its claim: the request still waits in new/; the next one ends the orphaned reviewer, claims and reviews it, and the lens gets exactly one verdict', async () => {
    const bead = await submit();
    const killed = await once('cto', [], scriptedReviewer('--hang', '--record', record()), {
      BATON_CRASH_AT: 'teacher:started-before-claim',
    });
    assert.equal(killed.signal, 'SIGKILL');
    assert.deepEqual(
      [itemsIn(box('cto').inboxNew).length, itemsIn(box('cto').inProcess).length],
      [1, 0],
      'the request was not claimed',
    );
    await waitFor(
      'the orphaned reviewer to record its start',
      () => reviewerRecords(record()).length === 1,
    );
    const [orphan] = reviewerRecords(record());
    endsOrphanThenReviewsOnce(await once('cto', [], scriptedReviewer()), orphan!, bead);
  });

  it('a teacher killed between its verdict and the completion: the restart skips the decided lens and completes the request', async () => {
    const bead = await submit();
    const killed = await once('cto', [], scriptedReviewer(), {
      BATON_CRASH_AT: 'teacher:verdict-recorded',
    });
    assert.equal(killed.signal, 'SIGKILL');
    assert.equal(itemsIn(box('cto').inProcess).length, 1);
    const again = await once('cto', [], scriptedReviewer('--crash'));
    assert.equal(again.code, 0, again.stderr);
    assert.ok(
      lines(again).includes(`SKIPPED: ${bead} cto: cto verdict already recorded (PASS)`),
      again.stdout,
    );
    const bag = bookbag(bead);
    assert.deepEqual(
      [bag.cto_verdict, events(bag, 'cto_verdict').length, bag.attempts.cto],
      ['PASS', 1, 1],
    );
    requestCompleted('cto');
  });

  it('TERM abandons the reviewer run: its group is ended, nothing is counted, the request stays in process, exit 0', async () => {
    const bead = await submit();
    const teacher = startTeacher(
      p.root,
      'coo',
      ['--poll-interval', '0.1'],
      scriptedReviewer('--hang', '--record', record()),
    );
    await waitFor('the reviewer to start', () => reviewerRecords(record()).length === 1);
    teacher.child.kill('SIGTERM');
    assert.deepEqual(await teacher.exited, { code: 0, signal: null }, teacher.stderr());
    assert.ok(
      teacher.stdout().includes(`ABANDONED: ${bead} coo: stopped; the request stays in process\n`),
      teacher.stdout(),
    );
    const [run] = reviewerRecords(record());
    for (const pid of [run!.pid, ...run!.helpers]) assert.equal(processRunning(pid), false);
    assert.equal(itemsIn(box('coo').inProcess).length, 1);
    assert.deepEqual([bookbag(bead).coo_verdict, bookbag(bead).attempts.coo], ['', 0]);
  });

  it('--once on an empty inbox saves a session and exits at once; the session files are pruned to the newest 10; the library log keeps every entry', async () => {
    const saved: string[] = [];
    for (let i = 0; i < 12; i++) {
      const r = await once('coo', [], scriptedReviewer());
      assert.equal(r.code, 0, r.stderr);
      saved.push(/^SESSION: (\S+) \(0 reviewed\)$/m.exec(r.stdout)![1]!);
    }
    const sessions = join(reviews(), 'teachers', 'coo', 'sessions');
    assert.deepEqual(
      fs
        .readdirSync(sessions)
        .sort()
        .map((n) => join(sessions, n)),
      saved.slice(2),
    );
    const newest = JSON.parse(fs.readFileSync(saved[11]!, 'utf8')) as {
      totals: { sessions: number };
      previous: string;
    };
    assert.equal(newest.totals.sessions, 12);
    assert.equal(`${join(sessions, newest.previous)}.json`, saved[10]);
    const log = yaml.load(
      fs.readFileSync(join(reviews(), 'teachers', 'coo', 'library_log.yaml'), 'utf8'),
    ) as { session: string }[];
    assert.deepEqual(
      log.map((e) => e.session),
      saved,
    );
    const summary = yaml.load(
      fs.readFileSync(join(reviews(), 'teachers', 'coo', 'consolidation.yaml'), 'utf8'),
    ) as { last_session: string };
    assert.equal(`${join(sessions, summary.last_session)}.json`, saved[11]);
  });

  it('a corrupt newest session: the teacher starts fresh with a logged note, and the new session keeps it', async () => {
    const first = await once('cto', [], scriptedReviewer());
    const path = /^SESSION: (\S+) /m.exec(first.stdout)![1]!;
    fs.writeFileSync(path, '{"sid": tru');
    const r = await once('cto', [], scriptedReviewer());
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      r.stderr,
      new RegExp(`^baton review teacher: corrupt session '${path}': .*; starting fresh\n$`),
    );
    assert.match(r.stdout, /^TEACHER: cto as teacher-cto in .*, session \S+ \(fresh\), persona /m);
    const fresh = JSON.parse(fs.readFileSync(/^SESSION: (\S+) /m.exec(r.stdout)![1]!, 'utf8')) as {
      previous: null;
      totals: { sessions: number };
      notes: string[];
    };
    assert.deepEqual([fresh.previous, fresh.totals.sessions], [null, 1]);
    assert.match(fresh.notes[0]!, /^corrupt session '.*': .*; starting fresh$/);
  });

  it('refuses bad use: no reviewer argv (exit 1), an unknown lens or --max-attempts 0 (exit 2); --help names the argv contract', () => {
    const run = (args: string[]) =>
      runBin('baton', ['review', 'teacher', ...args], { cwd: p.root, role: 'teacher-cto' });
    const none = run(['--lens', 'cto']);
    assert.deepEqual(
      [none.code, none.stderr.split('\n')[0]],
      [
        1,
        'baton review teacher: name the reviewer command after --, e.g. baton review teacher --lens cto -- baton-scripted-reviewer',
      ],
    );
    assert.deepEqual(
      [run(['--lens', 'cfo', '--', 'x']).code, run(['--lens', 'cfo', '--', 'x']).stderr],
      [2, "baton review: unknown lens 'cfo' (cto or coo)\n"],
    );
    assert.equal(run(['--lens', 'cto', '--max-attempts', '0', '--', 'x']).code, 2);
    const help = run(['--help']);
    assert.equal(help.code, 0);
    assert.match(
      help.stdout,
      /^baton review teacher --lens cto\|coo \[options\] -- REVIEWER-ARGV\.\.\./,
    );
  });
});
