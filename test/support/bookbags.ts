// Review-stage test data: a project whose conf names a reviewer role per lens, findings,
// submissions, and bookbags in any state built through the real transitions (so they are
// consistent by construction), written where the store reads them.
import * as fs from 'node:fs';
import { dirname } from 'node:path';
import { reviewPathsOf } from '../../lib/project/layout.js';
import {
  type Bookbag,
  type Finding,
  type Lens,
  type ReviewState,
  type Severity,
} from '../../lib/review/bookbag/bookbag.js';
import { writeSignal } from '../../lib/review/lens/signals.js';
import { bookbagPathOf, writeBookbag } from '../../lib/review/bookbag/store.js';
import {
  newBookbag,
  withDisposal,
  withScore,
  withVerdict,
  type Submission,
} from '../../lib/review/bookbag/transitions.js';
import { makeProject, tempDir, type Project } from './project.js';

/** The bead of the bookbags the factories build unless told otherwise. */
export const BEAD = 'coder-general-0a1b2c3d';

/** A coder, a reviewer role per lens and QA, all in ROOT; `review` lines name the reviewers. */
export const REVIEW_CONF = [
  'window coder claude master',
  'window rev-cto codex master',
  'window rev-coo codex master',
  'window QA claude master batch',
  'review cto rev-cto',
  'review coo rev-coo',
  '',
].join('\n');

/** A project initialised from REVIEW_CONF (reviewers.tsv written). */
export function makeReviewProject(conf = REVIEW_CONF): Project {
  return makeProject(conf);
}

/** Mocha hooks for the calling describe: one review project for all its tests, emptied of review files and mail before each; returns a view of it for the tests. */
export function reviewProjectForSuite(): Project {
  let current: Project | undefined;
  before(() => {
    current = makeReviewProject();
  });
  after(() => current?.cleanup());
  beforeEach(() => clearReviews(live()));
  function live(): Project {
    if (!current) throw new Error('the review project is used outside its suite');
    return current;
  }
  return {
    get root() {
      return live().root;
    },
    box: (role) => live().box(role),
    cleanup: () => live().cleanup(),
  };
}

/** Mocha hooks for the calling describe: a new bare ROOT (a temporary folder, no git, no roles) for each test, removed after it; returns its accessor. */
export function bareRootForEachTest(): () => string {
  let root: string | undefined;
  beforeEach(() => {
    root = tempDir();
  });
  afterEach(() => fs.rmSync(root!, { recursive: true, force: true }));
  return () => root!;
}

/** A fixed clock: `at(n)` is n seconds after 2026-06-15T14:00:00Z. */
export function at(seconds = 0): Date {
  return new Date(Date.UTC(2026, 5, 15, 14, 0, seconds));
}

/** One finding. */
export function finding(
  severity: Severity,
  section = 'tests',
  description = `a ${severity.toLowerCase()} problem`,
): Finding {
  return { severity, section, description };
}

/** A submission by coder, reviewed by rev-cto and rev-coo. */
export function submission(overrides: Partial<Submission> = {}): Submission {
  return {
    task: 'Add the parser',
    output: 'diff --git a/x b/x',
    student: 'coder',
    domain: 'general',
    difficulty: 'medium',
    verification: 'npm test',
    summary: 'parser added',
    acMet: ['parses'],
    filesChanged: ['lib/x.ts'],
    blockers: [],
    submittedBy: 'coder',
    replyTo: 'coder',
    branch: '',
    commit: '',
    ctoRole: 'rev-cto',
    cooRole: 'rev-coo',
    ...overrides,
  };
}

/** The findings each lens reports when a factory records its verdict. */
export interface LensFindings {
  cto?: Finding[];
  coo?: Finding[];
}

/** A consistent bookbag in `state`, built by the transitions from a submission (verdicts: CTO first, one second apart). */
export function bookbagIn(
  state: ReviewState,
  findings: LensFindings = {},
  bead = BEAD,
  s = submission(),
): Bookbag {
  let bag = newBookbag(bead, s, at(0));
  if (state === 'WRITTEN') return bag;
  const verdict = (lens: Lens, when: Date) => {
    bag = withVerdict(
      bag,
      { lens, findings: findings[lens] ?? [], summary: `${lens} looked`, reviewer: `rev-${lens}` },
      when,
    );
  };
  if (state !== 'COO_REVIEWED') verdict('cto', at(1));
  if (state !== 'CTO_REVIEWED') verdict('coo', at(2));
  if (state === 'SCORED' || state === 'DISPOSED') bag = withScore(bag, 'principal', at(3));
  if (state === 'DISPOSED') bag = withDisposal(bag, false, 'principal', at(4));
  return bag;
}

/** Writes `data` as the bookbag of `bead` byte for byte, without any check (for broken files); returns the path. */
export function writeRawBookbag(root: string, bead: string, data: unknown): string {
  const path = bookbagPathOf(reviewPathsOf(root, {}), bead);
  fs.mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  fs.writeFileSync(path, typeof data === 'string' ? data : `${JSON.stringify(data, null, 2)}\n`, {
    mode: 0o600,
  });
  return path;
}

/** Writes `bag` through the store, with its ready signal while it waits for a verdict (as submit and verdict leave it); returns its path. */
export function placeBookbag(root: string, bag: Bookbag): string {
  const paths = reviewPathsOf(root, {});
  const path = bookbagPathOf(paths, bag.bead);
  writeBookbag(path, bag);
  if (bag.state === 'WRITTEN' || bag.state.endsWith('_REVIEWED'))
    writeSignal(paths, bag.bead, at(0));
  return path;
}

/** Removes every review file of the project (bookbags, signals, locks, archive) and every role's mail (names that are not UTF-8 included). */
export function clearReviews(p: Project): void {
  fs.rmSync(dirname(reviewPathsOf(p.root, {}).bookbags), { recursive: true, force: true });
  for (const role of ['coder', 'rev-cto', 'rev-coo', 'QA']) {
    for (const dir of [
      p.box(role).outbox,
      p.box(role).sent,
      p.box(role).failed,
      p.box(role).inboxNew,
      p.box(role).inProcess,
      p.box(role).completed,
    ]) {
      const names = fs.existsSync(dir) ? fs.readdirSync(dir, { encoding: 'buffer' }) : [];
      for (const name of names)
        if (name.toString() !== 'tmp')
          fs.rmSync(Buffer.concat([Buffer.from(`${dir}/`), name]), {
            recursive: true,
            force: true,
          });
    }
  }
}
