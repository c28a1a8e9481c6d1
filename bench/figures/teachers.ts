// Figure 9: the review latency Baton adds, from `submit` to both teachers' reviewer commands
// starting. The subject: submitReview (in this process: the bookbag, the signal, two
// review_requests, all fsync'd), the built handoffd delivering both requests (a private tmux
// server with `cat` panes, so its wake-ups are real), and two idle `baton review teacher`
// children (CTO in its own worktree, COO in ROOT) that claim their request through the queue,
// read the bookbag and the persona, build the prompt and spawn the scripted reviewer. The
// baseline, on the same machine in the same run: a file written with fsync and renamed into
// each of two folders, each watched by a raw spawner child (fs.watch, read, spawn the same
// reviewer with the bytes on stdin). A reviewer's start is its process's start
// (performance.timeOrigin, which the scripted reviewer records), measured on the same clock
// as the submit; a sample is the later of the two starts. Between samples everything runs
// to idle: both verdicts recorded, the teachers asleep again; the raw reviewers exited.
import * as fs from 'node:fs';
import { join } from 'node:path';
import { swarmDirOf } from '../../lib/project/layout.js';
import { bookbagPathOf, readBookbag } from '../../lib/review/bookbag/store.js';
import { submitReview } from '../../lib/review/lens/submit.js';
import { reviewPathsOf } from '../../lib/project/layout.js';
import { startPanes, waitFor } from '../../test/support/daemon.js';
import {
  reviewerRecords,
  scriptedReviewer,
  startTeacher,
  makeTeachersProject,
  type TeacherChild,
} from '../../test/support/teachers.js';
import { rawPublish } from '../support/baselines.js';
import { Cleanups } from '../support/cleanups.js';
import { startDaemon } from '../support/daemonChild.js';
import { interleave, type Contender } from '../support/interleave.js';
import { startRawSpawner, type RawSpawner } from '../support/rawSpawnerProcess.js';
import {
  budget,
  figureOf,
  printFigure,
  printHeading,
  printPart,
  type Figure,
} from '../support/report.js';
import { quantile, summarize } from '../support/stats.js';

const WARMUP = 4;
const RUNS = 40;
const LENSES = ['cto', 'coo'] as const;

/** Milliseconds since the epoch, on the clock a process's performance.timeOrigin uses. */
const nowMs = () => performance.timeOrigin + performance.now();

/** The later start of the two reviewers recorded after the first `before` lines of `record`. */
async function bothStarted(record: string, before: number): Promise<number> {
  await waitFor(
    'both reviewers to start',
    () => reviewerRecords(record).length >= before + 2,
    30_000,
  );
  return Math.max(
    ...reviewerRecords(record)
      .slice(before, before + 2)
      .map((r) => r.started_at),
  );
}

/** Two idle teachers on a project with handoffd; the contender submits one bead and waits for both reviewers. */
async function teachersLane(
  cleanups: Cleanups,
  subject: number[],
  parts: { submit: number[] },
): Promise<Contender> {
  const project = makeTeachersProject();
  cleanups.add(() => project.cleanup());
  const panes = await startPanes(project.root, ['coder', 'teacher-cto', 'teacher-coo']);
  cleanups.add(() => panes.kill());
  const daemon = await startDaemon(project.root);
  cleanups.add(() => daemon.stop());
  const record = join(project.root, 'reviewer-runs.jsonl');
  const teachers: TeacherChild[] = LENSES.map((lens) =>
    startTeacher(
      project.root,
      lens,
      ['--poll-interval', '60'],
      scriptedReviewer('--record', record),
    ),
  );
  cleanups.add(async () => {
    for (const t of teachers) t.child.kill('SIGTERM');
    for (const t of teachers)
      if ((await t.exited).code !== 0) throw new Error(`a teacher failed: ${t.stderr()}`);
  });
  const sleeps = (t: TeacherChild) => (t.stdout().match(/^SESSION: /gm) ?? []).length;
  await waitFor('both teachers to wake', () =>
    teachers.every((t) => /^TEACHER: /m.test(t.stdout())),
  );
  let beads = 0;
  let bead = '';
  return {
    name: 'teachers',
    run: async () => {
      const before = reviewerRecords(record).length;
      const start = nowMs();
      bead = (
        await submitReview(project.root, {
          task: `bench task ${beads}`,
          output: 'the work\n',
          student: 'coder',
          domain: 'bench',
          difficulty: 'medium',
          verification: '',
          summary: '',
          acMet: [],
          filesChanged: [],
          blockers: [],
          submittedBy: 'coder',
          replyTo: 'coder',
          branch: '',
          commit: '',
        })
      ).bead;
      parts.submit.push(nowMs() - start);
      subject.push((await bothStarted(record, before)) - start);
    },
    reset: async () => {
      beads += 1;
      const path = bookbagPathOf(reviewPathsOf(project.root, {}), bead);
      await waitFor('both verdicts', () => readBookbag(path).state === 'REVIEWED', 30_000);
      await waitFor(
        'both teachers asleep',
        () => teachers.every((t) => sleeps(t) >= beads),
        30_000,
      );
    },
  };
}

