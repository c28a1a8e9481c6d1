// What a teacher writes at each sleep besides the session file (docs/review.md §7): the
// consolidation summary (`consolidation.yaml`, rewritten: the running totals, the finding
// sections that keep coming back in its episodic history, its latest reviews) and one
// appended entry of the library log (`library_log.yaml`, a YAML list that only grows: when
// it slept, what it reviewed, its notes). Both are for people and for the teacher's
// reviewer to read; the bookbags stay the authority over every review.
//
// Crash contract: the summary is replaced atomically (replaceFile, then a folder
// fsync). A log entry is one O_APPEND write, fsync'd; a kill can at worst leave the last
// entry cut short, never an earlier one changed.
import * as fs from 'node:fs';
import { dirname } from 'node:path';
import { fsyncDir, mkdirSynced } from '../../fsx/durable.js';
import { replaceFile } from '../../fsx/records.js';
import { type Session } from './teacherSession.js';
import { isoOf } from '../../fsx/timestamps.js';

/** How many recurring sections and latest reviews the summary lists. */
const SUMMARY_ROWS = 5;

/** The consolidation summary of a session, as a plain object. */
export function consolidationOf(session: Session, now: Date): Record<string, unknown> {
  const counts = new Map<string, number>();
  for (const episode of session.history)
    for (const section of episode.sections) counts.set(section, (counts.get(section) ?? 0) + 1);
  const recurring = [...counts]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .slice(0, SUMMARY_ROWS);
  const t = session.totals;
  const scored = t.pass + t.fail;
  return {
    lens: session.lens,
    role: session.role,
    updated_at: isoOf(now),
    last_session: session.sid,
    totals: { ...t, mean_score: scored > 0 ? Math.round(t.score_sum / scored) : null },
    recurring_sections: recurring.map(([section, findings]) => ({ section, findings })),
    latest: session.history
      .slice(-SUMMARY_ROWS)
      .reverse()
      .map((e) => `${e.at} ${e.bead} ${e.end}${e.verdict ? ` ${e.verdict} ${e.score}` : ''}`),
  };
}

/** The library log entry of a session. */
export function libraryEntryOf(
  session: Session,
  sessionPath: string,
  now: Date,
): Record<string, unknown> {
  return {
    at: isoOf(now),
    sid: session.sid,
    session: sessionPath,
    reviewed: session.reviews.length,
    beads: session.reviews.map((e) => `${e.bead} ${e.end}${e.verdict ? ` ${e.verdict}` : ''}`),
    notes: session.notes,
  };
}

async function yamlOf(data: unknown): Promise<string> {
  const { default: yaml } = await import('js-yaml');
  return yaml.dump(data, { lineWidth: -1, noRefs: true });
}

/**
 * The recurring sections of the consolidation summary at `path` as lines for the reviewer's
 * prompt (`- <section>: <n> findings`); undefined when there is no summary or none recur.
 */
export async function recurringSectionsOf(path: string): Promise<string | undefined> {
  const { default: yaml } = await import('js-yaml');
  let data: unknown;
  try {
    data = yaml.load(fs.readFileSync(path, 'utf8'));
  } catch {
    return undefined;
  }
  const rows = (data as { recurring_sections?: unknown } | null)?.recurring_sections;
  if (!Array.isArray(rows)) return undefined;
  const lines = rows
    .filter((r): r is { section: string; findings: number } => typeof r?.section === 'string')
    .map((r) => `- ${r.section}: ${Number(r.findings)} findings`);
  return lines.length > 0 ? lines.join('\n') : undefined;
}

/** Rewrites the consolidation summary at `path`. */
export async function writeConsolidation(path: string, session: Session, now: Date): Promise<void> {
  replaceFile(path, await yamlOf(consolidationOf(session, now)));
}

/** Appends the session's entry to the library log at `path` (created 0600 on first use). */
export async function appendLibraryLog(
  path: string,
  session: Session,
  sessionPath: string,
  now: Date,
): Promise<void> {
  mkdirSynced(dirname(path));
  const text = await yamlOf([libraryEntryOf(session, sessionPath, now)]);
  const created = !fs.existsSync(path);
  const fd = fs.openSync(
    path,
    fs.constants.O_WRONLY | fs.constants.O_APPEND | fs.constants.O_CREAT | fs.constants.O_NOFOLLOW,
    0o600,
  );
  try {
    fs.writeSync(fd, text);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  if (created) fsyncDir(dirname(path));
}
