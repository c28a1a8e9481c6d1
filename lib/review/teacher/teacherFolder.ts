// The files of one teacher (docs/review.md §7), inside the folder that lib/project/layout.ts
// gives the review stage's teachers, `<teachers>/<lens>/` (as lib/queue/mailbox.ts knows the
// folders inside one mailbox):
//   sessions/<sid>.json     one file per sleep, the newest MAX_SESSION_CYCLES kept
//   consolidation.yaml      the summary of what the kept sessions hold, rewritten at each sleep
//   library_log.yaml        one appended entry per sleep (a YAML list that only grows)
//   reviewer.json           the reviewer process running now (pid and start time), so that a
//                           teacher restarted after a SIGKILL can end its orphan
//   lock/                   held by the one teacher of the lens while it runs (lib/fsx/lock.ts:
//                           a killed teacher's lock is taken over by the next)
//   spares/                 empty files the running teacher makes while it waits, for its
//                           writes (lib/fsx/spareFiles.ts); emptied at its start, gone at exit
import { join } from 'node:path';
import { filesIn, type ReviewPaths } from '../../project/layout.js';
import { type Lens } from '../bookbag/bookbag.js';

/** The files of one teacher's folder (the header says what each holds). */
const TEACHER_FILES = {
  sessions: 'sessions',
  consolidation: 'consolidation.yaml',
  libraryLog: 'library_log.yaml',
  reviewerRecord: 'reviewer.json',
  lock: 'lock',
  spares: 'spares',
} as const;

/** The folder of the teacher of `lens`. */
export function teacherFolderOf(paths: ReviewPaths, lens: Lens) {
  return filesIn(join(paths.teachers, lens), TEACHER_FILES);
}

/** Every path of one teacher's folder. */
export type TeacherFolder = ReturnType<typeof teacherFolderOf>;
