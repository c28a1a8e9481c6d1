// lib/review/waitVerdicts: returns at once when both verdicts are in, returns when the
// missing verdict is written meanwhile (woken by the folder watch, not the poll), and on
// timeout returns the bookbag as it is; its defaults come from the environment.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { BookbagProblem } from '../../../lib/review/bookbag/reviewErrors.js';
import { recordVerdict } from '../../../lib/review/bookbag/verdict.js';
import { waitForVerdicts } from '../../../lib/review/lens/waitVerdicts.js';
import {
  BEAD,
  bookbagIn,
  finding,
  placeBookbag,
  reviewProjectForSuite,
} from '../../support/bookbags.js';

/** Longer than any of these tests may take: a wait that relied on it would fail its test. */
const NEVER = 60_000;

describe('lib/review/lens/waitVerdicts', () => {
  const p = reviewProjectForSuite();

  it('returns at once when both verdicts are in', async () => {
    placeBookbag(p.root, bookbagIn('SCORED', { cto: [finding('HIGH')] }));
    const outcome = await waitForVerdicts(p.root, BEAD, {
      timeoutMs: NEVER,
      pollMs: NEVER,
      env: {},
    });
    assert.deepEqual(
      [outcome.complete, outcome.bag.cto_verdict, outcome.bag.coo_verdict, outcome.bag.state],
      [true, 'FAIL', 'PASS', 'SCORED'],
    );
  });

  it('returns when the missing verdict is written meanwhile, without waiting for a poll', async () => {
    placeBookbag(p.root, bookbagIn('CTO_REVIEWED'));
    const waiting = waitForVerdicts(p.root, BEAD, { timeoutMs: NEVER, pollMs: NEVER, env: {} });
    const started = Date.now();
    await recordVerdict(p.root, BEAD, {
      lens: 'coo',
      findings: [finding('HIGH')],
      summary: '',
      reviewer: 'rev-coo',
    });
    const outcome = await waiting;
    assert.deepEqual(
      [outcome.complete, outcome.bag.cto_verdict, outcome.bag.coo_verdict, outcome.bag.state],
      [true, 'PASS', 'FAIL', 'REVIEWED'],
    );
    assert.ok(Date.now() - started < NEVER / 2, 'woken by the write');
  });

  it('sees a verdict through the poll when no notification names the file', async () => {
    const path = placeBookbag(p.root, bookbagIn('COO_REVIEWED'));
    const waiting = waitForVerdicts(p.root, BEAD, { timeoutMs: NEVER, pollMs: 20, env: {} });
    // Rewritten in place (same inode) through a second name in another folder: the watch on
    // the bookbag folder hears nothing, so only the poll can see it.
    const elsewhere = `${p.root}/hardlink.json`;
    fs.linkSync(path, elsewhere);
    fs.writeFileSync(elsewhere, JSON.stringify(bookbagIn('REVIEWED')));
    const outcome = await waiting;
    assert.deepEqual([outcome.complete, outcome.bag.state], [true, 'REVIEWED']);
  });

  it('on timeout returns the incomplete bookbag', async () => {
    placeBookbag(p.root, bookbagIn('CTO_REVIEWED'));
    const outcome = await waitForVerdicts(p.root, BEAD, { timeoutMs: 150, pollMs: 20, env: {} });
    assert.deepEqual(
      [outcome.complete, outcome.bag.cto_verdict, outcome.bag.coo_verdict, outcome.bag.state],
      [false, 'PASS', '', 'CTO_REVIEWED'],
    );
  });

  it('takes its timeout from HANDOFF_TIMEOUT (seconds) when none is given', async () => {
    placeBookbag(p.root, bookbagIn('WRITTEN'));
    const outcome = await waitForVerdicts(p.root, BEAD, {
      env: { HANDOFF_TIMEOUT: '0.2', HANDOFF_POLL_INTERVAL: '0.05' },
    });
    assert.deepEqual([outcome.complete, outcome.bag.state], [false, 'WRITTEN']);
  });

  it('refuses a bead without a bookbag', async () => {
    await assert.rejects(
      waitForVerdicts(p.root, BEAD, { timeoutMs: 100, env: {} }),
      (err: unknown) => err instanceof BookbagProblem && err.kind === 'missing',
    );
  });
});
