// lib/handoff/reviewers: reviewers.tsv (`<lens>\t<role>` per conf `review` line) written
// from the conf by init, parsed back with odd lines ignored, and read as empty when absent.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { reviewersPathOf } from '../../lib/project/layout.js';
import { formatReviewers, parseReviewers, readReviewers } from '../../lib/handoff/reviewers.js';
import { makeReviewProject } from '../support/bookbags.js';
import { makeProject, withProject } from '../support/project.js';

describe('lib/handoff/reviewers', () => {
  it("formats one TAB-separated line per lens, in the conf's order", () => {
    assert.equal(
      formatReviewers([
        { line: 4, lens: 'coo', role: 'QA' },
        { line: 5, lens: 'cto', role: 'rev-cto' },
      ]),
      'coo\tQA\ncto\trev-cto\n',
    );
    assert.equal(formatReviewers([]), '');
  });

  it('parses what it formats', () => {
    assert.deepEqual(
      parseReviewers(
        formatReviewers([
          { line: 1, lens: 'cto', role: 'a' },
          { line: 2, lens: 'coo', role: 'b' },
        ]),
      ),
      { cto: 'a', coo: 'b' },
    );
  });

  it('ignores odd lines: other lenses, missing roles, blank lines; accepts CRLF', () => {
    assert.deepEqual(parseReviewers('ceo\tboss\ncto\t\ncto\nCOO\tx\n\ncoo\trev-coo\r\n'), {
      coo: 'rev-coo',
    });
  });

  it("reads ROOT/.swarmforge/reviewers.tsv as written by init from the conf's review lines", async () => {
    await withProject(makeReviewProject(), (p) => {
      assert.equal(
        fs.readFileSync(reviewersPathOf(p.root), 'utf8'),
        'cto\trev-cto\ncoo\trev-coo\n',
      );
      assert.deepEqual(readReviewers(p.root), { cto: 'rev-cto', coo: 'rev-coo' });
    });
  });

  it('reads no reviewers when the conf has no review line (no reviewers.tsv)', async () => {
    await withProject(makeProject(), (p) => {
      assert.equal(fs.existsSync(reviewersPathOf(p.root)), false);
      assert.deepEqual(readReviewers(p.root), {});
    });
  });
});
