// lib/run/evidence: lane, validation and resolution files in every format (JSON, Markdown
// front matter, FINDING lines), the severity vocabulary, mixed generations, declared counts,
// strict keys and ids, and the gaps that keep a validation from being positive and a
// resolution from being complete.
import assert from 'node:assert/strict';
import { CommandFailure } from '../../../lib/fsx/commandFailure.js';
import {
  parseLaneFile,
  parseResolutionFile,
  parseValidationFile,
  resolutionGaps,
  validationGaps,
  validIdsOf,
} from '../../../lib/run/gates/evidence.js';
import { isBlockingSeverity, severityOf } from '../../../lib/findings/severity.js';

const STRUCTURED_C2 = { lane: 'structured', cycle: 2 } as const;

/** A matcher for assert.rejects: a refusal (exit 2) of one line matching `message`. */
function refused(message: RegExp): (err: unknown) => boolean {
  return (err: unknown) => {
    assert.ok(err instanceof CommandFailure, `not a CommandFailure: ${String(err)}`);
    assert.equal(err.kind, 'refused', err.message);
    assert.equal(err.lines.length, 1);
    assert.doesNotMatch(err.lines[0]!, /\n/);
    assert.match(err.lines[0]!, message);
    return true;
  };
}

function laneJson(fields: Record<string, unknown>): string {
  return JSON.stringify({ lane: 'structured', cycle: 2, findings: [], ...fields });
}

