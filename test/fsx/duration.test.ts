import assert from 'node:assert/strict';
import { durationMs, durationText, retentionMs } from '../../lib/fsx/duration.js';

describe('lib/fsx/duration', () => {
  it('durationMs reads ms, s, m and h; retentionMs reads days too; neither reads 0 or junk', () => {
    assert.deepEqual(
      ['500ms', '1.5s', '30m', '2h'].map((t) => durationMs(t)),
      [500, 1500, 1_800_000, 7_200_000],
    );
    assert.equal(durationMs('7d'), undefined, 'a reply deadline in days is not a duration');
    assert.deepEqual(
      ['7d', '0.5d', '12h'].map((t) => retentionMs(t)),
      [604_800_000, 43_200_000, 43_200_000],
    );
    for (const bad of ['0d', '0s', '5x', '', 'd', '-1d', '1 d d'])
      assert.equal(retentionMs(bad), undefined, bad);
    assert.equal(durationText(90_000), '90s');
  });
});
