// lib/review/transitions: the only ways a bookbag changes. newBookbag writes WRITTEN;
// withVerdict derives the lens's verdict, score, the union of findings, the state and
// acceptance, and refuses a decided lens, a contradicting declared verdict and a bookbag past
// review; withAttempt counts a run; withScore only from REVIEWED; withDisposal from SCORED
// (or REVIEWED when forced). Each result is valid and consistent, the input is never changed.
import { recordProblems } from '../../../lib/fsx/records.js';
import { BOOKBAG } from '../../../lib/review/bookbag/store.js';
import assert from 'node:assert/strict';
import { STATES, type Bookbag, type ReviewState } from '../../../lib/review/bookbag/bookbag.js';
import { ReviewRefusal } from '../../../lib/review/bookbag/reviewErrors.js';
import {
  newBookbag,
  withAttempt,
  withDisposal,
  withScore,
  withVerdict,
  type LensReview,
} from '../../../lib/review/bookbag/transitions.js';
import { at, BEAD, bookbagIn, finding, submission } from '../../support/bookbags.js';

/** Asserts that `bag` is schema-valid and consistent, and returns it. */
function sound(bag: Bookbag): Bookbag {
  assert.deepEqual(recordProblems(BOOKBAG, bag), []);
  return bag;
}

/** Runs `change` on a deep copy of `bag`, expects a ReviewRefusal matching `pattern`, and checks the bag was left alone. */
function refused(bag: Bookbag, change: (b: Bookbag) => unknown, pattern: RegExp): void {
  const before = structuredClone(bag);
  assert.throws(
    () => change(bag),
    (err: unknown) => err instanceof ReviewRefusal && pattern.test(err.message),
  );
  assert.deepEqual(bag, before);
}

const review = (
  lens: LensReview['lens'],
  findings = [finding('MEDIUM')],
  extra: Partial<LensReview> = {},
): LensReview => ({
  lens,
  findings,
  summary: `${lens} summary`,
  reviewer: `rev-${lens}`,
  ...extra,
});

