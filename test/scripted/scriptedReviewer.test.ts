import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { CommandFailure } from '../../lib/fsx/commandFailure.js';
import { parseFindingsDocument } from '../../lib/review/bookbag/findings.js';
import {
  findingsDocumentText,
  promptLens,
  runScriptedReviewer,
  scriptedFindings,
  scriptedReviewerSettings,
  SCRIPTED_REVIEWER_USAGE,
} from '../../lib/scripted/scriptedReviewer.js';
import { tempDir } from '../support/project.js';

describe('lib/scripted/scriptedReviewer', () => {
  const prompt = (lens: string, bead: string) =>
    `persona\n---\ninstructions\n\nLens: ${lens}\nBead: ${bead}\n\n## Output\nthe form\nFINDING: HIGH auth: passwords stored in clear\nFINDING(cto): LOW style: a long line\nFINDING(coo): MEDIUM docs: no README entry\n`;
  const run = async (argv: string[], input: string, env: NodeJS.ProcessEnv = {}) => {
    let out = '';
    await runScriptedReviewer(argv, env, Readable.from([Buffer.from(input)]), (t) => (out += t));
    return out;
  };

  it('parses its flags; refuses unknown ones and bad values with its usage (exit 1)', () => {
    assert.deepEqual(scriptedReviewerSettings([]), {
      format: 'json',
      delayMs: 0,
      hang: false,
      crash: false,
      garbage: 0,
    });
    assert.deepEqual(
      scriptedReviewerSettings([
        '--format',
        'markdown',
        '--declare',
        'PASS',
        '--delay-ms',
        '20',
        '--hang',
        '--crash',
        '--garbage',
        '2',
        '--counter',
        'c',
        '--record',
        'r',
      ]),
      {
        format: 'markdown',
        declare: 'PASS',
        delayMs: 20,
        hang: true,
        crash: true,
        garbage: 2,
        counter: 'c',
        record: 'r',
      },
    );
    for (const bad of [
      ['--loud'],
      ['--format', 'yaml'],
      ['--declare', 'MAYBE'],
      ['--garbage', '-1', '--counter', 'c'],
      ['--garbage', '2'],
      ['--record'],
    ]) {
      assert.throws(
        () => scriptedReviewerSettings(bad),
        (err: unknown) =>
          err instanceof CommandFailure &&
          err.kind === 'usage' &&
          err.lines.at(-1) === SCRIPTED_REVIEWER_USAGE,
        bad.join(' '),
      );
    }
  });

  it("takes each FINDING line of the prompt as a finding, a lens-qualified one only for the prompt's lens", () => {
    assert.equal(promptLens(prompt('cto', 'b')), 'cto');
    assert.deepEqual(scriptedFindings(prompt('cto', 'b')), [
      { severity: 'HIGH', section: 'auth', description: 'passwords stored in clear' },
      { severity: 'LOW', section: 'style', description: 'a long line' },
    ]);
    assert.deepEqual(
      scriptedFindings(prompt('coo', 'b')).map((f) => f.section),
      ['auth', 'docs'],
    );
    assert.deepEqual(scriptedFindings('Lens: cto\nno findings here\n - FINDING: HIGH x\n'), []);
  });

  it('prints a findings document the teacher parses, in either form, with the declared verdict when asked', async () => {
    const findings = scriptedFindings(prompt('coo', 'b'));
    assert.deepEqual(
      await parseFindingsDocument(findingsDocumentText(findings, { format: 'json' }, 'b')),
      {
        verdict: undefined,
        summary: 'scripted review of b: 2 finding(s)',
        findings: [
          { severity: 'HIGH', section: 'auth', description: 'passwords stored in clear' },
          { severity: 'MEDIUM', section: 'docs', description: 'no README entry' },
        ],
      },
    );
    assert.deepEqual(
      await parseFindingsDocument(
        findingsDocumentText(findings, { format: 'markdown', declare: 'PASS' }, 'b'),
      ),
      {
        verdict: 'PASS',
        summary: 'scripted review of b: 2 finding(s)',
        findings: [
          { severity: 'HIGH', section: 'auth', description: 'passwords stored in clear' },
          { severity: 'MEDIUM', section: 'docs', description: 'no README entry' },
        ],
      },
    );
    assert.deepEqual(
      (await parseFindingsDocument(findingsDocumentText([], { format: 'markdown' }))).findings,
      [],
    );
  });

  it('runs: answers --help and --version without reading stdin; reviews the prompt; records each run; garbage for the first N runs only', async () => {
    assert.equal(await run(['--help'], ''), `${SCRIPTED_REVIEWER_USAGE}\n`);
    assert.match(await run(['--version'], ''), /^\d+\.\d+\.\d+\n$/);
    const dir = tempDir();
    try {
      const record = join(dir, 'runs.jsonl');
      const counter = join(dir, 'count');
      const args = ['--garbage', '1', '--counter', counter, '--record', record];
      assert.equal(
        await run(args, prompt('cto', 'bead-1'), { BATON_REVIEW_ATTEMPT: '1' }),
        'garbage: this is not a findings document\n',
      );
      assert.equal(
        await run(args, `Attempt 2 of 3. retry\n${prompt('cto', 'bead-1')}`, {
          BATON_REVIEW_ATTEMPT: '2',
        }),
        findingsDocumentText(
          scriptedFindings(prompt('cto', 'bead-1')),
          { format: 'json' },
          'bead-1',
        ),
      );
      const lines = fs
        .readFileSync(record, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      assert.deepEqual(
        lines.map((l) => [l.pid, l.lens, l.bead, l.attempt, l.strict, l.helpers]),
        [
          [process.pid, 'cto', 'bead-1', 1, false, []],
          [process.pid, 'cto', 'bead-1', 2, true, []],
        ],
      );
      assert.equal(lines[0]!.started_at, performance.timeOrigin);
      assert.equal(fs.readFileSync(counter, 'utf8'), '2\n');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('--crash prints half a document, then fails (exit 1 through the failure table)', async () => {
    let out = '';
    await assert.rejects(
      runScriptedReviewer(
        ['--crash'],
        {},
        Readable.from([Buffer.from('Lens: cto\n')]),
        (t) => (out += t),
      ),
      (err: unknown) =>
        err instanceof CommandFailure &&
        err.kind === 'environment' &&
        err.lines[0] === 'baton-scripted-reviewer: crashing as asked (--crash)',
    );
    assert.equal(out, '{"findings": [');
  });
});
