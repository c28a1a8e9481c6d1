// A teacher's sessions (docs/review.md §7). A session is what a teacher did between waking
// and going to sleep: the reviews of that cycle, plus what it carries over from the session
// before it (its episodic history, the newest EPISODES reviews, and running totals). At
// sleep it is written as `sessions/<sid>.json`; at wake the newest one is loaded. A missing
// session starts fresh; so does a corrupt one (not JSON, or not a session of this lens),
// with a note that says why, which the new session keeps. Only the newest
// MAX_SESSION_CYCLES files are kept.
//
// Crash contract: a session file is written atomically (replaceFile: temp file, fsync,
// rename) and its folder fsync'd, so a reader sees a whole session or none; a kill before
// the rename leaves the previous session the newest. Session ids sort by time: the newest
// file is the last name, and a new id always sorts after every id already there.
import * as fs from 'node:fs';
import { join } from 'node:path';
import { fsyncDir } from '../../fsx/durable.js';
import { replaceJson } from '../../fsx/records.js';
import { ignoreEnoent } from '../../fsx/absent.js';
import { LENSES, type Lens } from '../bookbag/bookbag.js';
import { isoOf } from '../../fsx/timestamps.js';

/** How many session files a teacher keeps. */
export const MAX_SESSION_CYCLES = 10;
/** How many past reviews a session carries over (its episodic history). */
export const EPISODES = 50;

/** How a review ended. */
export type ReviewEnd = 'verdict' | 'could-not-complete' | 'skipped';

/** One review of a session. */
export interface Episode {
  bead: string;
  request: string;
  end: ReviewEnd;
  verdict: '' | 'PASS' | 'FAIL';
  score: number | null;
  attempts: number;
  sections: string[];
  detail: string;
  at: string;
}

/** Running totals over every session in the chain. */
export interface SessionTotals {
  sessions: number;
  reviews: number;
  pass: number;
  fail: number;
  could_not_complete: number;
  skipped: number;
  attempts: number;
  score_sum: number;
}

/** One session, as stored. */
export interface Session {
  sid: string;
  lens: Lens;
  role: string;
  previous: string | null;
  started_at: string;
  ended_at: string;
  notes: string[];
  reviews: Episode[];
  history: Episode[];
  totals: SessionTotals;
}

const SESSION_FILE = /^(\d{8}T\d{9}Z-\d{4})\.json$/;

/**
 * A session id for `now`: `YYYYMMDDTHHMMSSmmmZ-NNNN`, sorting after `after` (the newest id there
 * is).
 */
export function nextSessionId(now: Date, after?: string): string {
  const stamp = isoOf(now).replace(/[-:.]/g, '');
  const id = `${stamp}-0000`;
  if (after === undefined || id > after) return id;
  const [afterStamp, counter] = after.split('-') as [string, string];
  return `${afterStamp}-${String(Number(counter) + 1).padStart(4, '0')}`;
}

/** The session ids in `dir`, oldest first. */
export function sessionIdsIn(dir: string): string[] {
  const names = ignoreEnoent<string[]>(() => fs.readdirSync(dir), []);
  return names
    .map((n) => SESSION_FILE.exec(n)?.[1])
    .filter((id): id is string => id !== undefined)
    .sort();
}

function emptyTotals(): SessionTotals {
  return {
    sessions: 0,
    reviews: 0,
    pass: 0,
    fail: 0,
    could_not_complete: 0,
    skipped: 0,
    attempts: 0,
    score_sum: 0,
  };
}

/** The problem with `data` as a session of `lens`, or undefined when it is one. */
function sessionProblem(data: unknown, lens: Lens): string | undefined {
  if (!data || typeof data !== 'object' || Array.isArray(data)) return 'not a JSON object';
  const s = data as Partial<Session>;
  if (typeof s.sid !== 'string') return 'no sid';
  if (!LENSES.includes(s.lens as Lens) || s.lens !== lens)
    return `lens is ${String(s.lens)}, not ${lens}`;
  if (!Array.isArray(s.history) || !Array.isArray(s.reviews) || !Array.isArray(s.notes))
    return 'history, reviews or notes is not a list';
  const totals = s.totals as unknown as Record<string, unknown> | undefined;
  if (!totals || Object.keys(emptyTotals()).some((k) => typeof totals[k] !== 'number'))
    return 'totals are missing or not numbers';
  return undefined;
}

/** The newest session of `dir`, or why there is none to continue (missing, or corrupt). */
export function loadLastSession(dir: string, lens: Lens): { session?: Session; note?: string } {
  const newest = sessionIdsIn(dir).at(-1);
  if (newest === undefined) return { note: 'no session yet: starting fresh' };
  const path = join(dir, `${newest}.json`);
  let data: unknown;
  try {
    data = JSON.parse(fs.readFileSync(path, 'utf8'));
  } catch (err) {
    return {
      note: `corrupt session '${path}': ${(err as Error).message.split('\n')[0]}; starting fresh`,
    };
  }
  const problem = sessionProblem(data, lens);
  if (problem) return { note: `corrupt session '${path}': ${problem}; starting fresh` };
  return { session: data as Session };
}

/** A new session continuing `last` (or fresh), with `notes`. */
export function startSession(
  dir: string,
  lens: Lens,
  role: string,
  last: Session | undefined,
  notes: string[],
  now: Date,
): Session {
  const at = isoOf(now);
  const totals = { ...(last?.totals ?? emptyTotals()) };
  totals.sessions += 1;
  return {
    sid: nextSessionId(now, sessionIdsIn(dir).at(-1)),
    lens,
    role,
    previous: last?.sid ?? null,
    started_at: at,
    ended_at: at,
    notes,
    reviews: [],
    history: last ? [...last.history] : [],
    totals,
  };
}

/** `session` with one more review: its history and totals updated. */
export function withEpisode(session: Session, episode: Episode): Session {
  const t = { ...session.totals };
  t.reviews += 1;
  t.attempts += episode.attempts;
  if (episode.end === 'skipped') t.skipped += 1;
  if (episode.end === 'could-not-complete') t.could_not_complete += 1;
  if (episode.verdict === 'PASS') t.pass += 1;
  if (episode.verdict === 'FAIL') t.fail += 1;
  if (episode.score !== null) t.score_sum += episode.score;
  return {
    ...session,
    reviews: [...session.reviews, episode],
    history: [...session.history, episode].slice(-EPISODES),
    totals: t,
  };
}

/** Writes the session as `<dir>/<sid>.json` (atomically, folder fsync'd); returns the path. */
export function saveSession(dir: string, session: Session, now: Date): string {
  const path = join(dir, `${session.sid}.json`);
  replaceJson(path, { ...session, ended_at: isoOf(now) });
  return path;
}

/** Removes all but the newest `keep` session files; returns the removed paths. */
export function pruneSessions(dir: string, keep = MAX_SESSION_CYCLES): string[] {
  const ids = sessionIdsIn(dir);
  const removed = ids.slice(0, Math.max(0, ids.length - keep)).map((id) => join(dir, `${id}.json`));
  for (const path of removed) fs.rmSync(path, { force: true });
  if (removed.length > 0) fsyncDir(dir);
  return removed;
}
