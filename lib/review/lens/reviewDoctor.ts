// What `baton doctor` finds in the review stage (docs/review.md §2, §8), as findings in
// doctor's own shape (lib/admin/doctor.ts), each with a remedy for a person: orphan
// leaves (their process is gone, their worktree is left), leaf pid records that cannot be
// read, and bookbags that are invalid or break an invariant (which no command writes to,
// so only a person can settle them). Reads only; lib/cli adds these to doctor's report.
import { type DoctorFinding } from '../../admin/doctor.js';
import { reviewPathsOf } from '../../project/layout.js';
import { leafRecordsOf, orphanLeaves } from '../leaf/leafClean.js';
import { listBookbags } from '../bookbag/listBookbags.js';
import { BookbagProblem } from '../bookbag/reviewErrors.js';
import { bookbagPathOf, loadBookbag } from '../bookbag/store.js';

/** The remedy for an orphan leaf. */
export const ORPHAN_LEAF_REMEDY =
  'run baton leaf clean: it stops what is left of the worker, ' +
  'removes the worktree and keeps the branch when it holds ' +
  'commits';

/** Findings for leaves: orphans, and pid records that cannot be read. */
function leafFindings(root: string, env: NodeJS.ProcessEnv): DoctorFinding[] {
  const unreadable = leafRecordsOf(root, env).flatMap((found) =>
    'problem' in found
      ? [
          {
            path: found.recordPath,
            kind: 'leaf-record',
            problem: `leaf pid record cannot be read: ${found.problem}`,
            remedy:
              "remove the leaf's worktree by hand (git worktree remove " +
              "--force <path>), then this record's folder",
          },
        ]
      : [],
  );
  const orphans = orphanLeaves(root, env).map(({ record }) => ({
    path: record.path,
    kind: 'orphan-leaf',
    role: record.role,
    remedy: ORPHAN_LEAF_REMEDY,
    problem:
      `leaf ${record.bead}: its process (pid ` +
      `${record.leaf.split(' ')[0]}) is gone, but its worktree was ` +
      `not removed`,
  }));
  return [...orphans, ...unreadable];
}

/**
 * Findings for bookbags that are not valid against the schema or break an invariant (the ones
 * `baton review list` shows as INVALID).
 */
function bookbagFindings(root: string, env: NodeJS.ProcessEnv): DoctorFinding[] {
  const paths = reviewPathsOf(root, env);
  return listBookbags(root, { env })
    .filter((row) => row.state === 'INVALID')
    .flatMap(({ bead }): DoctorFinding[] => {
      const path = bookbagPathOf(paths, bead);
      try {
        const { problems } = loadBookbag(path);
        if (problems.length === 0) return [];
        return [
          {
            path,
            kind: 'inconsistent-bookbag',
            problem: `bookbag ${bead} is inconsistent: ${problems.join('; ')}`,
            remedy:
              `no command writes to it: compare it with its history and ` +
              `findings (baton review show ${bead}), fix it by hand until ` +
              `baton review validate ${bead} passes`,
          },
        ];
      } catch (err) {
        if (!(err instanceof BookbagProblem)) throw err;
        if (err.kind === 'missing') return []; // disposed since the folder was listed
        return [
          {
            path,
            kind: 'invalid-bookbag',
            problem: `bookbag ${bead} is invalid: ${err.problems.join('; ')}`,
            remedy: 'restore it from its history or a backup, or move it out of the bookbag folder',
          },
        ];
      }
    });
}

/** Every review-stage finding of the project at `root`. */
export function reviewFindings(
  root: string,
  env: NodeJS.ProcessEnv = process.env,
): DoctorFinding[] {
  return [...leafFindings(root, env), ...bookbagFindings(root, env)];
}