describe('lib/run/gates/evidence', () => {
  describe('severities', () => {
    it('reads exactly Critical, Important, Minor, Nit, and maps CRITICAL, HIGH, MEDIUM, LOW', () => {
      const words: [string, string][] = [
        ['Critical', 'Critical'],
        ['Important', 'Important'],
        ['Minor', 'Minor'],
        ['Nit', 'Nit'],
        ['CRITICAL', 'Critical'],
        ['HIGH', 'Important'],
        ['MEDIUM', 'Minor'],
        ['LOW', 'Nit'],
      ];
      for (const [word, severity] of words) assert.equal(severityOf(word), severity, word);
    });

    it('refuses every other spelling', () => {
      for (const word of [
        'critical',
        'High',
        'IMPORTANT',
        'nit',
        'Major',
        ' Critical',
        '',
        'toString',
        'constructor',
      ])
        assert.equal(severityOf(word), undefined, word);
    });

    it('blocks on Critical and Important only', () => {
      assert.deepEqual(
        (['Critical', 'Important', 'Minor', 'Nit'] as const).map(isBlockingSeverity),
        [true, true, false, false],
      );
    });
  });

  describe('parseLaneFile, JSON', () => {
    it('reads findings and counts the blocking ones: HIGH is Important, Minor and Nit do not block', async () => {
      const text = laneJson({
        findings: [
          {
            id: 'F1',
            severity: 'Critical',
            title: 'data loss',
            detail: 'on crash',
            location: 'lib/x.ts:3',
          },
          { id: 'F2', severity: 'HIGH', title: 'race' },
          { id: 'F3', severity: 'Minor', title: 'naming' },
          { id: 'F4', severity: 'Nit', title: 'typo' },
          { id: 'f.5_x-y', severity: 'LOW', title: 'style' },
        ],
        blocking_findings: 2,
      });
      assert.deepEqual(await parseLaneFile(text, STRUCTURED_C2), {
        findings: [
          { id: 'F1', severity: 'Critical', title: 'data loss' },
          { id: 'F2', severity: 'Important', title: 'race' },
          { id: 'F3', severity: 'Minor', title: 'naming' },
          { id: 'F4', severity: 'Nit', title: 'typo' },
          { id: 'f.5_x-y', severity: 'Nit', title: 'style' },
        ],
        blocking: 2,
      });
    });

    it('reads a lane with no findings as zero blocking', async () => {
      assert.deepEqual(await parseLaneFile(laneJson({ blocking_findings: 0 }), STRUCTURED_C2), {
        findings: [],
        blocking: 0,
      });
      assert.deepEqual(
        await parseLaneFile(`\n  ${laneJson({ lane: 'independent' })}\n`, {
          lane: 'independent',
          cycle: 2,
        }),
        { findings: [], blocking: 0 },
      );
    });

    it('refuses mixed generations: another cycle or another lane', async () => {
      await assert.rejects(
        parseLaneFile(laneJson({ cycle: 1 }), STRUCTURED_C2),
        refused(/^mixed generations: lane file says cycle 1; this review is cycle 2$/),
      );
      await assert.rejects(
        parseLaneFile(laneJson({ lane: 'independent' }), STRUCTURED_C2),
        refused(
          /^mixed generations: lane file says lane independent; this is the structured lane$/,
        ),
      );
    });

    it('refuses a declared blocking count that differs from the findings', async () => {
      const text = laneJson({
        findings: [
          { id: 'F1', severity: 'Important', title: 't' },
          { id: 'F2', severity: 'Minor', title: 't' },
        ],
        blocking_findings: 2,
      });
      await assert.rejects(
        parseLaneFile(text, STRUCTURED_C2),
        refused(/declares blocking_findings 2 but has 1 blocking finding\(s\)$/),
      );
    });

    it('refuses unknown keys, at the top and in a finding', async () => {
      await assert.rejects(
        parseLaneFile(laneJson({ verdict: 'PASS' }), STRUCTURED_C2),
        refused(/unknown key 'verdict'/),
      );
      await assert.rejects(
        parseLaneFile(
          laneJson({ findings: [{ id: 'F1', severity: 'Nit', title: 't', blocking: false }] }),
          STRUCTURED_C2,
        ),
        refused(/findings\[0\]: unknown key 'blocking'/),
      );
    });

    it('refuses duplicate ids and ids outside [A-Za-z0-9._-]+', async () => {
      const dup = laneJson({
        findings: [
          { id: 'F1', severity: 'Nit', title: 'a' },
          { id: 'F1', severity: 'Minor', title: 'b' },
        ],
      });
      await assert.rejects(parseLaneFile(dup, STRUCTURED_C2), refused(/duplicate finding id 'F1'/));
      for (const id of ['', 'F 1', 'F/1', 'é']) {
        await assert.rejects(
          parseLaneFile(
            laneJson({ findings: [{ id, severity: 'Nit', title: 'a' }] }),
            STRUCTURED_C2,
          ),
          refused(/is not \[A-Za-z0-9._-\]\+/),
          id,
        );
      }
    });

    it('refuses a missing or mistyped field, an unknown severity, an empty title', async () => {
      const cases: [string, RegExp][] = [
        [JSON.stringify({ cycle: 2, findings: [] }), /lane is missing/],
        [JSON.stringify({ lane: 'structured', findings: [] }), /cycle is missing/],
        [JSON.stringify({ lane: 'structured', cycle: 2 }), /findings is missing/],
        [laneJson({ cycle: '2' }), /cycle is not a non-negative integer/],
        [laneJson({ cycle: 2.5 }), /cycle is not a non-negative integer/],
        [laneJson({ findings: {} }), /findings is not a list/],
        [laneJson({ findings: ['F1 Critical x'] }), /findings\[0\] is not an object/],
        [
          laneJson({ findings: [{ id: 'F1', severity: 'Huge', title: 't' }] }),
          /finding 'F1': unknown severity 'Huge'/,
        ],
        [
          laneJson({ findings: [{ id: 'F1', severity: 'Nit', title: ' ' }] }),
          /finding 'F1': title is empty/,
        ],
        [laneJson({ findings: [{ id: 'F1', severity: 'Nit' }] }), /finding 'F1': title is missing/],
        [
          laneJson({ findings: [{ id: 'F1', severity: 'Nit', title: 't', detail: 3 }] }),
          /finding 'F1': detail is not a string/,
        ],
        [laneJson({ blocking_findings: -1 }), /blocking_findings is not a non-negative integer/],
        ['{"lane": "structured",', /not JSON/],
      ];
      for (const [text, message] of cases)
        await assert.rejects(parseLaneFile(text, STRUCTURED_C2), refused(message), text);
    });
  });

  describe('parseLaneFile, text', () => {
    it('reads FINDING lines and the optional LANE, CYCLE, BLOCKING_FINDINGS lines; other lines are ignored', async () => {
      const text =
        '# Review, structured lane\nLANE: structured\nCYCLE: 2\n\nFINDING F1 Critical loses data on crash\n  FINDING F2 HIGH races   with the daemon  \nFINDING F3 Nit typo\nSome prose about FINDINGS.\nBLOCKING_FINDINGS: 2\n';
      assert.deepEqual(await parseLaneFile(text, STRUCTURED_C2), {
        findings: [
          { id: 'F1', severity: 'Critical', title: 'loses data on crash' },
          { id: 'F2', severity: 'Important', title: 'races   with the daemon' },
          { id: 'F3', severity: 'Nit', title: 'typo' },
        ],
        blocking: 2,
      });
    });

    it('reads a file of FINDING lines alone, and one that only states a clean lane', async () => {
      assert.deepEqual(
        await parseLaneFile('FINDING a MEDIUM m\r\nFINDING b LOW l\r\n', STRUCTURED_C2),
        {
          findings: [
            { id: 'a', severity: 'Minor', title: 'm' },
            { id: 'b', severity: 'Nit', title: 'l' },
          ],
          blocking: 0,
        },
      );
      assert.deepEqual(
        await parseLaneFile('CYCLE: 2\nBLOCKING_FINDINGS: 0\nNothing to report.\n', STRUCTURED_C2),
        { findings: [], blocking: 0 },
      );
    });

    it('refuses a file that states nothing: an empty review is never assumed', async () => {
      for (const text of ['', '\n\n', 'Looks good to me!\n'])
        await assert.rejects(
          parseLaneFile(text, STRUCTURED_C2),
          refused(/an empty review is never assumed/),
          JSON.stringify(text),
        );
    });

    it('refuses mixed generations from the LANE and CYCLE lines', async () => {
      await assert.rejects(
        parseLaneFile('CYCLE: 1\nFINDING F1 Nit t\n', STRUCTURED_C2),
        refused(/^mixed generations: lane file says cycle 1; this review is cycle 2$/),
      );
      await assert.rejects(
        parseLaneFile('LANE: independent\nFINDING F1 Nit t\n', STRUCTURED_C2),
        refused(
          /^mixed generations: lane file says lane independent; this is the structured lane$/,
        ),
      );
    });

    it('refuses a declared BLOCKING_FINDINGS that differs from the findings', async () => {
      await assert.rejects(
        parseLaneFile(
          'FINDING F1 Critical a\nFINDING F2 Minor b\nBLOCKING_FINDINGS: 2\n',
          STRUCTURED_C2,
        ),
        refused(/declares BLOCKING_FINDINGS 2 but has 1 blocking finding\(s\)$/),
      );
    });

    it('refuses a malformed FINDING line (never skips it), a bad severity, a duplicate id, a header twice or not a number', async () => {
      const cases: [string, RegExp][] = [
        ['FINDING F1 Critical\n', /malformed line 'FINDING F1 Critical'/],
        ['FINDING\n', /malformed line 'FINDING'/],
        ['FINDING F1 Severe broken\n', /unknown severity 'Severe'/],
        ['FINDING F1 critical broken\n', /unknown severity 'critical'/],
        ['FINDING F1 Nit a\nFINDING F1 Nit b\n', /duplicate finding id 'F1'/],
        ['FINDING F/1 Nit a\n', /finding id 'F\/1'/],
        ['CYCLE: 2\nCYCLE: 2\nFINDING F1 Nit a\n', /CYCLE is stated twice/],
        ['CYCLE: two\nFINDING F1 Nit a\n', /CYCLE 'two' is not a non-negative integer/],
        ['BLOCKING_FINDINGS: -1\n', /BLOCKING_FINDINGS '-1' is not a non-negative integer/],
      ];
      for (const [text, message] of cases)
        await assert.rejects(parseLaneFile(text, STRUCTURED_C2), refused(message), text);
    });
  });

  describe('parseLaneFile, Markdown with front matter', () => {
    const markdown = (front: string, body = '# Review\nProse.\n') => `---\n${front}---\n${body}`;

    it('reads the same fields from YAML (values as strings: cycle, ids like 00)', async () => {
      const text = markdown(
        'lane: structured\ncycle: 2\nblocking_findings: 1\nfindings:\n  - id: "00"\n    severity: HIGH\n    title: race\n    location: lib/x.ts\n  - id: F2\n    severity: Nit\n    title: typo\n',
      );
      assert.deepEqual(await parseLaneFile(text, STRUCTURED_C2), {
        findings: [
          { id: '00', severity: 'Important', title: 'race' },
          { id: 'F2', severity: 'Nit', title: 'typo' },
        ],
        blocking: 1,
      });
      assert.deepEqual(
        await parseLaneFile(markdown('lane: structured\ncycle: 2\nfindings: []\n'), STRUCTURED_C2),
        { findings: [], blocking: 0 },
      );
    });

    it('refuses mixed generations, a count mismatch, unknown keys, duplicate ids', async () => {
      const finding = 'findings:\n  - id: F1\n    severity: Minor\n    title: t\n';
      await assert.rejects(
        parseLaneFile(markdown(`lane: structured\ncycle: 1\n${finding}`), STRUCTURED_C2),
        refused(/mixed generations: lane file says cycle 1; this review is cycle 2/),
      );
      await assert.rejects(
        parseLaneFile(markdown(`lane: independent\ncycle: 2\n${finding}`), STRUCTURED_C2),
        refused(/mixed generations: lane file says lane independent/),
      );
      await assert.rejects(
        parseLaneFile(
          markdown(`lane: structured\ncycle: 2\nblocking_findings: 1\n${finding}`),
          STRUCTURED_C2,
        ),
        refused(/declares blocking_findings 1 but has 0 blocking finding\(s\)/),
      );
      await assert.rejects(
        parseLaneFile(
          markdown(`lane: structured\ncycle: 2\nsummary: ok\n${finding}`),
          STRUCTURED_C2,
        ),
        refused(/unknown key 'summary'/),
      );
      await assert.rejects(
        parseLaneFile(
          markdown(
            `lane: structured\ncycle: 2\n${finding}  - id: F1\n    severity: Nit\n    title: u\n`,
          ),
          STRUCTURED_C2,
        ),
        refused(/duplicate finding id 'F1'/),
      );
    });

    it('refuses FINDING lines after the front matter rather than ignore them', async () => {
      await assert.rejects(
        parseLaneFile(
          markdown('lane: structured\ncycle: 2\nfindings: []\n', 'FINDING F1 Critical hidden\n'),
          STRUCTURED_C2,
        ),
        refused(/FINDING lines after the front matter/),
      );
    });

    it('refuses unreadable YAML, a missing findings list, and front matter in another language (never run)', async () => {
      await assert.rejects(
        parseLaneFile(markdown('lane: [structured\n'), STRUCTURED_C2),
        refused(/unreadable front matter/),
      );
      await assert.rejects(
        parseLaneFile(markdown('lane: structured\ncycle: 2\nfindings:\n'), STRUCTURED_C2),
        refused(/findings is not a list/),
      );
      const probe = globalThis as { batonEvidenceProbe?: string };
      await assert.rejects(
        parseLaneFile(
          '---js\n{ lane: (globalThis.batonEvidenceProbe = "ran", "structured") }\n---\n',
          STRUCTURED_C2,
        ),
        refused(/only YAML/),
      );
      assert.equal(probe.batonEvidenceProbe, undefined);
    });
  });

  describe('parseValidationFile', () => {
    const json = {
      cycle: 2,
      findings: [
        { id: 'F1', valid: true, reason: 'reproduced' },
        { id: 'F2', valid: false, reason: 'intended' },
      ],
    };

    it('reads JSON and front matter (true/false strings) alike', async () => {
      assert.deepEqual(await parseValidationFile(JSON.stringify(json), 2), json);
      const text =
        '---\ncycle: 2\nfindings:\n  - id: F1\n    valid: true\n    reason: reproduced\n  - id: F2\n    valid: false\n    reason: intended\n---\nNotes.\n';
      assert.deepEqual(await parseValidationFile(text, 2), json);
    });

    it('refuses another cycle, unknown keys, duplicate ids, a valid that is not a boolean, text', async () => {
      await assert.rejects(
        parseValidationFile(JSON.stringify({ ...json, cycle: 1 }), 2),
        refused(/^mixed generations: validation file says cycle 1; this review is cycle 2$/),
      );
      await assert.rejects(
        parseValidationFile(JSON.stringify({ ...json, verdict: 'ok' }), 2),
        refused(/unknown key 'verdict'/),
      );
      await assert.rejects(
        parseValidationFile(
          JSON.stringify({
            cycle: 2,
            findings: [{ id: 'F1', valid: true, reason: 'r', severity: 'Nit' }],
          }),
          2,
        ),
        refused(/unknown key 'severity'/),
      );
      await assert.rejects(
        parseValidationFile(
          JSON.stringify({ cycle: 2, findings: [json.findings[0], json.findings[0]] }),
          2,
        ),
        refused(/duplicate finding id 'F1'/),
      );
      await assert.rejects(
        parseValidationFile(
          JSON.stringify({ cycle: 2, findings: [{ id: 'F1', valid: 'true', reason: 'r' }] }),
          2,
        ),
        refused(/finding 'F1': valid is not true or false/),
      );
      await assert.rejects(
        parseValidationFile(
          '---\ncycle: 2\nfindings:\n  - id: F1\n    valid: yes\n    reason: r\n---\n',
          2,
        ),
        refused(/valid is not true or false/),
      );
      await assert.rejects(
        parseValidationFile(JSON.stringify({ cycle: 2, findings: [{ id: 'F1', valid: true }] }), 2),
        refused(/finding 'F1': reason is missing/),
      );
      await assert.rejects(
        parseValidationFile('F1 valid: reproduced\n', 2),
        refused(/neither JSON nor Markdown with YAML front matter/),
      );
    });
  });

  describe('parseResolutionFile', () => {
    const json = {
      cycle: 3,
      resolved: [{ id: 'F1', change: 'fsync the folder', tests: 'test/x.test.ts' }],
    };

    it('reads JSON and front matter alike', async () => {
      assert.deepEqual(await parseResolutionFile(JSON.stringify(json), 3), json);
      assert.deepEqual(
        await parseResolutionFile(
          '---\ncycle: 3\nresolved:\n  - id: F1\n    change: fsync the folder\n    tests: test/x.test.ts\n---\n',
          3,
        ),
        json,
      );
    });

    it('refuses another cycle, unknown keys, duplicate ids, missing fields', async () => {
      await assert.rejects(
        parseResolutionFile(JSON.stringify(json), 2),
        refused(/^mixed generations: resolution file says cycle 3; this review is cycle 2$/),
      );
      await assert.rejects(
        parseResolutionFile(JSON.stringify({ ...json, findings: [] }), 3),
        refused(/unknown key 'findings'/),
      );
      await assert.rejects(
        parseResolutionFile(
          JSON.stringify({ cycle: 3, resolved: [json.resolved[0], json.resolved[0]] }),
          3,
        ),
        refused(/duplicate finding id 'F1'/),
      );
      await assert.rejects(
        parseResolutionFile(JSON.stringify({ cycle: 3, resolved: [{ id: 'F1', change: 'c' }] }), 3),
        refused(/finding 'F1': tests is missing/),
      );
      await assert.rejects(
        parseResolutionFile(JSON.stringify({ cycle: 3 }), 3),
        refused(/resolved is missing/),
      );
    });
  });

  describe('gaps', () => {
    it('a validation is positive when it covers every blocking finding, each with a reason', () => {
      const validation = {
        cycle: 2,
        findings: [
          { id: 'F1', valid: true, reason: 'reproduced' },
          { id: 'F2', valid: false, reason: 'intended' },
          { id: 'F9', valid: true, reason: '' },
        ],
      };
      assert.deepEqual(validationGaps(validation, ['F1', 'F2']), []);
      assert.deepEqual(validationGaps(validation, []), []);
      assert.deepEqual(validationGaps(validation, ['F1', 'F3', 'F9']), [
        "blocking finding 'F3' is not validated",
        "blocking finding 'F9' is validated without a reason",
      ]);
      assert.deepEqual(
        validationGaps({ cycle: 2, findings: [{ id: 'F1', valid: false, reason: '  ' }] }, ['F1']),
        ["blocking finding 'F1' is validated without a reason"],
      );
    });

    it('a resolution is complete when it covers every finding validated as valid', () => {
      const validation = {
        cycle: 2,
        findings: [
          { id: 'F1', valid: true, reason: 'r' },
          { id: 'F2', valid: false, reason: 'r' },
          { id: 'F3', valid: true, reason: 'r' },
        ],
      };
      assert.deepEqual(validIdsOf(validation), ['F1', 'F3']);
      const resolution = {
        cycle: 2,
        resolved: [
          { id: 'F1', change: 'fixed', tests: 't' },
          { id: 'F3', change: '', tests: 't' },
        ],
      };
      assert.deepEqual(resolutionGaps(resolution, ['F1']), []);
      assert.deepEqual(resolutionGaps(resolution, validIdsOf(validation)), [
        "valid finding 'F3' is resolved without a change",
      ]);
      assert.deepEqual(resolutionGaps({ cycle: 2, resolved: [] }, ['F1']), [
        "valid finding 'F1' is not resolved",
      ]);
    });
  });
});
