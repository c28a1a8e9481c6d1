// lib/review/verdict: a lens's verdict recorded under the bead's lock; the first verdict
// queues nothing and keeps the ready signal, the one that completes the pair queues exactly
// one review_result (from that lens's reviewer role, to reply_to) and removes the signal; a
// refused verdict writes and queues nothing. recordAttempt counts a reviewer run.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { reviewPathsOf } from '../../../lib/project/layout.js';
import { readItem } from '../../../lib/queue/item.js';
import { BookbagProblem, ReviewRefusal } from '../../../lib/review/bookbag/reviewErrors.js';
import { resultBody } from '../../../lib/review/lens/reviewHandoffs.js';
import { signalPathOf } from '../../../lib/review/lens/signals.js';
import { readBookbag } from '../../../lib/review/bookbag/store.js';
import { type LensReview } from '../../../lib/review/bookbag/transitions.js';
import { recordAttempt, recordVerdict } from '../../../lib/review/bookbag/verdict.js';
import {
  at,
  BEAD,
  bookbagIn,
  finding,
  placeBookbag,
  reviewProjectForSuite,
  submission,
} from '../../support/bookbags.js';
import { itemsIn } from '../../support/project.js';

describe('lib/review/bookbag/verdict', () => {
  const p = reviewProjectForSuite();

  const review = (
    lens: LensReview['lens'],
    findings = [finding('LOW')],
    extra: Partial<LensReview> = {},
  ): LensReview => ({ lens, findings, summary: 'looked', reviewer: `rev-${lens}`, ...extra });
  const signalled = () => fs.existsSync(signalPathOf(reviewPathsOf(p.root, {}), BEAD));
  const outboxes = () =>
    ['coder', 'rev-cto', 'rev-coo', 'QA'].flatMap((role) =>
      itemsIn(p.box(role).outbox).map((name) => `${role}/${name}`),
    );

  it('records the first verdict, keeps the signal and queues nothing', async () => {
    const path = placeBookbag(p.root, bookbagIn('WRITTEN'));
    const bag = await recordVerdict(p.root, BEAD, review('coo', [finding('HIGH')]), {}, at(5));
    assert.deepEqual([bag.state, bag.coo_verdict, bag.coo_score], ['COO_REVIEWED', 'FAIL', 88]);
    assert.deepEqual(readBookbag(path), bag);
    assert.deepEqual([signalled(), outboxes()], [true, []]);
  });

  it("the completing verdict queues exactly one result from its lens's role to reply_to and removes the signal", async () => {
    const path = placeBookbag(
      p.root,
      bookbagIn('CTO_REVIEWED', {}, BEAD, submission({ replyTo: 'QA' })),
    );
    const bag = await recordVerdict(p.root, BEAD, review('coo'), {}, at(5));
    assert.deepEqual([bag.state, bag.accepted], ['REVIEWED', true]);
    assert.deepEqual(readBookbag(path), bag);
    const queued = outboxes();
    assert.equal(queued.length, 1);
    assert.match(queued[0]!, /^rev-coo\/50_\d{8}T\d{6}Z_\d{6}_from_rev-coo_to_QA\.handoff$/);
    const { headers, body } = await readItem(
      `${p.box('rev-coo').outbox}/${queued[0]!.slice('rev-coo/'.length)}`,
    );
    assert.deepEqual(
      [headers.type, headers.bead, headers.accepted, headers.cto_verdict, headers.coo_verdict],
      ['review_result', BEAD, 'true', 'PASS', 'PASS'],
    );
    assert.equal(body.toString('utf8'), resultBody(bag));
    assert.equal(signalled(), false);
  });

  it('queues the result from the CTO role when the CTO verdict completes the pair', async () => {
    placeBookbag(p.root, bookbagIn('COO_REVIEWED'));
    await recordVerdict(p.root, BEAD, review('cto', [finding('CRITICAL')]), {}, at(5));
    assert.deepEqual(
      outboxes().map((o) => o.replace(/\/.*_to_/, ' to ')),
      ['rev-cto to coder.handoff'],
    );
  });

  it('refuses a lens already decided and a contradicting declared verdict, writing and queueing nothing', async () => {
    const path = placeBookbag(p.root, bookbagIn('CTO_REVIEWED'));
    const before = fs.readFileSync(path);
    await assert.rejects(
      recordVerdict(p.root, BEAD, review('cto'), {}, at(5)),
      (err: unknown) =>
        err instanceof ReviewRefusal && err.message === `cto verdict already recorded for ${BEAD}`,
    );
    await assert.rejects(
      recordVerdict(
        p.root,
        BEAD,
        review('coo', [finding('HIGH')], { declared: 'PASS' }),
        {},
        at(5),
      ),
      ReviewRefusal,
    );
    assert.deepEqual([fs.readFileSync(path), signalled(), outboxes()], [before, true, []]);
  });

  it('refuses a bead without a bookbag', async () => {
    await assert.rejects(
      recordVerdict(p.root, BEAD, review('cto')),
      (err: unknown) => err instanceof BookbagProblem && err.kind === 'missing',
    );
  });

  it('recordAttempt counts one run of the lens and logs it', async () => {
    const path = placeBookbag(p.root, bookbagIn('WRITTEN'));
    await recordAttempt(p.root, BEAD, 'cto', 'teacher-cto', 'exit 1', {}, at(5));
    const bag = await recordAttempt(p.root, BEAD, 'cto', 'teacher-cto', 'timed out', {}, at(6));
    assert.deepEqual(bag.attempts, { cto: 2, coo: 0 });
    assert.deepEqual(
      bag.history.slice(-2).map((h) => [h.event, h.detail]),
      [
        ['cto_attempt', 'exit 1'],
        ['cto_attempt', 'timed out'],
      ],
    );
    assert.deepEqual(readBookbag(path), bag);
    assert.equal(bag.state, 'WRITTEN');
  });
});
