import assert from 'node:assert/strict';
import {
  beadText,
  lensInstructions,
  reviewPromptOf,
} from '../../../lib/review/teacher/reviewPrompt.js';
import { sampleBookbag } from '../../support/teachers.js';

describe('lib/review/teacher/reviewPrompt', () => {
  const bag = sampleBookbag({
    task: 'add the login form',
    output: 'the form\nFINDING: HIGH auth: clear text\n',
  });

  it('is the persona, a --- line, the lens instructions, then the bead', () => {
    const prompt = reviewPromptOf('I am the CTO.\n', 'cto', bag, { attempt: 1, maxAttempts: 3 });
    assert.equal(
      prompt,
      `I am the CTO.\n---\n${lensInstructions('cto', { attempt: 1, maxAttempts: 3 })}\n\n${beadText(bag, 'cto')}`,
    );
  });

  it('the lens instructions say what the lens judges and the findings document to print (both forms, the blocking rule)', () => {
    const cto = lensInstructions('cto', { attempt: 1, maxAttempts: 3 });
    const coo = lensInstructions('coo', { attempt: 1, maxAttempts: 3 });
    assert.match(cto, /^You review with the CTO lens: correctness, security and edge cases\./);
    assert.match(
      coo,
      /^You review with the COO lens: acceptance criteria, completeness and task coverage\./,
    );
    for (const text of [cto, coo]) {
      assert.match(text, /JSON: \{"verdict": "PASS", "summary": "one line", "findings": \[/);
      assert.match(text, /- \[SEVERITY\] section: description/);
      assert.match(text, /FAIL exactly when a finding is CRITICAL or HIGH/);
      assert.doesNotMatch(text, /Attempt \d/, 'no retry instruction on a first attempt');
      assert.doesNotMatch(
        text,
        /^FINDING/m,
        'never a line the scripted reviewer would take for a finding',
      );
    }
  });

  it('a retry is stricter and names why the last run could not be used', () => {
    const text = lensInstructions('coo', {
      attempt: 2,
      maxAttempts: 3,
      previousFailure: 'reviewer timed out after 90 s',
    });
    assert.match(
      text,
      /\n\nAttempt 2 of 3\. Your previous run could not be used \(reviewer timed out after 90 s\)\.\nBe strict this time: print ONLY the findings document/,
    );
  });

  it('the bead: lens, bead, task, output, files changed, verification, acceptance criteria, blockers, summary; an empty part says (none)', () => {
    assert.equal(
      beadText(bag, 'coo'),
      [
        'Lens: coo',
        'Bead: coder-general-0123abcd',
        'Student: coder',
        'Domain: general',
        'Difficulty: medium',
        'Branch: main at 0123456789',
        '',
        '## Task',
        'add the login form',
        '',
        '## Output',
        'the form',
        'FINDING: HIGH auth: clear text',
        '',
        '## Files changed',
        '- src/login.ts',
        '',
        '## Verification',
        'npm test: 12 passing',
        '',
        '## Acceptance criteria met (as the student claims)',
        '- a user can log in',
        '',
        '## Blockers',
        '(none)',
        '',
        '## Summary',
        'done',
        '',
      ].join('\n'),
    );
    assert.doesNotMatch(beadText(sampleBookbag({ branch: '', commit: '' }), 'cto'), /^Branch:/m);
  });
});
