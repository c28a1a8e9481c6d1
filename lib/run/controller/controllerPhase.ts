// The controller's local phase (docs/runtime.md §1, §9): `controller/phase.json`, what
// `baton run drive` has sent and received for a run. It is coordination, never proof: no
// gate reads it, and losing it costs at most a scan of the controller's mailbox (every
// request carries its key, so a restarted controller finds what it sent). Written
// atomically (replaceFile: fsync, 0600) with a folder fsync, by the controller only.
import * as fs from 'node:fs';
import { dirname } from 'node:path';
import { type RunPaths } from '../../project/layout.js';
import { mkdirSynced } from '../../fsx/durable.js';
import { replaceJson } from '../../fsx/records.js';
import { type RepoSnapshot } from '../gates/repoState.js';
import { isoOf } from '../../fsx/timestamps.js';

/**
 * What the controller is doing: driving, waiting for a worker's answer from a person, or for the
 * owner.
 */
export type ControllerState = 'DRIVING' | 'WAITING_FOR_HUMAN_INPUT' | 'WAITING_FOR_OWNER';

/**
 * One reply the controller awaits (runtime.md §11.2, §11.4): the request's key, the generation
 * last sent, when, the deadline, and the deadlines missed so far. `resend_at`: a missed
 * deadline's backoff, after which the next generation is sent.
 */
export interface AwaitedRequest {
  role: string;
  kind: string;
  stage: string;
  cycle: number;
  lane?: string;
  key: string;
  generation: number;
  sent_at: string;
  deadline_at: string;
  attempts: number;
  resend_at?: string;
}

/**
 * A reviewer's session rotated before one generation of its review request (runtime.md
 * §12.3, lib/run/controller/rotation.ts).
 */
export interface Rotation {
  role: string;
  /** The review request's key and the generation the rotation comes before. */
  key: string;
  generation: number;
  /** What the new session must give `baton run ack`. */
  nonce: string;
  /** Set just before the clear is typed (or the agent restarted), then when it is done. */
  clearing_at?: string;
  cleared_at?: string;
  /** How the context was cleared. */
  how?: string;
  acked_at?: string;
  /** Why the session could not be rotated (the review then goes without). */
  skipped?: string;
}

/** controller/phase.json. */
export interface ControllerPhase {
  state: ControllerState;
  /** Keys of the requests queued. */
  sent: string[];
  /** Replies taken, by request key: the artifact path in the run. */
  replies: Record<string, string>;
  /** Ids of the run_result handoffs already handled (used or rejected). */
  handled: string[];
  /** The repository as the validator got it (runtime.md §11.5), for its request's key. */
  validating?: { key: string; snapshot: RepoSnapshot };
  /** The requests whose replies are awaited (runtime.md §11.2). */
  awaiting?: AwaitedRequest[];
  /** Unusable replies rejected so far, by request key (runtime.md §11.3). */
  rejections?: Record<string, number>;
  /** Reviewers' session rotations, oldest first. */
  rotations?: Rotation[];
  /** Roles restarted after their agent was found dead at a deadline (--restart-dead, once). */
  restarted?: string[];
  /** A worker's open question. */
  question: null | { text: string; from: string; stage: string; cycle: number; since: string };
  updated_at: string;
}

/** A fresh phase. */
export function emptyPhase(now: Date): ControllerPhase {
  return {
    state: 'DRIVING',
    sent: [],
    replies: {},
    handled: [],
    question: null,
    updated_at: isoOf(now),
  };
}

/**
 * Reads the phase file; a missing or unreadable one starts empty (the mailbox scan recovers what
 * was sent).
 */
export function readPhase(paths: RunPaths, now = new Date()): ControllerPhase {
  try {
    const data = JSON.parse(fs.readFileSync(paths.phase, 'utf8')) as ControllerPhase;
    if (
      !Array.isArray(data.sent) ||
      !Array.isArray(data.handled) ||
      typeof data.replies !== 'object'
    )
      return emptyPhase(now);
    return data;
  } catch {
    return emptyPhase(now);
  }
}

/** What this process last wrote to each phase file (its content but for updated_at). */
const lastWritten = new Map<string, string>();

/**
 * Writes the phase file atomically, unless it would say what it already says: the controller
 * writes it once per turn of its loop, and an fsync'd write of nothing new would sit on every
 * transition's path.
 */
export function writePhase(paths: RunPaths, phase: ControllerPhase, now = new Date()): void {
  const content = JSON.stringify({ ...phase, updated_at: undefined });
  if (lastWritten.get(paths.phase) === content && fs.existsSync(paths.phase)) return;
  replaceJson(paths.phase, { ...phase, updated_at: isoOf(now) });
  lastWritten.set(paths.phase, content);
}

/**
 * Appends a line to the controller's log (best effort: a log that cannot be written never stops the
 * controller).
 */
export function logLine(paths: RunPaths, line: string, now = new Date()): void {
  try {
    mkdirSynced(dirname(paths.controllerLog));
    fs.appendFileSync(paths.controllerLog, `${isoOf(now)} ${line}\n`, { mode: 0o600 });
  } catch {
    // the log is for people; the record and the mailbox are the truth
  }
}