/** Two raw spawners; the contender publishes one file into each folder and waits for both reviewers. */
async function rawLane(cleanups: Cleanups, baseline: number[]): Promise<Contender> {
  const project = makeTeachersProject();
  cleanups.add(() => project.cleanup());
  const tmp = join(swarmDirOf(project.root), 'raw-tmp');
  const record = join(project.root, 'raw-reviewer-runs.jsonl');
  fs.mkdirSync(tmp, { recursive: true });
  const spawners: { dir: string; spawner: RawSpawner }[] = [];
  for (const lens of LENSES) {
    const dir = join(swarmDirOf(project.root), `raw-${lens}`);
    fs.mkdirSync(dir);
    const spawner = await startRawSpawner(dir, scriptedReviewer('--record', record));
    cleanups.add(() => spawner.stop());
    spawners.push({ dir, spawner });
  }
  const prompt = Buffer.from('Lens: cto\nBead: raw\n\n## Task\nbench task\n');
  let n = 0;
  return {
    name: 'raw',
    run: async () => {
      const before = reviewerRecords(record).length;
      n += 1;
      const start = nowMs();
      for (const { dir } of spawners) rawPublish(tmp, dir, `request-${n}`, prompt);
      baseline.push((await bothStarted(record, before)) - start);
    },
    reset: async () => {
      for (const { spawner } of spawners) await spawner.exited(`request-${n}`);
    },
  };
}

/** Measures the review latency of two idle teachers against the raw spawn baseline. */
export async function benchTeachers(): Promise<Figure[]> {
  printHeading("9. Review latency: submit → both teachers' reviewer commands starting");
  const cleanups = new Cleanups();
  try {
    const subject: number[] = [];
    const baseline: number[] = [];
    const parts = { submit: [] as number[] };
    const contenders = [
      await teachersLane(cleanups, subject, parts),
      await rawLane(cleanups, baseline),
    ];
    await interleave(contenders, WARMUP, RUNS);
    const timed = (samples: number[]) => samples.slice(WARMUP);
    const figure = figureOf(
      '9',
      'review latency: submit → 2 reviewers start',
      summarize(timed(subject)),
      "raw: fsync'd file, fs.watch, spawn (×2)",
      summarize(timed(baseline)),
      // issue 22: within 2× the raw spawners
      budget('p50 ≤ 2× baseline', (s, b) => s.median <= 2 * b.median),
    );
    printFigure(figure);
    const submitMs = quantile(timed(parts.submit), 0.5);
    console.log("    breakdown of the subject's median (each part's own median):");
    printPart('submitReview (bookbag, signal, 2 requests)', submitMs, figure.subject.median);
    printPart(
      'delivery, claim, prompt, spawn, exec',
      figure.subject.median - submitMs,
      figure.subject.median,
      ' (the rest)',
    );
    console.log(
      "    both: a reviewer's start is its process's performance.timeOrigin (the scripted reviewer records it), a sample the later of two.",
    );
    return [figure];
  } finally {
    await cleanups.run();
  }
}