describe('lib/review/bookbag/transitions', () => {
  it('newBookbag: the submission in state WRITTEN, nothing reviewed, one history entry', () => {
    const s = submission({
      acMet: ['a', 'b'],
      blockers: ['none'],
      replyTo: 'QA',
      branch: 'study-coder-0a1b2c3d',
      commit: 'abc',
    });
    const bag = sound(newBookbag(BEAD, s, at(0)));
    assert.deepEqual(bag, {
      bead: BEAD,
      task: s.task,
      student: 'coder',
      domain: 'general',
      difficulty: 'medium',
      output: s.output,
      verification: 'npm test',
      summary: 'parser added',
      ac_met: ['a', 'b'],
      files_changed: ['lib/x.ts'],
      blockers: ['none'],
      submitted_by: 'coder',
      reply_to: 'QA',
      branch: 'study-coder-0a1b2c3d',
      commit: 'abc',
      cto_role: 'rev-cto',
      coo_role: 'rev-coo',
      cto_verdict: '',
      coo_verdict: '',
      cto_findings: [],
      coo_findings: [],
      cto_score: null,
      coo_score: null,
      cto_reviewed_at: '',
      coo_reviewed_at: '',
      cto_reviewer: '',
      coo_reviewer: '',
      cto_summary: '',
      coo_summary: '',
      findings: [],
      accepted: false,
      state: 'WRITTEN',
      attempts: { cto: 0, coo: 0 },
      history: [
        {
          at: at(0).toISOString(),
          actor: 'coder',
          event: 'submitted',
          detail: 'cto rev-cto, coo rev-coo',
        },
      ],
      timestamp: at(0).toISOString(),
    });
  });

  describe('withVerdict', () => {
    it('records the first lens: its derived verdict and score, the union, CTO_REVIEWED, not accepted', () => {
      const written = newBookbag(BEAD, submission(), at(0));
      const before = structuredClone(written);
      const bag = sound(
        withVerdict(written, review('cto', [finding('MEDIUM', 'docs', 'typo')]), at(5)),
      );
      assert.deepEqual(written, before);
      assert.deepEqual(
        [
          bag.cto_verdict,
          bag.cto_score,
          bag.cto_reviewed_at,
          bag.cto_reviewer,
          bag.cto_summary,
          bag.state,
          bag.accepted,
          bag.coo_verdict,
        ],
        ['PASS', 94, at(5).toISOString(), 'rev-cto', 'cto summary', 'CTO_REVIEWED', false, ''],
      );
      assert.deepEqual(bag.findings, [
        { lens: 'cto', severity: 'MEDIUM', section: 'docs', description: 'typo' },
      ]);
      assert.deepEqual(bag.history.at(-1), {
        at: at(5).toISOString(),
        actor: 'rev-cto',
        event: 'cto_verdict',
        detail: 'PASS, score 94, 1 finding(s)',
      });
      assert.equal(bag.timestamp, at(5).toISOString());
    });

    it('records the COO lens first as COO_REVIEWED', () => {
      const bag = sound(withVerdict(bookbagIn('WRITTEN'), review('coo', [finding('HIGH')]), at(5)));
      assert.deepEqual(
        [bag.state, bag.coo_verdict, bag.coo_score, bag.cto_verdict],
        ['COO_REVIEWED', 'FAIL', 88, ''],
      );
    });

    it('the second lens makes it REVIEWED and accepted when both pass', () => {
      const bag = sound(
        withVerdict(bookbagIn('CTO_REVIEWED', { cto: [finding('LOW')] }), review('coo'), at(5)),
      );
      assert.deepEqual(
        [bag.state, bag.accepted, bag.cto_verdict, bag.coo_verdict],
        ['REVIEWED', true, 'PASS', 'PASS'],
      );
      assert.deepEqual(
        bag.findings.map((f) => [f.lens, f.severity]),
        [
          ['cto', 'LOW'],
          ['coo', 'MEDIUM'],
        ],
      );
    });

    it('the second lens makes it REVIEWED and not accepted when it fails', () => {
      const bag = sound(
        withVerdict(bookbagIn('COO_REVIEWED'), review('cto', [finding('CRITICAL')]), at(5)),
      );
      assert.deepEqual(
        [bag.state, bag.accepted, bag.cto_verdict, bag.cto_score],
        ['REVIEWED', false, 'FAIL', 75],
      );
    });

    it('takes a declared verdict that agrees with the findings', () => {
      assert.equal(
        withVerdict(
          bookbagIn('WRITTEN'),
          review('cto', [finding('HIGH')], { declared: 'FAIL' }),
          at(5),
        ).cto_verdict,
        'FAIL',
      );
      assert.equal(
        withVerdict(bookbagIn('WRITTEN'), review('cto', [], { declared: 'PASS' }), at(5))
          .cto_verdict,
        'PASS',
      );
    });

    it('refuses a declared PASS beside a blocking finding, naming the finding', () => {
      refused(
        bookbagIn('WRITTEN'),
        (b) =>
          withVerdict(
            b,
            review('cto', [finding('LOW'), finding('HIGH', 'auth', 'token leaks')], {
              declared: 'PASS',
            }),
            at(5),
          ),
        /^declared PASS contradicts the HIGH finding 'auth: token leaks'$/,
      );
    });

    it('refuses a declared FAIL without a blocking finding', () => {
      refused(
        bookbagIn('WRITTEN'),
        (b) => withVerdict(b, review('coo', [finding('MEDIUM')], { declared: 'FAIL' }), at(5)),
        /^declared FAIL but no finding is CRITICAL or HIGH$/,
      );
    });

    it('refuses a lens already decided', () => {
      refused(
        bookbagIn('CTO_REVIEWED'),
        (b) => withVerdict(b, review('cto'), at(5)),
        new RegExp(`^cto verdict already recorded for ${BEAD}$`),
      );
      refused(
        bookbagIn('REVIEWED'),
        (b) => withVerdict(b, review('coo'), at(5)),
        new RegExp(`^coo verdict already recorded for ${BEAD}$`),
      );
    });

    it('refuses any verdict on a SCORED or DISPOSED bookbag', () => {
      for (const state of ['SCORED', 'DISPOSED'] as const) {
        for (const lens of ['cto', 'coo'] as const)
          refused(
            bookbagIn(state),
            (b) => withVerdict(b, review(lens), at(5)),
            /already recorded|no verdict can be recorded/,
          );
        refused(
          { ...bookbagIn(state), coo_verdict: '' },
          (b) => withVerdict(b, review('coo'), at(5)),
          new RegExp(`^${BEAD} is ${state}: no verdict can be recorded$`),
        );
      }
    });
  });

  it('withAttempt counts one run of one lens and logs it, changing nothing else', () => {
    const bag = bookbagIn('CTO_REVIEWED');
    const next = sound(withAttempt(bag, 'coo', 'teacher-coo', 'timed out after 90 s', at(9)));
    assert.deepEqual(next.attempts, { cto: 0, coo: 1 });
    assert.equal(withAttempt(next, 'coo', 'teacher-coo', 'again', at(10)).attempts.coo, 2);
    assert.deepEqual(next.history.at(-1), {
      at: at(9).toISOString(),
      actor: 'teacher-coo',
      event: 'coo_attempt',
      detail: 'timed out after 90 s',
    });
    assert.deepEqual(
      { ...next, attempts: bag.attempts, history: bag.history, timestamp: bag.timestamp },
      bag,
    );
  });

  describe('withScore', () => {
    it('REVIEWED → SCORED, with accepted recomputed and logged', () => {
      const reviewed = bookbagIn('REVIEWED');
      const bag = sound(withScore({ ...reviewed, accepted: false }, 'principal', at(9)));
      assert.deepEqual([bag.state, bag.accepted], ['SCORED', true]);
      assert.deepEqual(bag.history.at(-1), {
        at: at(9).toISOString(),
        actor: 'principal',
        event: 'scored',
        detail: 'accepted',
      });
      const failed = sound(
        withScore(bookbagIn('REVIEWED', { cto: [finding('HIGH')] }), 'principal', at(9)),
      );
      assert.deepEqual(
        [failed.state, failed.accepted, failed.history.at(-1)?.detail],
        ['SCORED', false, 'not accepted'],
      );
    });

    it('refuses every other state, SCORED included', () => {
      for (const state of STATES.filter((s) => s !== 'REVIEWED')) {
        refused(
          bookbagIn(state),
          (b) => withScore(b, 'principal', at(9)),
          new RegExp(`^${BEAD} is ${state}, not REVIEWED: nothing to score$`),
        );
      }
    });
  });

  describe('withDisposal', () => {
    it('SCORED → DISPOSED', () => {
      const bag = sound(withDisposal(bookbagIn('SCORED'), false, 'principal', at(9)));
      assert.deepEqual(
        [bag.state, bag.history.at(-1)],
        [
          'DISPOSED',
          { at: at(9).toISOString(), actor: 'principal', event: 'disposed', detail: '' },
        ],
      );
    });

    it('REVIEWED → DISPOSED only when forced', () => {
      refused(
        bookbagIn('REVIEWED'),
        (b) => withDisposal(b, false, 'principal', at(9)),
        new RegExp(`^${BEAD} is REVIEWED: dispose needs SCORED \\(or --force\\)$`),
      );
      const bag = sound(withDisposal(bookbagIn('REVIEWED'), true, 'principal', at(9)));
      assert.deepEqual([bag.state, bag.history.at(-1)?.detail], ['DISPOSED', 'forced']);
    });

    it('refuses every state before REVIEWED, and DISPOSED, even when forced', () => {
      for (const state of [
        'WRITTEN',
        'CTO_REVIEWED',
        'COO_REVIEWED',
        'DISPOSED',
      ] as ReviewState[]) {
        for (const force of [false, true])
          refused(
            bookbagIn(state),
            (b) => withDisposal(b, force, 'principal', at(9)),
            new RegExp(`^${BEAD} is ${state}: dispose needs SCORED$`),
          );
      }
    });
  });
});
