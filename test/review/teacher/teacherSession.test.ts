import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import {
  EPISODES,
  loadLastSession,
  MAX_SESSION_CYCLES,
  nextSessionId,
  pruneSessions,
  saveSession,
  sessionIdsIn,
  startSession,
  withEpisode,
  type Episode,
} from '../../../lib/review/teacher/teacherSession.js';
import { tempDir } from '../../support/project.js';

describe('lib/review/teacher/teacherSession', () => {
  let dir: string;
  beforeEach(() => {
    dir = join(tempDir(), 'sessions');
  });
  afterEach(() => fs.rmSync(join(dir, '..'), { recursive: true, force: true }));

  const T = new Date('2026-06-15T14:05:31.123Z');
  const episode = (
    bead: string,
    end: Episode['end'],
    verdict: Episode['verdict'],
    score: number | null,
    sections: string[] = [],
  ): Episode => ({
    bead,
    request: `id-${bead}`,
    end,
    verdict,
    score,
    attempts: end === 'skipped' ? 0 : 1,
    sections,
    detail: '',
    at: T.toISOString(),
  });

  it('session ids sort by time, and a new one always sorts after the newest there is (same millisecond, a clock gone back)', () => {
    assert.equal(nextSessionId(T), '20260615T140531123Z-0000');
    assert.equal(nextSessionId(T, '20260615T140531123Z-0000'), '20260615T140531123Z-0001');
    assert.equal(
      nextSessionId(new Date('2026-06-15T14:00:00Z'), '20260615T140531123Z-0004'),
      '20260615T140531123Z-0005',
    );
    assert.equal(
      nextSessionId(new Date('2026-06-16T00:00:00Z'), '20260615T140531123Z-0004'),
      '20260616T000000000Z-0000',
    );
  });

  it("no session yet: fresh, with a note; a new session continues the last one's history and totals", () => {
    assert.deepEqual(loadLastSession(dir, 'cto'), { note: 'no session yet: starting fresh' });
    let first = startSession(
      dir,
      'cto',
      'teacher-cto',
      undefined,
      ['no session yet: starting fresh'],
      T,
    );
    assert.deepEqual(
      [first.sid, first.previous, first.totals.sessions, first.notes],
      ['20260615T140531123Z-0000', null, 1, ['no session yet: starting fresh']],
    );
    first = withEpisode(
      withEpisode(
        withEpisode(first, episode('a', 'verdict', 'PASS', 97, ['docs'])),
        episode('b', 'could-not-complete', 'FAIL', 88, ['review']),
      ),
      episode('c', 'skipped', '', null),
    );
    assert.deepEqual(first.totals, {
      sessions: 1,
      reviews: 3,
      pass: 1,
      fail: 1,
      could_not_complete: 1,
      skipped: 1,
      attempts: 2,
      score_sum: 185,
    });
    const path = saveSession(dir, first, T);
    assert.equal(path, join(dir, '20260615T140531123Z-0000.json'));
    assert.equal(fs.statSync(path).mode & 0o777, 0o600);
    const { session: loaded, note } = loadLastSession(dir, 'cto');
    assert.equal(note, undefined);
    const second = startSession(dir, 'cto', 'teacher-cto', loaded, [], T);
    assert.deepEqual(
      [
        second.sid,
        second.previous,
        second.reviews,
        second.history.map((e) => e.bead),
        second.totals.sessions,
        second.totals.reviews,
      ],
      ['20260615T140531123Z-0001', '20260615T140531123Z-0000', [], ['a', 'b', 'c'], 2, 3],
    );
  });

  it("a corrupt newest session (not JSON, not a session, another lens's) starts fresh with a note naming the file and the reason", () => {
    const fresh = startSession(dir, 'cto', 'teacher-cto', undefined, [], T);
    const path = saveSession(dir, fresh, T);
    for (const [text, reason] of [
      ['{"sid": tru', /^corrupt session '.*': .*JSON.*; starting fresh$/],
      ['[1, 2]', /: not a JSON object; starting fresh$/],
      [JSON.stringify({ ...fresh, lens: 'coo' }), /: lens is coo, not cto; starting fresh$/],
      [
        JSON.stringify({ ...fresh, totals: { sessions: 'x' } }),
        /: totals are missing or not numbers; starting fresh$/,
      ],
    ] as const) {
      fs.writeFileSync(path, text);
      const { session, note } = loadLastSession(dir, 'cto');
      assert.equal(session, undefined);
      assert.match(note!, reason);
      assert.ok(note!.startsWith(`corrupt session '${path}': `));
    }
  });

  it('the episodic history keeps the newest EPISODES reviews', () => {
    let s = startSession(dir, 'coo', 'teacher-coo', undefined, [], T);
    for (let i = 0; i < EPISODES + 5; i++)
      s = withEpisode(s, episode(`b${i}`, 'verdict', 'PASS', 100));
    assert.deepEqual(
      [s.history.length, s.history[0]!.bead, s.reviews.length, s.totals.reviews],
      [EPISODES, 'b5', EPISODES + 5, EPISODES + 5],
    );
  });

  it('pruning keeps the newest MAX_SESSION_CYCLES session files and ignores other files', () => {
    let last;
    for (let i = 0; i < MAX_SESSION_CYCLES + 3; i++) {
      last = startSession(dir, 'cto', 'teacher-cto', last, [], T);
      saveSession(dir, last, T);
    }
    fs.writeFileSync(join(dir, 'notes.txt'), 'mine');
    const ids = sessionIdsIn(dir);
    const removed = pruneSessions(dir);
    assert.deepEqual(
      removed,
      ids.slice(0, 3).map((id) => join(dir, `${id}.json`)),
    );
    assert.deepEqual(sessionIdsIn(dir), ids.slice(3));
    assert.ok(fs.existsSync(join(dir, 'notes.txt')));
    assert.deepEqual(pruneSessions(dir), []);
  });
});
