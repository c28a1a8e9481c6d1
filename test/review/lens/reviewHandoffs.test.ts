// lib/review/reviewHandoffs: review requests and results queued with their own headers into
// the right outbox, and found again wherever the queue has moved them (the sender's
// outbox, sent/ and failed/, the recipient's new/, in_process/ and completed/ with their
// batch folders), which is what resume relies on (missingRequests, resultQueued).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { dirname, join } from 'node:path';
import { readItem } from '../../../lib/queue/item.js';
import { type Bookbag } from '../../../lib/review/bookbag/bookbag.js';
import {
  completingLensOf,
  findReviewHandoffs,
  missingRequests,
  queueReviewRequests,
  queueReviewResult,
  requestBody,
  resultBody,
  resultQueued,
  REVIEW_REQUEST,
  REVIEW_RESULT,
} from '../../../lib/review/lens/reviewHandoffs.js';
import {
  at,
  BEAD,
  bookbagIn,
  clearReviews,
  finding,
  reviewProjectForSuite,
  submission,
} from '../../support/bookbags.js';
import { claimAs, completeAs, deliverOutbox } from '../../support/reviewMail.js';

describe('lib/review/lens/reviewHandoffs', () => {
  const p = reviewProjectForSuite();

  const requests = (bag: Bookbag, lens: 'cto' | 'coo', recipient = bag[`${lens}_role`]) =>
    findReviewHandoffs(p.root, bag.submitted_by, recipient, REVIEW_REQUEST, bag.bead, lens);
  const relative = (paths: string[]) =>
    paths.map((path) =>
      path.slice(p.root.length + '/.swarmforge/handoffs/'.length).replace(/[^/]+\.handoff$/, '*'),
    );

  it('requestBody and resultBody say what to review and how it came out', () => {
    const written = bookbagIn('WRITTEN');
    assert.equal(
      requestBody(written, 'coo'),
      `Review bead ${BEAD} with the COO lens.\n\nTask: Add the parser\n\n` +
        `Read it:   baton review show ${BEAD}\nRecord it: baton review verdict ${BEAD} --lens coo [--finding SEVERITY:SECTION:DESCRIPTION]... [--summary S]\n`,
    );
    const failed = bookbagIn('REVIEWED', { cto: [finding('HIGH', 'auth', 'leak')] });
    assert.equal(
      resultBody(failed),
      `Review of bead ${BEAD}: NOT ACCEPTED\n\nTask: Add the parser\nCTO: FAIL (score 88)\nCOO: PASS (score 100)\n\nFindings:\n- [cto HIGH] auth: leak\n`,
    );
    assert.match(resultBody(bookbagIn('REVIEWED')), /: ACCEPTED\n[\s\S]*\nNo findings\.\n$/);
  });

  it("queueReviewRequests queues from the submitter to the lens's reviewer role, with bead and lens headers", async () => {
    const bag = bookbagIn('WRITTEN');
    const path = (await queueReviewRequests(p.root, bag, ['cto'], at(7)))[0]!;
    assert.equal(dirname(path), p.box('coder').outbox);
    const item = await readItem(path);
    assert.deepEqual(
      [
        item.headers.from,
        item.headers.to,
        item.headers.type,
        item.headers.priority,
        item.headers.bead,
        item.headers.lens,
        item.headers.created_at,
      ],
      ['coder', 'rev-cto', 'review_request', '50', BEAD, 'cto', at(7).toISOString()],
    );
    assert.equal(item.body.toString('utf8'), requestBody(bag, 'cto'));
  });

  it("queueReviewResult queues from the completing lens's role to reply_to, with bead, accepted and both verdicts", async () => {
    const bag = bookbagIn(
      'REVIEWED',
      { coo: [finding('CRITICAL')] },
      BEAD,
      submission({ replyTo: 'QA' }),
    );
    const path = await queueReviewResult(p.root, bag, 'coo', at(7));
    assert.equal(dirname(path), p.box('rev-coo').outbox);
    const item = await readItem(path);
    assert.deepEqual(
      [
        item.headers.from,
        item.headers.to,
        item.headers.type,
        item.headers.bead,
        item.headers.accepted,
        item.headers.cto_verdict,
        item.headers.coo_verdict,
      ],
      ['rev-coo', 'QA', 'review_result', BEAD, 'false', 'PASS', 'FAIL'],
    );
    assert.equal(item.body.toString('utf8'), resultBody(bag));
    assert.equal(
      (await readItem(await queueReviewResult(p.root, bookbagIn('REVIEWED'), 'cto', at(8)))).headers
        .accepted,
      'true',
    );
  });

  it('completingLensOf is the lens whose verdict came last (CTO when both came in one millisecond)', () => {
    const bag = bookbagIn('REVIEWED');
    assert.equal(completingLensOf(bag), 'coo');
    assert.equal(completingLensOf({ ...bag, cto_reviewed_at: at(9).toISOString() }), 'cto');
    assert.equal(completingLensOf({ ...bag, coo_reviewed_at: bag.cto_reviewed_at }), 'cto');
  });

  describe('findReviewHandoffs', () => {
    it('finds a request in the outbox, then in sent/ and new/, in_process/ and completed/ as it moves', async () => {
      const bag = bookbagIn('WRITTEN');
      await queueReviewRequests(p.root, bag, ['cto']);
      assert.deepEqual(relative(await requests(bag, 'cto')), ['coder/outbox/*']);
      await deliverOutbox(p.root, 'coder');
      assert.deepEqual(relative(await requests(bag, 'cto')), [
        'coder/sent/*',
        'rev-cto/inbox/new/*',
      ]);
      await claimAs(p.root, 'rev-cto');
      assert.deepEqual(relative(await requests(bag, 'cto')), [
        'coder/sent/*',
        'rev-cto/inbox/in_process/*',
      ]);
      await completeAs(p.root, 'rev-cto');
      assert.deepEqual(relative(await requests(bag, 'cto')), [
        'coder/sent/*',
        'rev-cto/inbox/completed/*',
      ]);
    });

    it('finds a request in a batch in process and in a completed batch', async () => {
      const bag = bookbagIn('WRITTEN', {}, BEAD, submission({ ctoRole: 'QA' }));
      await queueReviewRequests(p.root, bag, ['cto']);
      await deliverOutbox(p.root, 'coder');
      fs.rmSync(p.box('coder').sent, { recursive: true, force: true });
      await claimAs(p.root, 'QA');
      assert.deepEqual(
        relative(await requests(bag, 'cto')).map((r) => r.replace(/batch_[^/]+/, 'batch_*')),
        ['QA/inbox/in_process/batch_*/*'],
      );
      await completeAs(p.root, 'QA');
      assert.deepEqual(
        relative(await requests(bag, 'cto')).map((r) => r.replace(/batch_[^/]+/, 'batch_*')),
        ['QA/inbox/completed/batch_*/*'],
      );
    });

    it('finds a request the daemon failed (failed/)', async () => {
      const bag = bookbagIn('WRITTEN', {}, BEAD, submission({ ctoRole: 'ghost' }));
      await queueReviewRequests(p.root, bag, ['cto']);
      assert.equal((await deliverOutbox(p.root, 'coder'))[0]?.kind, 'failed');
      assert.deepEqual(relative(await requests(bag, 'cto')), ['coder/failed/*']);
    });

    it('matches the type, the bead and the lens only', async () => {
      const bag = bookbagIn('WRITTEN');
      await queueReviewRequests(p.root, bag, ['cto']);
      await queueReviewRequests(p.root, bookbagIn('WRITTEN', {}, 'coder-general-ffffffff'), [
        'cto',
      ]);
      assert.equal((await requests(bag, 'cto')).length, 1);
      assert.deepEqual(
        await findReviewHandoffs(p.root, 'coder', 'rev-cto', REVIEW_RESULT, BEAD),
        [],
      );
      assert.deepEqual(
        await findReviewHandoffs(p.root, 'coder', 'rev-cto', REVIEW_REQUEST, BEAD, 'coo'),
        [],
      );
      assert.equal(
        (await findReviewHandoffs(p.root, 'coder', 'rev-cto', REVIEW_REQUEST, BEAD)).length,
        1,
      );
    });

    it('skips unusable files where it looks', async () => {
      fs.writeFileSync(join(p.box('coder').outbox, '50_junk.handoff'), 'no header at all');
      const bag = bookbagIn('WRITTEN');
      await queueReviewRequests(p.root, bag, ['coo']);
      assert.equal((await requests(bag, 'coo')).length, 1);
    });

    it('skips a listed name that opens nothing (a name that is not valid UTF-8), as it skips an item that moved on', async () => {
      fs.writeFileSync(
        Buffer.concat([
          Buffer.from(`${p.box('coder').outbox}/50_`),
          Buffer.from([0xff]),
          Buffer.from('odd.handoff'),
        ]),
        'whatever',
      );
      const bag = bookbagIn('WRITTEN');
      await queueReviewRequests(p.root, bag, ['cto']);
      assert.deepEqual(relative(await requests(bag, 'cto')), ['coder/outbox/*']);
    });
  });

  describe('missingRequests', () => {
    it('names each undecided lens whose request is nowhere', async () => {
      const bag = bookbagIn('WRITTEN');
      assert.deepEqual(await missingRequests(p.root, bag), ['cto', 'coo']);
      await queueReviewRequests(p.root, bag, ['coo']);
      await deliverOutbox(p.root, 'coder');
      await claimAs(p.root, 'rev-coo');
      assert.deepEqual(await missingRequests(p.root, bag), ['cto']);
    });

    it('never names a lens that has its verdict', async () => {
      assert.deepEqual(await missingRequests(p.root, bookbagIn('CTO_REVIEWED')), ['coo']);
      assert.deepEqual(await missingRequests(p.root, bookbagIn('REVIEWED')), []);
    });
  });

  describe('resultQueued', () => {
    it("is false until a result is queued, from either lens's role", async () => {
      const bag = bookbagIn('REVIEWED');
      assert.equal(await resultQueued(p.root, bag), false);
      await queueReviewResult(p.root, bag, 'cto');
      assert.equal(await resultQueued(p.root, bag), true);
      clearReviews(p);
      await queueReviewResult(p.root, bag, 'coo');
      assert.equal(await resultQueued(p.root, bag), true);
    });

    it('stays true once the result is delivered and completed by reply_to', async () => {
      const bag = bookbagIn('REVIEWED');
      await queueReviewResult(p.root, bag, 'coo');
      await deliverOutbox(p.root, 'rev-coo');
      fs.rmSync(p.box('rev-coo').sent, { recursive: true, force: true });
      await claimAs(p.root, 'coder');
      await completeAs(p.root, 'coder');
      assert.equal(await resultQueued(p.root, bag), true);
    });

    it('ignores a result for another bead', async () => {
      await queueReviewResult(p.root, bookbagIn('REVIEWED', {}, 'coder-general-ffffffff'), 'cto');
      assert.equal(await resultQueued(p.root, bookbagIn('REVIEWED')), false);
    });
  });
});
