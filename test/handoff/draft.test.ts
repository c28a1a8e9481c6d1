import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import {
  DRAFT_FIELDS,
  invalidDraftLines,
  validateDraft,
  type CommitLookup,
  type DraftResult,
} from '../../lib/handoff/draft.js';
import { SWARM_HANDOFF_USAGE } from '../../lib/handoff/usage.js';
import { fixtureLines, fixtureLinesIfAny, fixturePath, fixtureText } from '../support/fixtures.js';

const KNOWN = new Set(['coder', 'reviewer', 'QA']);
const COMMIT = 'abcdef0123';

/** A stub CommitLookup answering from `answers` (no match otherwise); records every prefix asked. */
function stubLookup(
  answers: Record<string, { matches: number; type?: string }> = {
    [COMMIT]: { matches: 1, type: 'commit' },
  },
) {
  const asked: string[] = [];
  const lookup: CommitLookup = async (prefix) => {
    asked.push(prefix);
    return answers[prefix] ?? { matches: 0 };
  };
  return { lookup, asked };
}

async function validate(
  text: string,
  lookup: CommitLookup = stubLookup().lookup,
): Promise<DraftResult> {
  return validateDraft(text, KNOWN, lookup);
}

async function errorsOf(text: string, lookup?: CommitLookup): Promise<string[]> {
  const result = await validate(text, lookup);
  assert.equal(result.ok, false, `expected errors for ${JSON.stringify(text)}`);
  return result.ok ? [] : result.errors;
}

const note = (extra = '', message = 'hello') =>
  `type: note\nto: reviewer\npriority: 50\nmessage: ${message}\n${extra}`;
const gitHandoff = (extra = '', task = 'task-1', commit = COMMIT) =>
  `type: git_handoff\nto: reviewer\npriority: 50\ntask: ${task}\ncommit: ${commit}\n${extra}`;

