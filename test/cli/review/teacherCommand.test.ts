// The `teacher` subcommand of `baton review`: its lines, its defaults, and that `baton review
// --help` lists it (its behaviour is tested in test/bin/review_teacher*.test.ts).
import assert from 'node:assert/strict';
import { CommandFailure } from '../../../lib/fsx/commandFailure.js';
import {
  DEFAULT_POLL_INTERVAL_S,
  DEFAULT_REVIEW_TIMEOUT_S,
  eventLine,
  millisecondsFrom,
  TEACHER_COMMAND,
} from '../../../lib/cli/review/teacherCommand.js';
import { runBin } from '../../support/project.js';

describe('lib/cli/review/teacherCommand', () => {
  it('prints one line per event', () => {
    assert.deepEqual(
      [
        eventLine({
          event: 'wake',
          lens: 'cto',
          role: 'teacher-cto',
          sid: 's2',
          previous: 's1',
          worktree: '/w',
          persona: '/pkg/personas/teacher-cto.md',
        }),
        eventLine({
          event: 'wake',
          lens: 'cto',
          role: 'teacher-cto',
          sid: 's1',
          previous: null,
          worktree: '/w',
          persona: 'built-in',
        }),
        eventLine({ event: 'review', bead: 'b', lens: 'coo', attempt: 2, max_attempts: 3 }),
        eventLine({
          event: 'attempt_failed',
          bead: 'b',
          lens: 'coo',
          attempt: 2,
          max_attempts: 3,
          reason: 'reviewer timed out after 90 s',
        }),
        eventLine({
          event: 'verdict',
          bead: 'b',
          lens: 'coo',
          verdict: 'FAIL',
          score: 88,
          findings: 1,
          attempts: 3,
          state: 'REVIEWED',
        }),
        eventLine({
          event: 'skipped',
          bead: '',
          lens: 'cto',
          request: 'r',
          reason: 'not a review_request (type note): completed without review',
        }),
        eventLine({ event: 'abandoned', bead: 'b', lens: 'cto', request: 'r' }),
        eventLine({ event: 'sleep', lens: 'cto', sid: 's1', session: '/s/s1.json', reviewed: 2 }),
      ],
      [
        'TEACHER: cto as teacher-cto in /w, session s2 (after s1), persona /pkg/personas/teacher-cto.md',
        'TEACHER: cto as teacher-cto in /w, session s1 (fresh), persona built-in',
        'REVIEWING: b coo attempt 2 of 3',
        'ATTEMPT FAILED: b coo attempt 2 of 3: reviewer timed out after 90 s',
        'VERDICT: b coo FAIL score 88, 1 finding(s), 3 attempt(s); bead REVIEWED',
        'SKIPPED: - cto: not a review_request (type note): completed without review',
        'ABANDONED: b cto: stopped; the request stays in process',
        'SESSION: /s/s1.json (2 reviewed)',
      ],
    );
  });

  it('seconds: the option, else the environment variable (when a positive number), else the default; a bad option is exit 2', () => {
    assert.equal(
      millisecondsFrom('timeout', 2.5, 'DEFAULT_REVIEW_TIMEOUT', DEFAULT_REVIEW_TIMEOUT_S, {
        DEFAULT_REVIEW_TIMEOUT: '7',
      }),
      2500,
    );
    assert.equal(
      millisecondsFrom('timeout', undefined, 'DEFAULT_REVIEW_TIMEOUT', DEFAULT_REVIEW_TIMEOUT_S, {
        DEFAULT_REVIEW_TIMEOUT: '7',
      }),
      7000,
    );
    assert.equal(
      millisecondsFrom(
        'timeout',
        undefined,
        'DEFAULT_REVIEW_TIMEOUT',
        DEFAULT_REVIEW_TIMEOUT_S,
        {},
      ),
      90_000,
    );
    assert.equal(
      millisecondsFrom('timeout', undefined, 'DEFAULT_REVIEW_TIMEOUT', DEFAULT_REVIEW_TIMEOUT_S, {
        DEFAULT_REVIEW_TIMEOUT: 'soon',
      }),
      90_000,
    );
    assert.equal(
      millisecondsFrom(
        'poll-interval',
        undefined,
        'HANDOFF_POLL_INTERVAL',
        DEFAULT_POLL_INTERVAL_S,
        {},
      ),
      5000,
    );
    assert.throws(
      () => millisecondsFrom('timeout', -1, 'DEFAULT_REVIEW_TIMEOUT', 90, {}),
      (err: unknown) => err instanceof CommandFailure && err.kind === 'invalid',
    );
  });

  it('is the teacher subcommand of baton review', () => {
    assert.equal(TEACHER_COMMAND.command, 'teacher');
    const help = runBin('baton', ['review', '--help'], { cwd: process.cwd() });
    assert.match(help.stdout, /baton review teacher +Run the reviewer agent of a lens/);
  });
});
