// Fixtures for teacher tests and the review benchmark: the teachers' project (a coder, a
// CTO teacher in a worktree of its own, a COO teacher in ROOT), the scripted reviewer's argv
// and the record lines it appends, and a teacher run as a child process (argv only).
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { mailboxOf } from '../../lib/project/layout.js';
import { type Bookbag } from '../../lib/review/bookbag/bookbag.js';
import { submitReview } from '../../lib/review/lens/submit.js';
import { newBookbag, type Submission } from '../../lib/review/bookbag/transitions.js';
import { fixtureText } from './fixtures.js';
import { BIN_DIR, git, makeProject, type Project } from './project.js';

/** The teachers' swarmforge.conf. */
export const TEACHERS_CONF = fixtureText('conf', 'teachers.conf');

/** A project with the teachers' conf and the CTO teacher's worktree (`.worktrees/teacher-cto`). */
export function makeTeachersProject(): Project {
  const p = makeProject(TEACHERS_CONF);
  git(
    p.root,
    'worktree',
    'add',
    '-q',
    '-b',
    'teacher-cto',
    join(p.root, '.worktrees', 'teacher-cto'),
  );
  return p;
}

/** The worktree a lens's teacher works in. */
export function teacherWorktree(root: string, lens: string): string {
  return lens === 'cto' ? join(root, '.worktrees', 'teacher-cto') : root;
}

/** The scripted reviewer's argv with `flags`. */
export function scriptedReviewer(...flags: string[]): string[] {
  return [process.execPath, join(BIN_DIR, 'baton-scripted-reviewer.js'), ...flags];
}

/** `baton review teacher --lens <lens> <options> -- <reviewer>` as an argv. */
export function teacherArgv(lens: string, options: string[], reviewer: string[]): string[] {
  return [
    process.execPath,
    join(BIN_DIR, 'baton.js'),
    'review',
    'teacher',
    '--lens',
    lens,
    ...options,
    '--',
    ...reviewer,
  ];
}

/** One line the scripted reviewer's --record appends. */
export interface ReviewerRecordLine {
  pid: number;
  started_at: number;
  cwd: string;
  lens: string;
  bead: string;
  attempt: number;
  strict: boolean;
  helpers: number[];
  /** The whole prompt the reviewer read on stdin. */
  prompt: string;
}

/**
 * The record lines in `file` (none while it does not exist); a last line still being written
 * (no newline yet) is not one yet.
 */
export function reviewerRecords(file: string): ReviewerRecordLine[] {
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .slice(0, -1)
    .filter(Boolean)
    .map((l) => JSON.parse(l) as ReviewerRecordLine);
}

/** A teacher running as a child process, with what it printed so far. */
export interface TeacherChild {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts a teacher of `lens` as its role, in its worktree (stdin /dev/null). */
export function startTeacher(
  root: string,
  lens: string,
  options: string[],
  reviewer: string[],
  env: Record<string, string> = {},
): TeacherChild {
  const argv = teacherArgv(lens, options, reviewer);
  const childEnv: NodeJS.ProcessEnv = {
    ...process.env,
    SWARMFORGE_ROLE: `teacher-${lens}`,
    ...env,
  };
  delete childEnv.SWARMFORGE_ROOT;
  const child = spawn(argv[0]!, argv.slice(1), {
    cwd: teacherWorktree(root, lens),
    env: childEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr!.on('data', (b: Buffer) => (err += b.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal })),
  );
  return { child, stdout: () => out, stderr: () => err, exited };
}

/** A WRITTEN bookbag (not on disk) with the given submission fields, for tests of the prompt and the attempts. */
export function sampleBookbag(
  fields: Partial<Submission> = {},
  bead = 'coder-general-0123abcd',
): Bookbag {
  return newBookbag(
    bead,
    {
      task: 'add the login form',
      output: 'the form\n',
      student: 'coder',
      domain: 'general',
      difficulty: 'medium',
      verification: 'npm test: 12 passing',
      summary: 'done',
      acMet: ['a user can log in'],
      filesChanged: ['src/login.ts'],
      blockers: [],
      submittedBy: 'coder',
      replyTo: 'coder',
      branch: 'main',
      commit: '0123456789',
      ctoRole: 'teacher-cto',
      cooRole: 'teacher-coo',
      ...fields,
    },
    new Date('2026-06-15T14:05:31.123Z'),
  );
}

/** Submits work (as coder, in process) and delivers both requests into the teachers' inboxes (a copy of each, as handoffd would); returns the bead. */
export async function submitAndDeliver(root: string, output = 'the form\n'): Promise<string> {
  const bag = await submitReview(root, {
    task: 'add the login form',
    output,
    student: 'coder',
    domain: 'general',
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
  });
  const outbox = mailboxOf(root, 'coder').outbox;
  for (const name of fs.readdirSync(outbox).filter((n) => n.endsWith('.handoff'))) {
    const to = /_to_(teacher-c[ot]o)\.handoff$/.exec(name)![1]!;
    fs.renameSync(join(outbox, name), join(mailboxOf(root, to).inboxNew, name));
  }
  return bag.bead;
}
