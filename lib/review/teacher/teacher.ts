// The teacher (docs/review.md §7): the agent of a reviewer role, for one lens. It acts as
// $SWARMFORGE_ROLE and takes its work only through the queue, with the agent commands'
// semantics (readyForNext, doneWithCurrent <id>), never by scanning bookbags.
//   boot   find ROOT, the role (task mode), its mailbox and worktree; take the lens's teacher
//          lock (one teacher per lens); end a reviewer left running by a killed
//          predecessor. Idempotent: a restart rediscovers all of it.
//   wake   load the newest session (a missing or corrupt one: start fresh, with a note).
//   cycle  ready_for_next; review each request handed out; done_with_current <id>, which
//          hands out the next, until NO_TASK (--once: after one request). With nothing in
//          process, the first reviewer starts before the claim (for the request the queue
//          is about to hand out): the claim's fsyncs then overlap its start-up.
//   sleep  after a cycle that reviewed something: write the session, the consolidation
//          summary and a library log entry, prune old sessions; then wait for mail.
//
// Crash contract: a request is completed only after its verdict is durable, so a teacher
// killed anywhere leaves its request in process (or completed), and the next teacher resumes
// it (ready_for_next hands the work in process out again); killed between an early start
// and its claim, it leaves the request waiting in new/, and the next teacher claims it.
// TERM or INT abandons the reviewer run in progress (its process group is ended, nothing is
// recorded, the request stays in process), saves the session and returns.
import * as fs from 'node:fs';
import { actingContext } from '../../handoff/context.js';
import { fail } from '../../fsx/commandFailure.js';
import { mailboxOf, reviewPathsOf } from '../../project/layout.js';
import { completeCurrent, doneWithCurrent, readyForNext } from '../../handoff/receive.js';
import { mkdirSynced } from '../../fsx/durable.js';
import {
  ensureMailbox,
  inProcessOf,
  type Item,
  readItem,
  readItemsIn,
  type UnusableItem,
  unusableLine,
} from '../../queue/index.js';
import { crashPoint } from '../../fsx/crash.js';
import { acquireLock, lockHolder, LockBusy, type Release } from '../../fsx/lock.js';
import { printable } from '../../fsx/printable.js';
import { type Lens } from '../bookbag/bookbag.js';
import { appendLibraryLog, recurringSectionsOf, writeConsolidation } from './consolidation.js';
import { InboxWatch } from '../lens/inboxWatch.js';
import { refillSpareFiles, startSpareFiles } from '../../fsx/spareFiles.js';
import { personaOf } from '../../admin/personas.js';
import { endOrphanReviewer } from './reviewerRecord.js';
import { teacherFolderOf, type TeacherFolder } from './teacherFolder.js';
import {
  type EarlyRun,
  reviewRequest,
  startEarlyRun,
  type Teacher,
  type TeacherEvent,
} from './teacherReview.js';
import {
  loadLastSession,
  pruneSessions,
  saveSession,
  startSession,
  withEpisode,
  type Session,
} from './teacherSession.js';

/** How a teacher is run (`baton review teacher`). */
export interface TeacherOptions {
  lens: Lens;
  once: boolean;
  pollIntervalMs: number;
  timeoutMs: number;
  maxAttempts: number;
  argv: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  signal: AbortSignal;
  /** Wake-up lines typed into the teacher's pane (its stdin, when that is a terminal). */
  terminal?: NodeJS.ReadStream;
  report: (event: TeacherEvent) => void;
  /** A diagnostic line for stderr. */
  warn: (line: string) => void;
}

/**
 * Takes the lock of the lens's teacher (one at a time: a second would resume the same request, and
 * end the first one's reviewer).
 */
function holdTeacherLock(folder: TeacherFolder, lens: Lens): Release {
  try {
    return acquireLock(folder.lock, 0);
  } catch (err) {
    if (!(err instanceof LockBusy)) throw err;
    fail(
      'environment',
      `baton review teacher: the ${lens} teacher is already running ` +
        `as pid ${lockHolder(folder.lock) ?? '?'}`,
    );
  }
}

/**
 * Boot: the acting role, its mailbox and worktree, the teacher's folder and lock; ends an orphaned
 * reviewer.
 */
async function boot(o: TeacherOptions): Promise<{ t: Teacher; release: Release }> {
  const { root, role } = actingContext(o.cwd, o.env);
  if (role.mode !== 'task')
    fail(
      'environment',
      `baton review teacher: role ${role.role} receives ` +
        `${printable(role.mode)} work; a teacher takes one request at ` +
        `a time (make its mode task in swarmforge.conf)`,
    );
  if (!fs.statSync(role.worktreePath, { throwIfNoEntry: false })?.isDirectory()) {
    fail(
      'environment',
      `baton review teacher: the worktree of role ${role.role} ` +
        `'${printable(role.worktreePath)}' does not exist; run baton ` +
        `up (it creates the worktrees)`,
    );
  }
  ensureMailbox(mailboxOf(root, role.role));
  const folder = teacherFolderOf(reviewPathsOf(root, o.env), o.lens);
  mkdirSynced(folder.sessions);
  const release = holdTeacherLock(folder, o.lens);
  const orphan = await endOrphanReviewer(folder.reviewerRecord);
  if (orphan)
    o.warn(
      `baton review teacher: ended reviewer pid ${orphan.pid} of ` +
        `bead ${orphan.bead} left running by a killed teacher (its ` +
        `request is resumed)`,
    );
  const personaName = `teacher-${o.lens}`;
  const persona = async () => {
    const found = await personaOf(root, personaName, o.env);
    for (const line of found.ignored) o.warn(`baton review teacher: ${line}`);
    return found.text;
  };
  const personaFile = (await personaOf(root, personaName, o.env)).path ?? 'built-in';
  const t: Teacher = {
    root,
    role: role.role,
    lens: o.lens,
    worktree: role.worktreePath,
    argv: o.argv,
    timeoutMs: o.timeoutMs,
    maxAttempts: o.maxAttempts,
    env: o.env,
    folder,
    signal: o.signal,
    persona,
    personaFile,
    summary: () => recurringSectionsOf(folder.consolidation),
    report: o.report,
  };
  return { t, release };
}

