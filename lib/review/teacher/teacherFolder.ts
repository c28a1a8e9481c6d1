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
import { join } from 'node:path';
import { type ReviewPaths } from '../../project/layout.js';
import { type Lens } from '../bookbag/bookbag.js';

/** Every path of one teacher's folder. */
export interface TeacherFolder {
  dir: string;
  sessions: string;
  consolidation: string;
  libraryLog: string;
  reviewerRecord: string;
  lock: string;
}

/** The folder of the teacher of `lens`. */
export function teacherFolderOf(paths: ReviewPaths, lens: Lens): TeacherFolder {
  const dir = join(paths.teachers, lens);
  return {
    dir,
    sessions: join(dir, 'sessions'),
    consolidation: join(dir, 'consolidation.yaml'),
    libraryLog: join(dir, 'library_log.yaml'),
    reviewerRecord: join(dir, 'reviewer.json'),
    lock: join(dir, 'lock'),
  };
}
