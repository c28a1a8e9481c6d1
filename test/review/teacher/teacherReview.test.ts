import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { CommandFailure } from '../../../lib/fsx/commandFailure.js';
import { reviewPathsOf } from '../../../lib/project/layout.js';
import { readItem, type Item } from '../../../lib/queue/item.js';
import { attemptDetail } from '../../../lib/review/lens/reviewAttempts.js';
import { bookbagPathOf, readBookbag } from '../../../lib/review/bookbag/store.js';
import { teacherFolderOf } from '../../../lib/review/teacher/teacherFolder.js';
import {
  reviewRequest,
  startEarlyRun,
  type Teacher,
  type TeacherEvent,
} from '../../../lib/review/teacher/teacherReview.js';
import { recordAttempt, recordVerdict } from '../../../lib/review/bookbag/verdict.js';
import { itemsIn, placeItem, type Project } from '../../support/project.js';
import {
  makeTeachersProject,
  reviewerRecords,
  scriptedReviewer,
  submitAndDeliver,
  teacherWorktree,
} from '../../support/teachers.js';

describe('lib/review/teacher/teacherReview', function () {
  this.timeout(30_000);
  let p: Project;
  let events: TeacherEvent[];
  beforeEach(() => {
    p = makeTeachersProject();
    events = [];
  });
  afterEach(() => p.cleanup());

  const record = () => join(p.root, 'runs.jsonl');
  const teacher = (
    lens: 'cto' | 'coo',
    argv = scriptedReviewer('--record', record()),
    extra: Partial<Teacher> = {},
  ): Teacher => ({
    root: p.root,
    role: `teacher-${lens}`,
    lens,
    worktree: teacherWorktree(p.root, lens),
    argv,
    timeoutMs: 10_000,
    maxAttempts: 3,
    env: process.env,
    folder: teacherFolderOf(reviewPathsOf(p.root, {}), lens),
    signal: new AbortController().signal,
    persona: async () => 'I review.',
    personaFile: 'built-in',
    summary: async () => undefined,
    report: (e) => events.push(e),
    ...extra,
  });
  /** The review request delivered to the teacher of `lens` (by name: other items may wait beside it). */
  const request = async (lens: string): Promise<Item> =>
    readItem(
      join(
        p.box(`teacher-${lens}`).inboxNew,
        itemsIn(p.box(`teacher-${lens}`).inboxNew).find((n) =>
          n.endsWith(`_to_teacher-${lens}.handoff`),
        )!,
      ),
    );
  const bag = (bead: string) => readBookbag(bookbagPathOf(reviewPathsOf(p.root, {}), bead));

  it('runs the reviewer once and records the verdict: an episode, events in order, the attempt counted', async () => {
    const bead = await submitAndDeliver(
      p.root,
      'the form\nFINDING: MEDIUM docs: no README entry\n',
    );
    const item = await request('coo');
    const episode = await reviewRequest(teacher('coo'), item);
    assert.deepEqual(
      episode !== 'abandoned' && [
        episode.bead,
        episode.request,
        episode.end,
        episode.verdict,
        episode.score,
        episode.attempts,
        episode.sections,
      ],
      [bead, item.id, 'verdict', 'PASS', 94, 1, ['docs']],
    );
    assert.deepEqual(
      events.map((e) => e.event),
      ['review', 'verdict'],
    );
    assert.deepEqual(
      [bag(bead).coo_verdict, bag(bead).coo_reviewer, bag(bead).attempts.coo],
      ['PASS', 'teacher-coo', 1],
    );
    assert.equal(reviewerRecords(record()).length, 1);
    assert.equal(
      fs.existsSync(teacherFolderOf(reviewPathsOf(p.root, {}), 'coo').reviewerRecord),
      false,
      "the running reviewer's record is gone",
    );
  });

  it('skips what it does not review: not a review_request, a bead name that is not one, a missing bookbag, a lens already decided', async () => {
    const note = await readItem(
      await placeItem(p.box('teacher-cto').inboxNew, {
        type: 'note',
        message: 'hello',
        to: 'teacher-cto',
      }),
    );
    const badBead = await readItem(
      await placeItem(p.box('teacher-cto').inboxNew, {
        type: 'review_request',
        lens: 'cto',
        bead: '../x',
        to: 'teacher-cto',
      }),
    );
    const gone = await readItem(
      await placeItem(p.box('teacher-cto').inboxNew, {
        type: 'review_request',
        lens: 'cto',
        bead: 'coder-general-00000000',
        to: 'teacher-cto',
      }),
    );
    const t = teacher('cto');
    assert.equal(((await reviewRequest(t, note)) as { end: string }).end, 'skipped');
    await reviewRequest(t, badBead);
    await reviewRequest(t, gone);
    const bead = await submitAndDeliver(p.root);
    await recordVerdict(p.root, bead, {
      lens: 'cto',
      findings: [],
      summary: '',
      reviewer: 'a person',
    });
    await reviewRequest(t, await request('cto'));
    assert.deepEqual(
      events.map((e) => e.event === 'skipped' && e.reason),
      [
        'not a review_request (type note): completed without review',
        "bead '../x' is not a bead name: completed without review",
        `missing bookbag '${bookbagPathOf(reviewPathsOf(p.root, {}), 'coder-general-00000000')}': no such bookbag (see baton review validate coder-general-00000000)`,
        'cto verdict already recorded (PASS)',
      ],
    );
    assert.deepEqual(reviewerRecords(record()), [], 'no reviewer ran');
  });

  it('refuses a request of the other lens (it stays in process for a person)', async () => {
    await submitAndDeliver(p.root);
    await assert.rejects(
      reviewRequest(teacher('cto'), await request('coo')),
      (err: unknown) =>
        err instanceof CommandFailure &&
        err.kind === 'refused' &&
        /is a coo request but this teacher reviews cto; it stays in process$/.test(err.lines[0]!),
    );
  });

  it('counts from the bookbag: a restarted teacher whose runs are used up records the FAIL without running the reviewer again', async () => {
    const bead = await submitAndDeliver(p.root);
    for (const n of [1, 2, 3])
      await recordAttempt(
        p.root,
        bead,
        'cto',
        'teacher-cto',
        attemptDetail(n, 3, 'reviewer timed out after 90 s'),
      );
    const episode = await reviewRequest(teacher('cto'), await request('cto'));
    assert.equal(episode !== 'abandoned' && episode.end, 'could-not-complete');
    assert.deepEqual(reviewerRecords(record()), []);
    assert.deepEqual(
      [bag(bead).cto_verdict, bag(bead).attempts.cto, bag(bead).cto_findings[0]!.description],
      ['FAIL', 3, 'review could not be completed: reviewer timed out after 90 s'],
    );
  });

  it('a run stopped by TERM is abandoned: nothing counted, nothing recorded', async () => {
    const bead = await submitAndDeliver(p.root);
    const controller = new AbortController();
    controller.abort();
    assert.equal(
      await reviewRequest(
        teacher('cto', undefined, { signal: controller.signal }),
        await request('cto'),
      ),
      'abandoned',
    );
    assert.deepEqual(
      events.map((e) => e.event),
      ['review', 'abandoned'],
    );
    assert.deepEqual([bag(bead).cto_verdict, bag(bead).attempts.cto], ['', 0]);
  });

  it('an early run (started before the claim) is taken over by the review of its own request: one run, one verdict', async () => {
    const bead = await submitAndDeliver(p.root);
    const item = await request('cto');
    const t = teacher('cto');
    const early = await startEarlyRun(t, item);
    assert.ok(early, 'a reviewable request starts early');
    assert.ok(
      fs.existsSync(t.folder.reviewerRecord),
      'it resolves once the reviewer runs (its record is written)',
    );
    const episode = await reviewRequest(t, item, early);
    assert.equal(episode !== 'abandoned' && episode.end, 'verdict');
    assert.equal(reviewerRecords(record()).length, 1, 'the reviewer ran once');
    assert.deepEqual(
      events.map((e) => e.event),
      ['review', 'verdict'],
    );
    assert.deepEqual([bag(bead).cto_verdict, bag(bead).attempts.cto], ['PASS', 1]);
  });

  it('an early run of another request than the one handed out is ended unused before that one is reviewed', async () => {
    const first = await submitAndDeliver(p.root);
    const second = await submitAndDeliver(p.root);
    const [a, b] = itemsIn(p.box('teacher-cto').inboxNew).map((n) =>
      join(p.box('teacher-cto').inboxNew, n),
    );
    const hanging = teacher('cto', scriptedReviewer('--hang', '--record', record()));
    const early = await startEarlyRun(hanging, await readItem(a!));
    assert.ok(early);
    const episode = await reviewRequest(teacher('cto'), await readItem(b!), early);
    assert.equal(episode !== 'abandoned' && episode.end, 'verdict');
    assert.deepEqual(
      events.map((e) => e.event),
      ['review', 'abandoned', 'review', 'verdict'],
    );
    assert.deepEqual(
      [first, second].map((bead) => [bag(bead).cto_verdict, bag(bead).attempts.cto]),
      [
        ['', 0],
        ['PASS', 1],
      ],
      'the early run counted nothing',
    );
  });

  it('starts nothing early for a request it would not run at once: the other lens, a decided lens', async () => {
    const bead = await submitAndDeliver(p.root);
    assert.equal(await startEarlyRun(teacher('cto'), await request('coo')), undefined);
    await recordVerdict(p.root, bead, {
      lens: 'cto',
      findings: [],
      declared: 'PASS',
      summary: '',
      reviewer: 'someone',
    });
    assert.equal(await startEarlyRun(teacher('cto'), await request('cto')), undefined);
    assert.equal(reviewerRecords(record()).length, 0);
  });
});