describe('lib/handoff/draft', () => {
  it('allows exactly the agent fields of protocol §5', () => {
    assert.deepEqual([...DRAFT_FIELDS], ['type', 'to', 'priority', 'task', 'commit', 'message']);
  });

  describe('valid drafts', () => {
    it('a note: type, recipients in order, priority and message', async () => {
      const result = await validate(
        'type: note\nto: reviewer,QA,coder\npriority: 70\nmessage: Waiting on QA result before merging.\n',
      );
      assert.deepEqual(result, {
        ok: true,
        draft: {
          type: 'note',
          to: ['reviewer', 'QA', 'coder'],
          priority: '70',
          message: 'Waiting on QA result before merging.',
        },
      });
    });

    it('a git_handoff: the commit is looked up and stored lowercase', async () => {
      const stub = stubLookup();
      const result = await validate(gitHandoff('', 'task-1-cave-setup', 'ABCDEF0123'), stub.lookup);
      assert.deepEqual(result, {
        ok: true,
        draft: {
          type: 'git_handoff',
          to: ['reviewer'],
          priority: '50',
          task: 'task-1-cave-setup',
          commit: COMMIT,
        },
      });
      assert.deepEqual(stub.asked, [COMMIT]);
    });

    it('priorities 00 and 99 are valid and stay strings', async () => {
      for (const p of ['00', '99', '07']) {
        const result = await validate(`type: note\nto: QA\npriority: ${p}\nmessage: m\n`);
        assert.ok(result.ok);
        assert.equal(result.draft.priority, p);
      }
    });

    it('trims field names, values and each recipient', async () => {
      const result = await validate(
        '  type :   note  \nto:  reviewer ,  QA \t\npriority:  05 \nmessage:   spaced   out   \n',
      );
      assert.deepEqual(result, {
        ok: true,
        draft: { type: 'note', to: ['reviewer', 'QA'], priority: '05', message: 'spaced   out' },
      });
    });

    it('accepts CRLF line ends', async () => {
      const result = await validate('type: note\r\nto: QA\r\npriority: 10\r\nmessage: m\r\n');
      assert.deepEqual(result, {
        ok: true,
        draft: { type: 'note', to: ['QA'], priority: '10', message: 'm' },
      });
    });

    it('tolerates a --- line as the first and/or the last non-blank line, and blank lines around them', async () => {
      for (const text of [
        `---\n${note()}---\n`,
        `---\n${note()}`,
        `${note()}---\n`,
        `\n\n---\n${note()}---\n\n\n`,
        `\r\n---\r\n${note().replace(/\n/g, '\r\n')}---\r\n\r\n`,
        `  ---  \n${note()}`,
      ]) {
        const result = await validate(text);
        assert.ok(result.ok, `${JSON.stringify(text)}: ${JSON.stringify(result)}`);
        assert.equal(result.draft.message, 'hello');
      }
    });

    it('counts lengths in code points: 80 emoji are fine for task and message', async () => {
      const eighty = '😀'.repeat(80);
      const n = await validate(note('', eighty));
      assert.ok(n.ok);
      assert.equal(n.draft.message, eighty);
      const g = await validate(gitHandoff('', eighty));
      assert.ok(g.ok);
      assert.equal(g.draft.task, eighty);
    });

    it('the CRLF, fenced and padded draft fixture: values and recipients trimmed', async () => {
      const result = await validate(fixtureText('drafts', 'valid', 'crlf-fences-padded.txt'));
      assert.deepEqual(result, {
        ok: true,
        draft: { type: 'note', to: ['reviewer', 'QA'], priority: '07', message: 'spaced out' },
      });
    });

    it('a value may contain ": " after the first one', async () => {
      const result = await validate(note('', 'a: b: c'));
      assert.ok(result.ok);
      assert.equal(result.draft.message, 'a: b: c');
    });
  });

  describe('Line N: errors', () => {
    it('are reported in line order, whatever their kind, before every other error', async () => {
      const text = [
        'color: red', //                     1 unknown
        'from: coder', //                    2 reserved
        'junk', //                           3 not field: value
        'type: note', //                     4
        'message:   ', //                    5 empty value
        'to: QA', //                         6
        'type: note', //                     7 duplicate
        ':  value', //                       8 empty name
        'priority: 50', //                   9
        'to:no-space', //                   10 not field: value
      ].join('\n');
      assert.deepEqual(await errorsOf(text), [
        "Line 1: unknown header 'color'.",
        "Line 2: header 'from' is reserved and must not be written by agents.",
        "Line 3: expected 'field: value'.",
        'Line 5: field and value must both be non-empty.',
        "Line 7: duplicate header 'type'.",
        'Line 8: field and value must both be non-empty.',
        "Line 10: expected 'field: value'.",
        "Missing required header 'message' for note.",
      ]);
    });

    it('every reserved header is refused by name', async () => {
      const reserved = [
        'id',
        'from',
        'role',
        'recipient',
        'created_at',
        'enqueued_at',
        'dequeued_at',
        'completed_at',
      ];
      const errors = await errorsOf(`${note()}${reserved.map((r) => `${r}: x`).join('\n')}\n`);
      assert.deepEqual(
        errors,
        reserved.map(
          (r, i) => `Line ${5 + i}: header '${r}' is reserved and must not be written by agents.`,
        ),
      );
    });

    it('field names are case-sensitive', async () => {
      assert.deepEqual(await errorsOf('Type: note\nto: QA\npriority: 50\nmessage: m\n'), [
        "Line 1: unknown header 'Type'.",
        "Missing required header 'type'.",
        "Header 'message' is only allowed for note.",
      ]);
    });

    it('the headers end at the first blank line; the first non-blank line after it is reported once as a payload line', async () => {
      assert.deepEqual(await errorsOf(`${note()}\n\nsome payload\nmore payload\n\neven more\n`), [
        'Line 7: draft handoffs may contain headers only; payloads are generated by swarm_handoff.',
      ]);
    });

    it('a header line after the blank line is a payload line too, and line numbers count CRLF lines', async () => {
      assert.deepEqual(
        await errorsOf('type: note\r\nto: QA\r\npriority: 50\r\n\r\nmessage: m\r\n'),
        [
          'Line 5: draft handoffs may contain headers only; payloads are generated by swarm_handoff.',
          "Missing required header 'message' for note.",
        ],
      );
    });

    it('a --- line that is neither the first nor the last non-blank line is not a fence', async () => {
      assert.deepEqual(await errorsOf(`type: note\nto: QA\n---\npriority: 50\nmessage: m\n`), [
        "Line 3: expected 'field: value'.",
      ]);
      assert.deepEqual(await errorsOf(`---\n${note()}---\n\npayload\n`), [
        "Line 6: expected 'field: value'.",
        'Line 8: draft handoffs may contain headers only; payloads are generated by swarm_handoff.',
      ]);
    });

    it('a duplicate header keeps its first value', async () => {
      assert.deepEqual(
        await errorsOf('type: note\nto: QA\npriority: 5\npriority: 50\nmessage: m\n'),
        [
          "Line 4: duplicate header 'priority'.",
          "Header 'priority' must be two digits from 00 to 99; got '5'.",
        ],
      );
    });
  });

  describe('the other errors, in protocol order', () => {
    it('with no type: missing headers, priority, recipients, then task/commit/message only allowed for their type', async () => {
      const text =
        'message: m\ntask: t\ncommit: 0123456789\nto: reviewer,, a_b ,ghost,reviewer,ghost,../x,a_b,ghost\npriority: 100\n';
      const stub = stubLookup();
      assert.deepEqual(await errorsOf(text, stub.lookup), [
        "Missing required header 'type'.",
        "Header 'priority' must be two digits from 00 to 99; got '100'.",
        "Header 'to' contains an empty recipient.",
        "Recipient role 'a_b' is invalid; role names may not contain underscores.",
        "Duplicate recipient 'reviewer'.",
        "Duplicate recipient 'ghost'.",
        "Duplicate recipient 'a_b'.",
        "Unknown recipient role 'ghost'.",
        "Unknown recipient role '../x'.",
        "Header 'commit' is only allowed for git_handoff.",
        "Header 'task' is only allowed for git_handoff.",
        "Header 'message' is only allowed for note.",
      ]);
      assert.deepEqual(stub.asked, [], 'no commit lookup without a valid git_handoff type');
    });

    it('missing type, to and priority come in that order, before an invalid type', async () => {
      assert.deepEqual(await errorsOf('message: m\n'), [
        "Missing required header 'type'.",
        "Missing required header 'to'.",
        "Missing required header 'priority'.",
        "Header 'message' is only allowed for note.",
      ]);
      assert.deepEqual(await errorsOf('type: memo\ncommit: 0123456789\n'), [
        "Missing required header 'to'.",
        "Missing required header 'priority'.",
        "Header 'type' must be one of git_handoff or note; got 'memo'.",
        "Header 'commit' is only allowed for git_handoff.",
      ]);
      assert.deepEqual(await errorsOf(''), [
        "Missing required header 'type'.",
        "Missing required header 'to'.",
        "Missing required header 'priority'.",
      ]);
    });

    it('type is case-sensitive; priority must be two ASCII digits', async () => {
      assert.deepEqual(await errorsOf('type: Note\nto: QA\npriority: 50\n'), [
        "Header 'type' must be one of git_handoff or note; got 'Note'.",
      ]);
      for (const p of ['5', '100', 'ab', '٣٣', '5 0', '-1', '0x']) {
        assert.deepEqual(
          await errorsOf(`type: note\nto: QA\npriority: ${p}\nmessage: m\n`),
          [`Header 'priority' must be two digits from 00 to 99; got '${p}'.`],
          p,
        );
      }
    });

    it('unknown and duplicate recipients are reported once per name; an empty entry once; unknown includes invalid-looking names without _', async () => {
      const long = 'a'.repeat(33);
      assert.deepEqual(
        await errorsOf(
          note().replace('to: reviewer', `to: ghost,ghost,ghost,,${long},Coder, ,QA,QA`),
        ),
        [
          "Header 'to' contains an empty recipient.",
          "Duplicate recipient 'ghost'.",
          "Duplicate recipient 'QA'.",
          "Unknown recipient role 'ghost'.",
          `Unknown recipient role '${long}'.`,
          "Unknown recipient role 'Coder'.",
        ],
      );
      assert.deepEqual(await errorsOf(note().replace('to: reviewer', 'to: ,')), [
        "Header 'to' contains an empty recipient.",
      ]);
    });

    it('note: fields of the other type are not allowed, reported in draft field order', async () => {
      assert.deepEqual(
        await errorsOf(
          'type: note\ncommit: 0123456789\nto: QA\ntask: t\npriority: 50\nmessage: m\n',
        ),
        [
          "Header 'commit' is not allowed for type 'note'.",
          "Header 'task' is not allowed for type 'note'.",
        ],
      );
    });

    it('note: message required and at most 80 code points (81 emoji are 81, not 162)', async () => {
      assert.deepEqual(await errorsOf('type: note\nto: QA\npriority: 50\n'), [
        "Missing required header 'message' for note.",
      ]);
      assert.deepEqual(await errorsOf(note('', '😀'.repeat(81))), [
        "Header 'message' must be no longer than 80 characters; got 81.",
      ]);
      assert.deepEqual(await errorsOf(note('', 'x'.repeat(120))), [
        "Header 'message' must be no longer than 80 characters; got 120.",
      ]);
    });

    it('git_handoff: message not allowed, then task, then commit errors', async () => {
      const stub = stubLookup();
      assert.deepEqual(
        await errorsOf('type: git_handoff\nmessage: m\nto: QA\npriority: 50\n', stub.lookup),
        [
          "Header 'message' is not allowed for type 'git_handoff'.",
          "Missing required header 'task' for git_handoff.",
          "Missing required header 'commit' for git_handoff.",
        ],
      );
      assert.deepEqual(
        await errorsOf(gitHandoff('message: m\n', '😀'.repeat(81), 'xyz'), stub.lookup),
        [
          "Header 'message' is not allowed for type 'git_handoff'.",
          "Header 'task' must be no longer than 80 characters; got 81.",
          "Header 'commit' must be exactly 10 hexadecimal characters; got 'xyz'.",
        ],
      );
      assert.deepEqual(stub.asked, [], 'a malformed commit is never looked up');
    });

    it('git_handoff: the commit must be exactly 10 hex characters', async () => {
      const stub = stubLookup();
      for (const c of ['abcdef012', 'abcdef01234', 'abcdef012g', 'a'.repeat(40), '0x12345678']) {
        assert.deepEqual(
          await errorsOf(gitHandoff('', 't', c), stub.lookup),
          [`Header 'commit' must be exactly 10 hexadecimal characters; got '${c}'.`],
          c,
        );
      }
      assert.deepEqual(stub.asked, []);
    });

    it('git_handoff: the commit must resolve to exactly one object, and that object must be a commit', async () => {
      const stub = stubLookup({
        '0000000000': { matches: 0 },
        '1111111111': { matches: 2 },
        '2222222222': { matches: 1, type: 'tree' },
        '3333333333': { matches: 1, type: 'blob' },
      });
      assert.deepEqual(await errorsOf(gitHandoff('', 't', '0000000000'), stub.lookup), [
        "Header 'commit' must resolve to exactly one Git object; '0000000000' matched 0.",
      ]);
      assert.deepEqual(await errorsOf(gitHandoff('', 't', '1111111111'), stub.lookup), [
        "Header 'commit' must resolve to exactly one Git object; '1111111111' matched 2.",
      ]);
      assert.deepEqual(await errorsOf(gitHandoff('', 't', '2222222222'), stub.lookup), [
        "Header 'commit' must resolve to a commit; '2222222222' resolves to 'tree'.",
      ]);
      assert.deepEqual(await errorsOf(gitHandoff('', 't', '3333333333'), stub.lookup), [
        "Header 'commit' must resolve to a commit; '3333333333' resolves to 'blob'.",
      ]);
      assert.deepEqual(stub.asked, ['0000000000', '1111111111', '2222222222', '3333333333']);
    });

    it('the commit is looked up lowercase', async () => {
      const stub = stubLookup();
      const result = await validate(gitHandoff('', 't', 'AbCdEf0123'), stub.lookup);
      assert.ok(result.ok);
      assert.equal(result.draft.commit, COMMIT);
      assert.deepEqual(stub.asked, [COMMIT]);
    });

    it('every invalid draft fixture gives exactly the error lines of its .errors file, and the hint lines of its .hints file (none without one)', async () => {
      const names = fs
        .readdirSync(fixturePath('drafts', 'invalid'))
        .filter((n) => n.endsWith('.txt'));
      assert.ok(names.length >= 15, `only ${names.length} invalid drafts`);
      for (const name of names) {
        const expected = fixtureLines('drafts', 'invalid', name.replace(/\.txt$/, '.errors'));
        const hints = fixtureLinesIfAny('drafts', 'invalid', name.replace(/\.txt$/, '.hints'));
        const result = await validate(fixtureText('drafts', 'invalid', name));
        assert.deepEqual(result.ok ? [] : [result.errors, result.hints], [expected, hints], name);
      }
    });

    it('hints: the known roles (and a close match) after unknown recipients; the git command after a commit that is not 10 hex characters', async () => {
      const hintsOf = async (text: string) => {
        const result = await validate(text);
        return result.ok ? undefined : result.hints;
      };
      assert.deepEqual(await hintsOf(note().replace('to: reviewer', 'to: Reviewer')), [
        "Known roles: coder, reviewer, QA. Did you mean 'reviewer'?",
      ]);
      assert.deepEqual(await hintsOf(note().replace('to: reviewer', 'to: ghost,reviewer')), [
        'Known roles: coder, reviewer, QA.',
      ]);
      assert.deepEqual(await hintsOf(gitHandoff('', 't', 'HEAD')), [
        'Get the 10-character form in your worktree with: git rev-parse --short=10 HEAD',
      ]);
      assert.deepEqual(await hintsOf(gitHandoff('', 't', 'abcdef012345')), [
        'Get the 10-character form in your worktree with: git rev-parse --short=10 abcdef012345',
      ]);
      assert.deepEqual(
        await hintsOf(gitHandoff('', 't', '0000000000')),
        [],
        'a 10-hex commit that matches nothing has no hint',
      );
      assert.deepEqual(await hintsOf(note('', 'x'.repeat(81))), []);
    });

    it('invalidDraftLines: the protocol lines byte for byte, the hints after the `- ` lines, then the blank line and the usage', () => {
      assert.deepEqual(
        invalidDraftLines(
          'd\x1b.txt',
          ["Unknown recipient role 'Coder'."],
          ["Known roles: coder. Did you mean 'coder'?"],
        ),
        [
          'HANDOFF INVALID: d\\u001b.txt',
          '',
          'Errors:',
          "- Unknown recipient role 'Coder'.",
          "Known roles: coder. Did you mean 'coder'?",
          '',
          SWARM_HANDOFF_USAGE,
        ],
      );
      assert.deepEqual(invalidDraftLines('d.txt', ['e'], []), [
        'HANDOFF INVALID: d.txt',
        '',
        'Errors:',
        '- e',
        '',
        SWARM_HANDOFF_USAGE,
      ]);
    });

    it('reports everything at once: Line errors, then the rest in protocol order', async () => {
      const text = 'type: git_handoff\nto: ghost\nnope\npriority: 1\ncolor: red\nmessage: m\n';
      assert.deepEqual(await errorsOf(text), [
        "Line 3: expected 'field: value'.",
        "Line 5: unknown header 'color'.",
        "Header 'priority' must be two digits from 00 to 99; got '1'.",
        "Unknown recipient role 'ghost'.",
        "Header 'message' is not allowed for type 'git_handoff'.",
        "Missing required header 'task' for git_handoff.",
        "Missing required header 'commit' for git_handoff.",
      ]);
    });
  });
});
