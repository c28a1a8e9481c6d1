import assert from 'node:assert/strict';
import {
  attemptDetail,
  contradictionOf,
  couldNotCompleteFinding,
  judgeOutcome,
  lastFailureOf,
} from '../../../lib/review/lens/reviewAttempts.js';
import { withAttempt } from '../../../lib/review/bookbag/transitions.js';
import { sampleBookbag } from '../../support/teachers.js';

describe('lib/review/lens/reviewAttempts', () => {
  const exited = (stdout: string) => ({ kind: 'exited' as const, stdout, stderr: '', ms: 5 });

  it('a findings document (JSON or Markdown) whose declared verdict agrees is a review', async () => {
    assert.deepEqual(
      await judgeOutcome(
        exited(
          '{"findings": [{"severity": "Minor", "section": "docs", "description": "typo"}], "summary": "ok"}',
        ),
      ),
      {
        document: {
          verdict: undefined,
          findings: [{ severity: 'MEDIUM', section: 'docs', description: 'typo' }],
          summary: 'ok',
        },
      },
    );
    assert.deepEqual(
      await judgeOutcome(
        exited('---\nverdict: FAIL\nsummary: no\n---\n- [HIGH] auth: clear text\n'),
      ),
      {
        document: {
          verdict: 'FAIL',
          findings: [{ severity: 'HIGH', section: 'auth', description: 'clear text' }],
          summary: 'no',
        },
      },
    );
  });

  it('a timeout, a crash, a signal, a program that cannot start: each a failure with its reason and the last stderr line', async () => {
    assert.deepEqual(
      await judgeOutcome({
        kind: 'timeout',
        timeoutMs: 90_000,
        stderr: 'thinking...\nstill thinking\n',
        ms: 90_000,
      }),
      { failure: 'reviewer timed out after 90 s: still thinking' },
    );
    assert.deepEqual(await judgeOutcome({ kind: 'timeout', timeoutMs: 300, stderr: '', ms: 300 }), {
      failure: 'reviewer timed out after 0.3 s',
    });
    assert.deepEqual(
      await judgeOutcome({
        kind: 'crashed',
        code: 3,
        signal: null,
        stdout: '{',
        stderr: 'Error: boom\n',
        ms: 5,
      }),
      { failure: 'reviewer exited with code 3: Error: boom' },
    );
    assert.deepEqual(
      await judgeOutcome({
        kind: 'crashed',
        code: null,
        signal: 'SIGSEGV',
        stdout: '',
        stderr: '',
        ms: 5,
      }),
      { failure: 'reviewer was killed by SIGSEGV' },
    );
    assert.deepEqual(
      await judgeOutcome({ kind: 'unstartable', message: "cannot run 'nope': ENOENT", ms: 1 }),
      { failure: "cannot run 'nope': ENOENT" },
    );
  });

  it('no output, garbage, and a document that contradicts itself are failures', async () => {
    assert.deepEqual(await judgeOutcome(exited('  \n')), {
      failure: 'no output (a findings document was expected on stdout)',
    });
    assert.deepEqual(await judgeOutcome(exited('garbage\n')), {
      failure: 'unparsable output: no front matter (a --- block with verdict: and summary:)',
    });
    assert.deepEqual(
      await judgeOutcome(exited('{"findings": [{"severity": "SEVERE", "description": "x"}]}')),
      {
        failure:
          "unparsable output: unknown severity 'SEVERE' (one of CRITICAL, HIGH, MEDIUM, LOW or Critical, Important, Minor, Nit)",
      },
    );
    assert.deepEqual(
      await judgeOutcome(
        exited(
          '{"verdict": "PASS", "findings": [{"severity": "HIGH", "section": "auth", "description": "clear text"}]}',
        ),
      ),
      {
        failure:
          "contradictory output: declared PASS but the HIGH finding 'auth: clear text' blocks",
      },
    );
    assert.equal(
      contradictionOf({
        verdict: 'FAIL',
        findings: [{ severity: 'LOW', section: 's', description: 'd' }],
      }),
      'contradictory output: declared FAIL but no finding is CRITICAL or HIGH',
    );
    assert.equal(
      contradictionOf({ findings: [{ severity: 'HIGH', section: 's', description: 'd' }] }),
      undefined,
      'no declared verdict: nothing to contradict',
    );
  });

  it('attempt details, the last failure from the bookbag history, and the one finding of a review that could not be completed', () => {
    assert.equal(
      attemptDetail(2, 3, 'reviewer timed out after 90 s'),
      'attempt 2 of 3: reviewer timed out after 90 s',
    );
    assert.equal(attemptDetail(1, 3), 'attempt 1 of 3: ok');
    const at = new Date('2026-06-15T15:00:00Z');
    let bag = sampleBookbag();
    assert.equal(lastFailureOf(bag, 'cto'), undefined);
    bag = withAttempt(bag, 'cto', 'teacher-cto', attemptDetail(1, 3, 'no output (x)'), at);
    bag = withAttempt(
      bag,
      'coo',
      'teacher-coo',
      attemptDetail(1, 3, 'reviewer exited with code 1'),
      at,
    );
    assert.equal(lastFailureOf(bag, 'cto'), 'no output (x)');
    assert.equal(
      lastFailureOf(withAttempt(bag, 'cto', 'teacher-cto', attemptDetail(2, 3), at), 'cto'),
      undefined,
      'the last run was usable',
    );
    assert.deepEqual(couldNotCompleteFinding('reviewer timed out after 90 s'), {
      section: 'review',
      severity: 'HIGH',
      description: 'review could not be completed: reviewer timed out after 90 s',
    });
  });
});
