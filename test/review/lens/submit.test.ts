// lib/review/submit: a submission writes the bookbag (WRITTEN), its ready signal and one
// review_request per lens from the submitter's mailbox; the reviewer roles come from
// reviewers.tsv or are given, and must be roles, like the submitter; a missing reviewer
// fails with the hint that configures one. A refused submission writes nothing.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { CommandFailure } from '../../../lib/fsx/commandFailure.js';
import { reviewPathsOf } from '../../../lib/project/layout.js';
import { readItem } from '../../../lib/queue/item.js';
import { REVIEW_REQUEST, requestBody } from '../../../lib/review/lens/reviewHandoffs.js';
import { signalPathOf } from '../../../lib/review/lens/signals.js';
import { bookbagPathOf, readBookbag } from '../../../lib/review/bookbag/store.js';
import { ReviewRefusal } from '../../../lib/review/bookbag/reviewErrors.js';
import {
  reviewerRoles,
  submitReview,
  type SubmitRequest,
} from '../../../lib/review/lens/submit.js';
import { at, reviewProjectForSuite, submission } from '../../support/bookbags.js';
import { itemsIn, makeProject, withProject } from '../../support/project.js';
import { followDurability } from '../../support/durability.js';

/** A submission that leaves the reviewer roles to reviewers.tsv. */
function request(overrides: Partial<SubmitRequest> = {}): SubmitRequest {
  const { ctoRole: _cto, cooRole: _coo, ...rest } = submission();
  return { ...rest, ...overrides };
}

function failure(kind: string, pattern: RegExp) {
  return (err: unknown) =>
    err instanceof CommandFailure && err.kind === kind && pattern.test(err.message);
}

