// lib/review/findings: severities of both vocabularies in any case (stored as
// CRITICAL|HIGH|MEDIUM|LOW), `SEVERITY:SECTION:DESCRIPTION` arguments, and findings
// documents in JSON and in Markdown with front matter; every malformed input is a
// FindingsError that names what is wrong.
import assert from 'node:assert/strict';
import {
  isBlocking,
  parseFindingArg,
  parseFindingsDocument,
  severityOf,
} from '../../../lib/review/bookbag/findings.js';
import { FindingsError } from '../../../lib/review/bookbag/reviewErrors.js';
import { finding } from '../../support/bookbags.js';

/** Matches a FindingsError whose message matches `pattern`. */
function findingsError(pattern: RegExp) {
  return (err: unknown) => {
    assert.ok(err instanceof FindingsError, `expected a FindingsError, got ${String(err)}`);
    assert.match(err.message, pattern);
    return true;
  };
}

describe('lib/review/findings', () => {
  describe('severityOf', () => {
    it('maps both vocabularies, in any case and with spaces around, to the stored one', () => {
      const cases: [string, string][] = [
        ['CRITICAL', 'CRITICAL'],
        ['high', 'HIGH'],
        ['Medium', 'MEDIUM'],
        ['lOw', 'LOW'],
        ['Critical', 'CRITICAL'],
        ['IMPORTANT', 'HIGH'],
        ['minor', 'MEDIUM'],
        [' Nit ', 'LOW'],
      ];
      assert.deepEqual(
        cases.map(([word]) => severityOf(word)),
        cases.map(([, stored]) => stored),
      );
    });

    it('knows no other word, including the names of Object.prototype', () => {
      for (const word of [
        '',
        'blocker',
        'severe',
        'info',
        'constructor',
        'toString',
        '__proto__',
        'hasOwnProperty',
        'valueOf',
      ]) {
        assert.equal(severityOf(word), undefined, word);
      }
    });
  });

  it('isBlocking: CRITICAL and HIGH block, MEDIUM and LOW do not', () => {
    assert.deepEqual(
      (['CRITICAL', 'HIGH', 'MEDIUM', 'LOW'] as const).map((s) => isBlocking(finding(s))),
      [true, true, false, false],
    );
  });

  describe('parseFindingArg', () => {
    it('splits at the first two colons, so the description keeps its own, and trims the parts', () => {
      assert.deepEqual(parseFindingArg('Important: security :token leaks: see log at 10:32 '), {
        severity: 'HIGH',
        section: 'security',
        description: 'token leaks: see log at 10:32',
      });
      assert.deepEqual(parseFindingArg('nit:style:name'), {
        severity: 'LOW',
        section: 'style',
        description: 'name',
      });
    });

    it('refuses an argument that is not SEVERITY:SECTION:DESCRIPTION, naming it', () => {
      for (const arg of ['HIGH', 'HIGH:security', 'HIGH security token']) {
        assert.throws(
          () => parseFindingArg(arg),
          findingsError(/is not SEVERITY:SECTION:DESCRIPTION/),
          arg,
        );
      }
    });

    it('refuses an empty description', () => {
      for (const arg of ['HIGH:security:', 'HIGH:security:   '])
        assert.throws(() => parseFindingArg(arg), findingsError(/has no description/), arg);
    });

    it('refuses an unknown severity, naming it and both vocabularies', () => {
      for (const word of ['BLOCKER', 'constructor', '__proto__']) {
        assert.throws(
          () => parseFindingArg(`${word}:security:token leaks`),
          findingsError(new RegExp(`unknown severity '${word}'.*CRITICAL.*Nit`)),
          word,
        );
      }
    });
  });

  describe('parseFindingsDocument: JSON', () => {
    it('reads the verdict (any case), the summary and each finding with its optional fields', async () => {
      const doc = await parseFindingsDocument(
        JSON.stringify({
          verdict: 'fail',
          summary: 'one leak',
          findings: [
            {
              severity: 'Important',
              section: 'auth',
              description: 'token: leaked',
              citation: 'lib/a.ts:3',
              suggestion: 'redact',
              id: 'F1',
            },
            { severity: 'low', description: 'naming' },
          ],
        }),
      );
      assert.deepEqual(doc, {
        verdict: 'FAIL',
        summary: 'one leak',
        findings: [
          {
            severity: 'HIGH',
            section: 'auth',
            description: 'token: leaked',
            citation: 'lib/a.ts:3',
            suggestion: 'redact',
            id: 'F1',
          },
          { severity: 'LOW', section: '', description: 'naming' },
        ],
      });
    });

    it('leaves the verdict and summary undefined when absent, empty or null', async () => {
      for (const extra of [{}, { verdict: '' }, { verdict: null }]) {
        assert.deepEqual(await parseFindingsDocument(JSON.stringify({ ...extra, findings: [] })), {
          verdict: undefined,
          findings: [],
          summary: undefined,
        });
      }
    });

    const refused: [string, unknown, RegExp][] = [
      ['an unknown top-level field', { findings: [], score: 90 }, /unknown field score/],
      [
        'an unknown field of a finding',
        { findings: [{ severity: 'LOW', description: 'd', lens: 'cto' }] },
        /findings\[0\] has unknown field lens/,
      ],
      ['missing findings', { verdict: 'PASS' }, /findings is not a list/],
      ['findings that are an object', { findings: {} }, /findings is not a list/],
      [
        'a summary that is not a string',
        { findings: [], summary: ['a'] },
        /summary is not a string/,
      ],
      [
        'a verdict that is not PASS or FAIL',
        { verdict: 'MAYBE', findings: [] },
        /verdict 'MAYBE' is not PASS or FAIL/,
      ],
      [
        'a verdict that is not a string',
        { verdict: ['PASS'], findings: [] },
        /verdict is not a string/,
      ],
      [
        'a finding that is not an object',
        { findings: ['HIGH:a:b'] },
        /findings\[0\] is not an object/,
      ],
      [
        'a finding field that is not a string',
        { findings: [{ severity: 'LOW', description: 'd', section: 3 }] },
        /findings\[0\]\.section is not a string/,
      ],
      [
        'a finding without a severity',
        { findings: [{ description: 'd' }] },
        /findings\[0\] needs a severity and a description/,
      ],
      [
        'a finding with a blank description',
        { findings: [{ severity: 'LOW', description: '  ' }] },
        /findings\[0\] needs a severity and a description/,
      ],
      [
        'a finding with an unknown severity',
        { findings: [{ severity: 'fatal', description: 'd' }] },
        /unknown severity 'fatal'/,
      ],
    ];
    for (const [what, data, pattern] of refused) {
      it(`refuses ${what}`, async () => {
        await assert.rejects(parseFindingsDocument(JSON.stringify(data)), findingsError(pattern));
      });
    }

    it('refuses text that is not JSON', async () => {
      await assert.rejects(
        parseFindingsDocument('{"findings": ['),
        findingsError(/^not valid JSON: /),
      );
    });
  });

  describe('parseFindingsDocument: Markdown', () => {
    it('reads the front matter and one finding per `- [SEVERITY] section: description` item (-, * or +)', async () => {
      const doc = await parseFindingsDocument(
        [
          '---',
          'verdict: Fail',
          'summary: two problems',
          '---',
          '# Review',
          '',
          'Prose around the list is fine.',
          '',
          '- [Critical] auth: token: leaked at 10:32',
          '  * [minor]  docs :  typo ',
          '+ [NIT] naming: x',
          '',
        ].join('\n'),
      );
      assert.deepEqual(doc, {
        verdict: 'FAIL',
        summary: 'two problems',
        findings: [
          { severity: 'CRITICAL', section: 'auth', description: 'token: leaked at 10:32' },
          { severity: 'MEDIUM', section: 'docs', description: 'typo' },
          { severity: 'LOW', section: 'naming', description: 'x' },
        ],
      });
    });

    it('reads an empty front matter block as no verdict and no summary', async () => {
      assert.deepEqual(await parseFindingsDocument('---\n---\n- [HIGH] auth: leak\n'), {
        verdict: undefined,
        summary: undefined,
        findings: [{ severity: 'HIGH', section: 'auth', description: 'leak' }],
      });
    });

    it('keeps a summary that YAML would type as the string written', async () => {
      assert.equal((await parseFindingsDocument('---\nsummary: 00\n---\n')).summary, '00');
    });

    const refused: [string, string, RegExp][] = [
      ['a document without front matter', '# Review\n- [HIGH] auth: leak\n', /no front matter/],
      ['unreadable front matter', '---\nsummary: [open\n---\n', /^unreadable front matter: /],
      ['front matter that is not a mapping', '---\n- PASS\n---\n', /^unreadable front matter: /],
      [
        'front matter in JavaScript',
        '---js\n{ verdict: "PASS" }\n---\n',
        /^unreadable front matter: .*only YAML/,
      ],
      [
        'an unknown front matter field',
        '---\nverdict: PASS\nscore: 90\n---\n',
        /unknown front matter field score/,
      ],
      [
        'a summary that is not a string',
        '---\nsummary:\n  text: a\n---\n',
        /summary is not a string/,
      ],
      [
        'a verdict that is not PASS or FAIL',
        '---\nverdict: OK\n---\n',
        /verdict 'OK' is not PASS or FAIL/,
      ],
      ['a verdict that is not a string', '---\nverdict: [PASS]\n---\n', /verdict is not a string/],
      [
        'an item without a colon',
        '---\nverdict: FAIL\n---\n- [HIGH] auth leak\n',
        /list item '- \[HIGH\] auth leak' is not '- \[SEVERITY\] section: description'/,
      ],
      [
        'an item without a description',
        '---\nverdict: FAIL\n---\n- [HIGH] auth:  \n',
        /list item '- \[HIGH\] auth:' is not/,
      ],
      [
        'an item with an unknown severity',
        '---\nsummary: s\n---\n- [SEVERE] auth: leak\n',
        /unknown severity 'SEVERE'/,
      ],
      [
        'a list item that is not a finding',
        '---\nverdict: PASS\n---\n- HIGH auth: leak\n',
        /list item '- HIGH auth: leak' is not '- \[SEVERITY\] section: description'/,
      ],
    ];
    for (const [what, text, pattern] of refused) {
      it(`refuses ${what}`, async () => {
        await assert.rejects(parseFindingsDocument(text), findingsError(pattern));
      });
    }
  });

  describe('parseFindingsDocument', () => {
    it('reads JSON when the text starts with {, after white space', async () => {
      assert.deepEqual(
        await parseFindingsDocument(
          '\n  {"findings": [{"severity": "nit", "section": "s", "description": "d"}]}',
        ),
        {
          verdict: undefined,
          summary: undefined,
          findings: [{ severity: 'LOW', section: 's', description: 'd' }],
        },
      );
    });

    it('reads Markdown otherwise', async () => {
      assert.deepEqual(await parseFindingsDocument('---\nverdict: PASS\n---\n- [LOW] s: d\n'), {
        verdict: 'PASS',
        summary: undefined,
        findings: [{ severity: 'LOW', section: 's', description: 'd' }],
      });
    });

    it('refuses malformed text of either kind with a FindingsError', async () => {
      await assert.rejects(parseFindingsDocument('{ not json'), findingsError(/not valid JSON/));
      await assert.rejects(parseFindingsDocument('just prose'), findingsError(/no front matter/));
    });
  });
});
