import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { CommandFailure } from '../../../lib/fsx/commandFailure.js';
import { reviewPathsOf } from '../../../lib/project/layout.js';
import { runTeacher, type TeacherOptions } from '../../../lib/review/teacher/teacher.js';
import { teacherFolderOf } from '../../../lib/review/teacher/teacherFolder.js';
import { type TeacherEvent } from '../../../lib/review/teacher/teacherReview.js';
import { bookbagPathOf, readBookbag } from '../../../lib/review/bookbag/store.js';
import { waitFor } from '../../support/daemon.js';
import { itemsIn, type Project } from '../../support/project.js';
import {
  makeTeachersProject,
  scriptedReviewer,
  submitAndDeliver,
  teacherWorktree,
} from '../../support/teachers.js';

describe('lib/review/teacher/teacher', function () {
  this.timeout(30_000);
  let p: Project;
  let events: TeacherEvent[];
  let warnings: string[];
  beforeEach(() => {
    p = makeTeachersProject();
    events = [];
    warnings = [];
  });
  afterEach(() => p.cleanup());

  const options = (lens: 'cto' | 'coo', extra: Partial<TeacherOptions> = {}): TeacherOptions => {
    const env: NodeJS.ProcessEnv = { ...process.env, SWARMFORGE_ROLE: `teacher-${lens}` };
    delete env.SWARMFORGE_ROOT;
    return {
      lens,
      once: true,
      pollIntervalMs: 50,
      timeoutMs: 10_000,
      maxAttempts: 3,
      argv: scriptedReviewer(),
      cwd: teacherWorktree(p.root, lens),
      env,
      signal: new AbortController().signal,
      report: (e) => events.push(e),
      warn: (l) => warnings.push(l),
      ...extra,
    };
  };
  const box = (lens: string) => p.box(`teacher-${lens}`);
  const bag = (bead: string) => readBookbag(bookbagPathOf(reviewPathsOf(p.root, {}), bead));

  it('--once with an empty inbox: wake, then sleep (a session file, the summary, a log entry) at once', async () => {
    await runTeacher(options('cto'));
    assert.deepEqual(
      events.map((e) => e.event),
      ['wake', 'sleep'],
    );
    const folder = teacherFolderOf(reviewPathsOf(p.root, {}), 'cto');
    assert.equal(fs.readdirSync(folder.sessions).length, 1);
    assert.ok(fs.existsSync(folder.consolidation) && fs.existsSync(folder.libraryLog));
    assert.deepEqual(warnings, [], 'a first session is no news');
  });

  it('--once handles one request and completes it without claiming the next', async () => {
    const first = await submitAndDeliver(p.root);
    await submitAndDeliver(p.root);
    await runTeacher(options('cto'));
    assert.deepEqual(
      events.map((e) => e.event),
      ['wake', 'review', 'verdict', 'sleep'],
    );
    assert.equal(bag(first).cto_verdict, 'PASS');
    assert.deepEqual(
      [
        itemsIn(box('cto').completed).length,
        itemsIn(box('cto').inProcess).length,
        itemsIn(box('cto').inboxNew).length,
      ],
      [1, 0, 1],
    );
  });

  it('without --once: drains the inbox, sleeps after the cycle, wakes for new mail, and stops on abort with its session saved', async () => {
    const controller = new AbortController();
    const running = runTeacher(
      options('coo', { once: false, pollIntervalMs: 60_000, signal: controller.signal }),
    );
    const a = await submitAndDeliver(p.root);
    await waitFor('the first verdict', () => events.some((e) => e.event === 'sleep'));
    // Waiting, it has its spare files ready (lib/fsx/spareFiles.ts).
    const spares = teacherFolderOf(reviewPathsOf(p.root, {}), 'coo').spares;
    await waitFor('the spares', () => fs.existsSync(spares) && fs.readdirSync(spares).length === 8);
    const b = await submitAndDeliver(p.root);
    await waitFor(
      'the second verdict (woken by the watch, not the 60 s poll)',
      () => events.filter((e) => e.event === 'sleep').length === 2,
    );
    controller.abort();
    await running;
    assert.equal(fs.existsSync(spares), false, 'the spares are left behind');
    assert.deepEqual([bag(a).coo_verdict, bag(b).coo_verdict], ['PASS', 'PASS']);
    assert.equal(itemsIn(box('coo').completed).length, 2);
    const sleeps = events.filter(
      (e): e is Extract<TeacherEvent, { event: 'sleep' }> => e.event === 'sleep',
    );
    assert.deepEqual(
      sleeps.map((e) => e.reviewed),
      [1, 1],
      'one session per cycle; nothing reviewed after the last sleep, so nothing more saved',
    );
  });

  it('one teacher per lens: a second one is refused while the first runs, and starts once it has stopped', async () => {
    const controller = new AbortController();
    const first = runTeacher(options('cto', { once: false, signal: controller.signal }));
    await waitFor('the first teacher to wake', () => events.some((e) => e.event === 'wake'));
    await assert.rejects(
      runTeacher(options('cto')),
      (err: unknown) =>
        err instanceof CommandFailure &&
        err.lines[0] ===
          `baton review teacher: the cto teacher is already running as pid ${process.pid}`,
    );
    await runTeacher(options('coo'));
    controller.abort();
    await first;
    await runTeacher(options('cto'));
  });

  it('boot refuses a role in batch mode, an unknown role and a missing worktree', async () => {
    fs.rmSync(teacherWorktree(p.root, 'cto'), { recursive: true, force: true });
    await assert.rejects(
      runTeacher(options('cto')),
      (err: unknown) =>
        err instanceof CommandFailure &&
        /the worktree of role teacher-cto '.*' does not exist; run baton up/.test(err.lines[0]!),
    );
    await assert.rejects(
      runTeacher(
        options('coo', { cwd: p.root, env: { ...options('coo').env, SWARMFORGE_ROLE: 'nobody' } }),
      ),
      (err: unknown) => err instanceof CommandFailure && err.lines[0] === 'Unknown role: nobody',
    );
    const rolesPath = join(p.root, '.swarmforge', 'roles.tsv');
    fs.writeFileSync(
      rolesPath,
      fs.readFileSync(rolesPath, 'utf8').replace(/^(teacher-coo\t.*)\ttask$/m, '$1\tbatch'),
    );
    await assert.rejects(
      runTeacher(options('coo')),
      (err: unknown) =>
        err instanceof CommandFailure && /role teacher-coo receives batch work/.test(err.lines[0]!),
    );
  });
});