/** Wake: the new session, continuing the newest one on disk (or fresh, with a note on stderr). */
function wake(t: Teacher, o: TeacherOptions): Session {
  const { session: last, note } = loadLastSession(t.folder.sessions, t.lens);
  if (note && last === undefined && !note.startsWith('no session'))
    o.warn(`baton review teacher: ${note}`);
  const session = startSession(
    t.folder.sessions,
    t.lens,
    t.role,
    last,
    note ? [note] : [],
    new Date(),
  );
  o.report({
    event: 'wake',
    lens: t.lens,
    role: t.role,
    sid: session.sid,
    previous: session.previous,
    worktree: t.worktree,
    persona: t.personaFile,
  });
  return session;
}

/** Sleep: the session, the consolidation summary and a library log entry, then the pruning. */
async function sleep(t: Teacher, session: Session): Promise<void> {
  const now = new Date();
  const path = saveSession(t.folder.sessions, session, now);
  await writeConsolidation(t.folder.consolidation, session, now);
  await appendLibraryLog(t.folder.libraryLog, session, path, now);
  pruneSessions(t.folder.sessions);
  t.report({
    event: 'sleep',
    lens: t.lens,
    sid: session.sid,
    session: path,
    reviewed: session.reviews.length,
  });
}

const TASK_LINE = /^TASK: (.+)$/m;

/**
 * The request ready_for_next would hand out now, read without a claim and without the inbox lock
 * (unusable entries are left for the claim to quarantine); none while work is in process (it is
 * handed out again) or when the folder cannot be read as it is.
 */
async function nextWaiting(t: Teacher): Promise<Item | undefined> {
  const box = mailboxOf(t.root, t.role);
  try {
    const inProcess = inProcessOf(box);
    if (inProcess.files.length > 0 || inProcess.batches.length > 0) return undefined;
    return (await readItemsIn(box.inboxNew, () => undefined, 1))[0];
  } catch {
    return undefined;
  }
}

/**
 * One cycle: every request the queue hands out (one with --once), each completed after its review;
 * returns the session.
 */
async function cycle(t: Teacher, o: TeacherOptions, start: Session): Promise<Session> {
  let session = start;
  const onSkip = (problem: UnusableItem) => o.warn(unusableLine(problem));
  const next = await nextWaiting(t);
  let early: EarlyRun | undefined = next ? await startEarlyRun(t, next) : undefined;
  if (early) crashPoint('teacher:started-before-claim');
  try {
    let out = (await readyForNext(o.cwd, o.env, onSkip)).toString('utf8');
    for (let path = TASK_LINE.exec(out)?.[1]; path !== undefined; path = TASK_LINE.exec(out)?.[1]) {
      const item = await readItem(path);
      const ended = await reviewRequest(t, item, early);
      early = undefined;
      if (ended === 'abandoned') return session;
      session = withEpisode(session, ended);
      if (o.once || o.signal.aborted) {
        await completeCurrent(o.cwd, o.env, item.id, onSkip);
        return session;
      }
      out = (await doneWithCurrent(o.cwd, o.env, item.id, onSkip)).toString('utf8');
    }
  } finally {
    // Handed out nothing (NO_TASK, a refusal, an error): the early run ends unused.
    await early?.discard();
  }
  return session;
}

/** Spare files of a teacher: a claim's stamp, a session's few files. */
const TEACHER_SPARES = 8;

/**
 * Runs the teacher until TERM/INT (or, with --once, after at most one request); the session is
 * saved on the way out.
 */
export async function runTeacher(o: TeacherOptions): Promise<void> {
  const { t, release } = await boot(o);
  const watch = new InboxWatch(mailboxOf(t.root, t.role).inboxNew, o.terminal);
  // The claim of the next request and the session's files, written into files made while
  // the teacher waits (lib/fsx/spareFiles.ts).
  const stopSpares = startSpareFiles(t.folder.spares, TEACHER_SPARES);
  try {
    let session = wake(t, o);
    for (;;) {
      watch.take();
      session = await cycle(t, o, session);
      if (o.once || o.signal.aborted) break;
      if (session.reviews.length > 0) {
        await sleep(t, session);
        session = startSession(t.folder.sessions, t.lens, t.role, session, [], new Date());
      }
      refillSpareFiles();
      if ((await watch.wait(o.pollIntervalMs, o.signal)) === 'stopped') break;
    }
    if (o.once || session.reviews.length > 0) await sleep(t, session);
  } finally {
    stopSpares();
    watch.close();
    release();
  }
}
