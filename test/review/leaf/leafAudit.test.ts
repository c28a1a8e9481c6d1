import assert from 'node:assert/strict';
import { type BoundedRun } from '../../../lib/proc/boundedRun.js';
import {
  auditOf,
  endingOf,
  outcomeOf,
  verificationOf,
  type AuditFacts,
} from '../../../lib/review/leaf/leafAudit.js';

const RUN: BoundedRun = {
  exitCode: 0,
  signal: null,
  timedOut: false,
  aborted: false,
  error: '',
  errorCode: '',
  durationMs: 1234,
  stdout: 'out',
  stdoutDropped: 0,
  stderr: 'err',
  stderrDropped: 2,
};
const FACTS: AuditFacts = {
  bead: 'coder-docs-0123abcd',
  role: 'coder',
  worktree: 'study-coder-0123abcd',
  argv: ['w', '--x'],
  startedAt: new Date('2026-01-02T03:04:05.000Z'),
  timeoutMs: 5000,
  interruptedBy: 'SIGTERM',
  files: ['a.txt', 'b.txt'],
  branch: 'study-coder-0123abcd',
  commit: 'c'.repeat(40),
  note: '',
};

describe('lib/review/leaf/leafAudit', () => {
  it('the outcome: interrupted before timed out before failed (not started, non-zero, killed); else succeeded', () => {
    assert.equal(outcomeOf(RUN), 'succeeded');
    assert.equal(outcomeOf({ ...RUN, exitCode: 1 }), 'failed');
    assert.equal(outcomeOf({ ...RUN, exitCode: null, signal: 'SIGKILL' }), 'failed');
    assert.equal(outcomeOf({ ...RUN, exitCode: null, error: 'spawn w ENOENT' }), 'failed');
    assert.equal(
      outcomeOf({ ...RUN, exitCode: null, signal: 'SIGKILL', timedOut: true }),
      'timed-out',
    );
    assert.equal(
      outcomeOf({ ...RUN, exitCode: null, signal: 'SIGKILL', timedOut: true, aborted: true }),
      'interrupted',
    );
  });

  it('says how the worker ended in one phrase', () => {
    const base = {
      outcome: 'failed' as const,
      exit_code: 3,
      signal: null,
      error: '',
      timeout_ms: 5000,
      duration_ms: 1234,
      interrupted_by: '',
    };
    assert.equal(endingOf(base), 'exited with code 3 after 1.23 s');
    assert.equal(
      endingOf({ ...base, exit_code: null, signal: 'SIGSEGV' }),
      'was killed by SIGSEGV',
    );
    assert.equal(
      endingOf({ ...base, exit_code: null, error: 'spawn w ENOENT' }),
      'could not be started: spawn w ENOENT',
    );
    assert.equal(
      endingOf({ ...base, outcome: 'timed-out' }),
      'timed out after 5 s (its process group was killed)',
    );
    assert.equal(
      endingOf({ ...base, outcome: 'interrupted', interrupted_by: 'SIGINT' }),
      'was stopped: the leaf got SIGINT',
    );
  });

  it("the verification states the run's facts, then the worker's own note", () => {
    assert.equal(
      verificationOf('study-x-1', 'exited with code 0 after 1.00 s', ['a'], '', '', ''),
      'leaf study-x-1: worker exited with code 0 after 1.00 s; 1 file changed; no commit\n',
    );
    assert.equal(
      verificationOf('study-x-1', 'e', [], 'b', 'c', ' ran the tests: 12 passing \n'),
      'leaf study-x-1: worker e; 0 files changed; commit c on branch b\n\nran the tests: 12 passing\n',
    );
  });

  it('the audit records the run and its facts (the signal that interrupted it only when it was)', () => {
    const audit = auditOf(RUN, FACTS);
    assert.deepEqual(audit, {
      bead: FACTS.bead,
      role: 'coder',
      worktree: FACTS.worktree,
      argv: ['w', '--x'],
      started_at: '2026-01-02T03:04:05.000Z',
      duration_ms: 1234,
      timeout_ms: 5000,
      outcome: 'succeeded',
      exit_code: 0,
      signal: null,
      error: '',
      interrupted_by: '',
      stdout: 'out',
      stdout_dropped_bytes: 0,
      stderr: 'err',
      stderr_dropped_bytes: 2,
      files_changed: ['a.txt', 'b.txt'],
      branch: FACTS.branch,
      commit: FACTS.commit,
      verification: `leaf ${FACTS.worktree}: worker exited with code 0 after 1.23 s; 2 files changed; commit ${FACTS.commit} on branch ${FACTS.branch}\n`,
    });
    assert.equal(auditOf({ ...RUN, aborted: true }, FACTS).interrupted_by, 'SIGTERM');
  });
});
