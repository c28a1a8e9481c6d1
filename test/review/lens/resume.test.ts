// lib/review/resume: every unfinished bead listed with what it waits for, and what a crash
// can leave repaired: a request that is nowhere queued again, a reviewed bead's missing
// result queued, a missing ready signal written again and a stale one removed. A second
// resume finds nothing to repair.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { reviewPathsOf } from '../../../lib/project/layout.js';
import { readItem } from '../../../lib/queue/item.js';
import { type Bookbag } from '../../../lib/review/bookbag/bookbag.js';
import { queueReviewRequests, queueReviewResult } from '../../../lib/review/lens/reviewHandoffs.js';
import { removeSignal, signalPathOf, writeSignal } from '../../../lib/review/lens/signals.js';
import { resumeReviews } from '../../../lib/review/lens/resume.js';
import {
  at,
  BEAD,
  bookbagIn,
  finding,
  placeBookbag,
  reviewProjectForSuite,
  submission,
  writeRawBookbag,
} from '../../support/bookbags.js';
import { itemsIn } from '../../support/project.js';
import { claimAs, deliverOutbox } from '../../support/reviewMail.js';

describe('lib/review/lens/resume', () => {
  const p = reviewProjectForSuite();

  const paths = () => reviewPathsOf(p.root, {});
  const signalled = (bead = BEAD) => fs.existsSync(signalPathOf(paths(), bead));
  /** The handoffs waiting in `role`'s outbox, as `type to lens`. */
  const outbox = async (role: string) =>
    Promise.all(
      itemsIn(p.box(role).outbox).map(async (name) => {
        const { headers } = await readItem(`${p.box(role).outbox}/${name}`);
        return `${headers.type} ${headers.to} ${headers.lens ?? headers.accepted}`;
      }),
    );
  const resume = () => resumeReviews(p.root, { env: {} }, at(30));

  it('re-queues both requests and the signal of a bead a crash left with its bookbag only; a second resume repairs nothing', async () => {
    placeBookbag(p.root, bookbagIn('WRITTEN'));
    removeSignal(paths(), BEAD);
    const waits = ['cto verdict from rev-cto', 'coo verdict from rev-coo'];
    assert.deepEqual(await resume(), [
      {
        bead: BEAD,
        state: 'WRITTEN',
        waits_for: waits,
        repaired: [
          'cto request queued again',
          'coo request queued again',
          'ready signal written again',
        ],
      },
    ]);
    assert.deepEqual((await outbox('coder')).sort(), [
      'review_request rev-coo coo',
      'review_request rev-cto cto',
    ]);
    assert.equal(signalled(), true);
    assert.deepEqual(await resume(), [
      { bead: BEAD, state: 'WRITTEN', waits_for: waits, repaired: [] },
    ]);
    assert.equal((await outbox('coder')).length, 2);
  });

  it('re-queues only the request that is nowhere: one claimed by its reviewer is left alone', async () => {
    const bag = bookbagIn('WRITTEN');
    placeBookbag(p.root, bag);
    await queueReviewRequests(p.root, bag, ['coo']);
    await deliverOutbox(p.root, 'coder');
    await claimAs(p.root, 'rev-coo');
    assert.deepEqual((await resume())[0]?.repaired, ['cto request queued again']);
    assert.deepEqual(await outbox('coder'), ['review_request rev-cto cto']);
  });

  it('never re-queues the request of a lens that has its verdict', async () => {
    placeBookbag(p.root, bookbagIn('CTO_REVIEWED'));
    await queueReviewRequests(p.root, bookbagIn('WRITTEN'), ['coo']);
    assert.deepEqual(await resume(), [
      { bead: BEAD, state: 'CTO_REVIEWED', waits_for: ['coo verdict from rev-coo'], repaired: [] },
    ]);
  });

  it("queues a reviewed bead's missing result from the completing lens's role, removes its stale signal, and waits for the score", async () => {
    placeBookbag(
      p.root,
      bookbagIn('REVIEWED', { cto: [finding('HIGH')] }, BEAD, submission({ replyTo: 'QA' })),
    );
    writeSignal(paths(), BEAD, at(0));
    assert.deepEqual(await resume(), [
      {
        bead: BEAD,
        state: 'REVIEWED',
        waits_for: ['score'],
        repaired: ['result queued to QA', 'ready signal removed'],
      },
    ]);
    assert.deepEqual(await outbox('rev-coo'), ['review_result QA false']);
    assert.equal(signalled(), false);
    assert.deepEqual(await resume(), [
      { bead: BEAD, state: 'REVIEWED', waits_for: ['score'], repaired: [] },
    ]);
    assert.equal((await outbox('rev-coo')).length + (await outbox('rev-cto')).length, 1);
  });

  it("leaves a result queued by either lens's role alone", async () => {
    const bag = bookbagIn('REVIEWED');
    placeBookbag(p.root, bag);
    await queueReviewResult(p.root, bag, 'cto');
    assert.deepEqual((await resume())[0]?.repaired, []);
    assert.deepEqual(
      [await outbox('rev-cto'), await outbox('rev-coo')],
      [['review_result coder true'], []],
    );
  });

  it('lists unfinished beads only, in bead order, and skips an invalid bookbag', async () => {
    const mk = (bead: string, state: Bookbag['state']) =>
      placeBookbag(p.root, bookbagIn(state, {}, bead));
    mk('b-scored', 'SCORED');
    mk('c-disposed', 'DISPOSED');
    mk('d-coo', 'COO_REVIEWED');
    mk('a-written', 'WRITTEN');
    writeRawBookbag(p.root, 'e-broken', {
      ...bookbagIn('WRITTEN', {}, 'e-broken'),
      accepted: true,
    });
    assert.deepEqual(
      (await resume()).map((e) => [e.bead, e.state]),
      [
        ['a-written', 'WRITTEN'],
        ['d-coo', 'COO_REVIEWED'],
      ],
    );
    assert.equal(signalled('b-scored'), false);
    assert.equal(signalled('e-broken'), false);
  });
});