describe('lib/review/lens/submit', () => {
  const p = reviewProjectForSuite();

  /** The review requests queued in coder's outbox, as `to lens bead`. */
  const queued = async () =>
    Promise.all(
      itemsIn(p.box('coder').outbox).map(async (name) => {
        const { headers } = await readItem(`${p.box('coder').outbox}/${name}`);
        return `${headers.type} ${headers.to} ${headers.lens} ${headers.bead}`;
      }),
    );
  const nothingWritten = async () => {
    assert.equal(
      fs.existsSync(reviewPathsOf(p.root, {}).bookbags) &&
        fs.readdirSync(reviewPathsOf(p.root, {}).bookbags).length > 0,
      false,
    );
    assert.deepEqual(await queued(), []);
  };

  it('writes the bookbag, its signal and one request per lens to the reviewers of reviewers.tsv', async () => {
    const bag = await submitReview(p.root, request(), {}, at(1));
    assert.match(bag.bead, /^coder-general-[0-9a-f]{8}$/);
    assert.deepEqual(
      [bag.state, bag.cto_role, bag.coo_role, bag.submitted_by, bag.task],
      ['WRITTEN', 'rev-cto', 'rev-coo', 'coder', 'Add the parser'],
    );
    const paths = reviewPathsOf(p.root, {});
    assert.deepEqual(readBookbag(bookbagPathOf(paths, bag.bead)), bag);
    assert.equal(fs.existsSync(signalPathOf(paths, bag.bead)), true);
    assert.deepEqual((await queued()).sort(), [
      `${REVIEW_REQUEST} rev-coo coo ${bag.bead}`,
      `${REVIEW_REQUEST} rev-cto cto ${bag.bead}`,
    ]);
    const first = await readItem(`${p.box('coder').outbox}/${itemsIn(p.box('coder').outbox)[0]}`);
    assert.equal(first.body.toString('utf8'), requestBody(bag, 'cto'));
  });

  it("fsyncs the bookbag's, the signal's, the counter's and the requests' files together, then publishes them in that order, each folder fsync'd before the next rename", async () => {
    await submitReview(p.root, request(), {}, at(2)); // the folders made: only the steps follow
    const followed = followDurability();
    let bag;
    try {
      bag = await submitReview(p.root, request(), {}, at(2));
    } finally {
      followed.restore();
    }
    const paths = reviewPathsOf(p.root, {});
    const box = p.box('coder');
    const steps = followed.order
      .filter((step) => !step.includes('/locks/'))
      .map((step) =>
        step
          .replaceAll(`${paths.bookbags}/${bag.bead}.json`, 'BAG')
          .replaceAll(paths.bookbags, 'BAGS')
          .replaceAll(signalPathOf(paths, bag.bead), 'SIGNAL')
          .replaceAll(paths.signals, 'SIGNALS')
          .replaceAll(box.seqFile, 'SEQ')
          .replaceAll(box.outboxTmp, 'TMP')
          .replaceAll(box.outbox, 'OUTBOX')
          .replaceAll(box.dir, 'CODER')
          .replace(/BAG\.\d+\.\d+\.tmp/, 'BAG.tmp')
          .replace(/_\d{6}_from_coder_to_rev-(cto|coo)\.handoff/g, '_$1'),
      );
    const requests = steps.filter((s) => s.startsWith('fsync TMP/')).length;
    assert.equal(requests, 2);
    assert.deepEqual(
      steps.slice(0, 5).sort(),
      [
        'fsync BAG.tmp',
        'fsync SIGNAL.tmp',
        'fsync SEQ.tmp',
        ...steps.slice(0, 5).filter((s) => s.startsWith('fsync TMP/')),
      ].sort(),
      "the five files are fsync'd together, before anything is published",
    );
    assert.deepEqual(
      steps.slice(5).map((s) => s.replace(/ TMP\/.*/, ' TMP/…')),
      [
        'rename BAG.tmp -> BAG',
        'fsync BAGS',
        'rename SIGNAL.tmp -> SIGNAL',
        'fsync SIGNALS',
        'rename SEQ.tmp -> SEQ',
        'fsync CODER',
        'rename TMP/…',
        'rename TMP/…',
        'fsync OUTBOX',
      ],
    );
  });

  it('sends to the reviewer roles given instead of the configured ones', async () => {
    const bag = await submitReview(
      p.root,
      request({ ctoRole: 'QA', cooRole: 'rev-cto' }),
      {},
      at(1),
    );
    assert.deepEqual([bag.cto_role, bag.coo_role], ['QA', 'rev-cto']);
    assert.deepEqual((await queued()).sort(), [
      `${REVIEW_REQUEST} QA cto ${bag.bead}`,
      `${REVIEW_REQUEST} rev-cto coo ${bag.bead}`,
    ]);
  });

  it('names a new bead for each submission', async () => {
    const first = await submitReview(p.root, request(), {}, at(1));
    const second = await submitReview(
      p.root,
      request({ student: 'QA', domain: 'parser' }),
      {},
      at(1),
    );
    assert.notEqual(first.bead, second.bead);
    assert.match(second.bead, /^QA-parser-[0-9a-f]{8}$/);
  });

  it("uses a bead its caller drew (a leaf's), and refuses that bead once it has a bookbag, queuing nothing more", async () => {
    const bag = await submitReview(p.root, request({ bead: 'coder-docs-0123abcd' }), {}, at(1));
    assert.equal(bag.bead, 'coder-docs-0123abcd');
    await assert.rejects(
      submitReview(p.root, request({ bead: 'coder-docs-0123abcd', task: 'again' })),
      (err: unknown) =>
        err instanceof ReviewRefusal &&
        err.message === 'bead coder-docs-0123abcd already has a bookbag',
    );
    assert.equal(
      readBookbag(bookbagPathOf(reviewPathsOf(p.root, {}), bag.bead)).task,
      'Add the parser',
    );
    assert.equal((await queued()).length, 2, 'one request per lens, from the first submit only');
  });

  it('reviewerRoles checks a submitter and its reviewers alone, so a leaf fails before its worker runs', () => {
    assert.deepEqual(reviewerRoles(p.root, { submittedBy: 'coder' }), {
      ctoRole: 'rev-cto',
      cooRole: 'rev-coo',
    });
    assert.throws(
      () => reviewerRoles(p.root, { submittedBy: 'ghost' }),
      failure('invalid', /the submitter 'ghost'/),
    );
  });

  it('refuses a reviewer role that is not in roles.tsv, writing nothing', async () => {
    await assert.rejects(
      submitReview(p.root, request({ cooRole: 'ghost' })),
      failure('invalid', /the coo reviewer 'ghost' is not a role of roles\.tsv/),
    );
    await nothingWritten();
  });

  it('refuses a submitter that is not in roles.tsv, writing nothing', async () => {
    await assert.rejects(
      submitReview(p.root, request({ submittedBy: 'ghost' })),
      failure('invalid', /the submitter 'ghost' is not a role of roles\.tsv/),
    );
    await nothingWritten();
  });

  it('refuses a student or domain that makes no safe bead, writing nothing', async () => {
    await assert.rejects(
      submitReview(p.root, request({ domain: '../x' })),
      failure('invalid', /invalid domain/),
    );
    await assert.rejects(
      submitReview(p.root, request({ student: '.x' })),
      failure('invalid', /invalid bead name/),
    );
    await nothingWritten();
  });

  it('without reviewers.tsv or a given role, fails naming the lens and how to configure it', async () => {
    await withProject(makeProject(), async (plain) => {
      await assert.rejects(
        submitReview(plain.root, request()),
        failure(
          'environment',
          /^baton review: no cto reviewer: add 'review cto <role>' to swarmforge\/swarmforge\.conf and run baton init, or pass --cto ROLE$/,
        ),
      );
      await assert.rejects(
        submitReview(plain.root, request({ ctoRole: 'reviewer' })),
        failure('environment', /no coo reviewer: add 'review coo <role>'.*--coo ROLE$/),
      );
      assert.equal(fs.existsSync(reviewPathsOf(plain.root, {}).bookbags), false);
      const bag = await submitReview(plain.root, request({ ctoRole: 'reviewer', cooRole: 'QA' }));
      assert.deepEqual([bag.cto_role, bag.coo_role], ['reviewer', 'QA']);
    });
  });
});
