// The record of the reviewer a teacher is running (`<teacher>/reviewer.json`: pid, the
// kernel's start time of that pid, bead, attempt), written when the reviewer starts and
// removed when its run has ended. A teacher killed with SIGKILL cannot end its reviewer's
// process group (it was spawned detached, so it survives the teacher); the next teacher of
// that lens finds the record at boot and ends that group before it resumes the request.
//
// Pid reuse: the leader is ended only while it is still the recorded process (same start
// time). When the leader is gone, a group with its id can only be what is left of the
// reviewer's group: Linux does not hand out a pid while a process group of that id exists,
// and a new group of that id would need a live leader with that pid.
import * as fs from 'node:fs';
import { unlinkSynced } from '../../fsx/durable.js';
import { replaceJson } from '../../fsx/records.js';
import { isCode } from '../../fsx/absent.js';
import { processRunning, startTimeOf } from '../../fsx/processIdentity.js';
import { endGroup, groupAlive } from '../../proc/ending.js';

/** What the record says. */
export interface ReviewerRecord {
  pid: number;
  start: string;
  bead: string;
  attempt: number;
}

/** Records the running reviewer `pid` (mode 0600, written atomically, folder fsync'd). */
export function writeReviewerRecord(
  path: string,
  pid: number,
  bead: string,
  attempt: number,
): void {
  const record: ReviewerRecord = { pid, start: startTimeOf(pid) ?? '-', bead, attempt };
  replaceJson(path, record);
}

/** Removes the record (nothing when there is none). */
export function removeReviewerRecord(path: string): void {
  unlinkSynced(path);
}

/**
 * The record, or undefined when there is none or it cannot be read (an unreadable one is removed).
 */
export function readReviewerRecord(path: string): ReviewerRecord | undefined {
  try {
    const data = JSON.parse(fs.readFileSync(path, 'utf8')) as Partial<ReviewerRecord>;
    if (Number.isInteger(data.pid) && (data.pid ?? 0) > 1 && typeof data.start === 'string')
      return data as ReviewerRecord;
  } catch (err) {
    if (isCode(err, 'ENOENT')) return undefined;
  }
  removeReviewerRecord(path);
  return undefined;
}

/** True when the recorded reviewer, or what is left of its process group, still runs. */
export function recordedReviewerRuns(record: ReviewerRecord): boolean {
  if (processRunning(record.pid)) return startTimeOf(record.pid) === record.start;
  return groupAlive(record.pid);
}

/**
 * Ends the process group of a reviewer left running by a killed teacher; returns the record when
 * one was ended.
 */
export async function endOrphanReviewer(path: string): Promise<ReviewerRecord | undefined> {
  const record = readReviewerRecord(path);
  if (!record) return undefined;
  const runs = recordedReviewerRuns(record);
  if (runs) await endGroup(record.pid);
  removeReviewerRecord(path);
  return runs ? record : undefined;
}
