// Black-box, end to end (docs/review.md §5, §7): a coder and two teachers in the panes of a
// private tmux server, each teacher `baton review teacher` with the scripted reviewer, a real
// handoffd delivering the requests and the results and typing its wake-ups into the panes.
// Two beads are submitted with `baton review submit`: one passes both lenses, one carries a
// HIGH finding for the CTO lens only; both results reach the coder.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { endStarted, startHandoffd, startPanes, waitFor, type Started } from '../support/daemon.js';
import { itemsIn, runBin, type Project } from '../support/project.js';
import {
  makeTeachersProject,
  reviewerRecords,
  scriptedReviewer,
  teacherArgv,
  teacherWorktree,
} from '../support/teachers.js';

describe('baton review teacher in tmux (built bins)', function () {
  this.timeout(60_000);
  let p: Project;
  const started: Started = {};
  beforeEach(() => {
    p = makeTeachersProject();
  });
  afterEach(async () => {
    await endStarted(started);
    p.cleanup();
  });

  const headersOf = (path: string) =>
    Object.fromEntries(
      fs
        .readFileSync(path, 'utf8')
        .split('---\n')[1]!
        .split('\n')
        .filter(Boolean)
        .map((l) => [l.slice(0, l.indexOf(': ')), l.slice(l.indexOf(': ') + 2)]),
    );
  const submit = (name: string, output: string) => {
    fs.writeFileSync(join(p.root, name), output);
    const r = runBin(
      'baton',
      ['review', 'submit', '--task', `task ${name}`, '--output-file', name],
      { cwd: p.root, role: 'coder' },
    );
    assert.equal(r.code, 0, r.stderr);
    return r.stdout.trim();
  };

  it('two teachers review two beads end to end: verdicts in the bookbags, requests completed, both results delivered to the coder', async () => {
    const record = join(p.root, 'reviewer-runs.jsonl');
    const teacher = (lens: string) => ({
      command: teacherArgv(lens, ['--poll-interval', '30'], scriptedReviewer('--record', record)),
      cwd: teacherWorktree(p.root, lens),
      env: { SWARMFORGE_ROLE: `teacher-${lens}` },
    });
    const panes = await startPanes(p.root, ['coder', 'teacher-cto', 'teacher-coo'], {
      'teacher-cto': teacher('cto'),
      'teacher-coo': teacher('coo'),
    });
    started.panes = panes;
    for (const role of ['teacher-cto', 'teacher-coo']) {
      await waitFor(`${role} to wake`, async () =>
        /^TEACHER: /m.test(await panes.tmux.capturePane(panes.panes.get(role)!)),
      );
    }
    started.daemon = await startHandoffd(p.root, ['--poll-interval', '100']);
    const good = submit('good.txt', 'the login form, with tests\n');
    const bad = submit(
      'bad.txt',
      'the login form\nFINDING(cto): HIGH auth: passwords stored in clear\n',
    );
    await waitFor(
      "both results in the coder's inbox",
      () => itemsIn(p.box('coder').inboxNew).length === 2,
      30_000,
    );
    const results = itemsIn(p.box('coder').inboxNew).map((n) =>
      headersOf(join(p.box('coder').inboxNew, n)),
    );
    const byBead = Object.fromEntries(
      results.map((h) => [h.bead, [h.type, h.accepted, h.cto_verdict, h.coo_verdict]]),
    );
    assert.deepEqual(byBead, {
      [good]: ['review_result', 'true', 'PASS', 'PASS'],
      [bad]: ['review_result', 'false', 'FAIL', 'PASS'],
    });
    const bag = JSON.parse(
      fs.readFileSync(join(p.root, '.swarmforge', 'reviews', 'bookbag', `${bad}.json`), 'utf8'),
    ) as Record<string, unknown>;
    assert.deepEqual(
      [bag.state, bag.cto_reviewer, bag.coo_reviewer, bag.findings],
      [
        'REVIEWED',
        'teacher-cto',
        'teacher-coo',
        [
          {
            lens: 'cto',
            section: 'auth',
            severity: 'HIGH',
            description: 'passwords stored in clear',
          },
        ],
      ],
    );
    for (const lens of ['cto', 'coo']) {
      const box = p.box(`teacher-${lens}`);
      await waitFor(
        `teacher-${lens} to complete both requests`,
        () => itemsIn(box.completed).length === 2 && itemsIn(box.inProcess).length === 0,
      );
      const runs = reviewerRecords(record).filter((r) => r.lens === lens);
      assert.deepEqual(
        runs.map((r) => r.cwd),
        [teacherWorktree(p.root, lens), teacherWorktree(p.root, lens)],
        "each reviewer ran in its teacher's worktree",
      );
      const screen = await panes.tmux.capturePane(panes.panes.get(`teacher-${lens}`)!);
      assert.match(screen, new RegExp(`VERDICT: ${good} ${lens} PASS score 100`));
      assert.match(
        screen,
        new RegExp(
          `VERDICT: ${bad} ${lens} ${lens === 'cto' ? 'FAIL score 88' : 'PASS score 100'}`,
        ),
      );
    }
  });
});
