import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import yaml from 'js-yaml';
import {
  appendLibraryLog,
  consolidationOf,
  libraryEntryOf,
  writeConsolidation,
} from '../../../lib/review/teacher/consolidation.js';
import {
  startSession,
  withEpisode,
  type Episode,
  type Session,
} from '../../../lib/review/teacher/teacherSession.js';
import { tempDir } from '../../support/project.js';

describe('lib/review/teacher/consolidation', () => {
  const T = new Date('2026-06-15T14:05:31.123Z');
  const episode = (
    bead: string,
    verdict: Episode['verdict'],
    score: number,
    sections: string[],
  ): Episode => ({
    bead,
    request: `id-${bead}`,
    end: 'verdict',
    verdict,
    score,
    attempts: 1,
    sections,
    detail: '',
    at: T.toISOString(),
  });
  const session = (): Session => {
    let s = startSession(
      '/nonexistent',
      'cto',
      'teacher-cto',
      undefined,
      ['no session yet: starting fresh'],
      T,
    );
    s = withEpisode(s, episode('a', 'FAIL', 76, ['auth', 'auth']));
    s = withEpisode(s, episode('b', 'PASS', 97, ['docs']));
    return withEpisode(s, episode('c', 'FAIL', 88, ['auth']));
  };

  it('the summary: totals with the mean score, the sections that keep coming back, the latest reviews first', () => {
    assert.deepEqual(consolidationOf(session(), T), {
      lens: 'cto',
      role: 'teacher-cto',
      updated_at: T.toISOString(),
      last_session: '20260615T140531123Z-0000',
      totals: {
        sessions: 1,
        reviews: 3,
        pass: 1,
        fail: 2,
        could_not_complete: 0,
        skipped: 0,
        attempts: 3,
        score_sum: 261,
        mean_score: 87,
      },
      recurring_sections: [
        { section: 'auth', findings: 3 },
        { section: 'docs', findings: 1 },
      ],
      latest: [
        `${T.toISOString()} c verdict FAIL 88`,
        `${T.toISOString()} b verdict PASS 97`,
        `${T.toISOString()} a verdict FAIL 76`,
      ],
    });
    assert.equal(
      (
        consolidationOf(startSession('/nonexistent', 'coo', 'r', undefined, [], T), T).totals as {
          mean_score: null;
        }
      ).mean_score,
      null,
    );
  });

  it('writes the summary as YAML (0600) and appends one library log entry per sleep: the file stays one YAML list', async () => {
    const dir = tempDir();
    try {
      const s = session();
      await writeConsolidation(join(dir, 't', 'consolidation.yaml'), s, T);
      assert.deepEqual(
        yaml.load(fs.readFileSync(join(dir, 't', 'consolidation.yaml'), 'utf8')),
        consolidationOf(s, T),
      );
      const log = join(dir, 't', 'library_log.yaml');
      await appendLibraryLog(log, s, '/x/1.json', T);
      await appendLibraryLog(log, { ...s, sid: 'second', reviews: [], notes: [] }, '/x/2.json', T);
      assert.equal(fs.statSync(log).mode & 0o777, 0o600);
      assert.deepEqual(yaml.load(fs.readFileSync(log, 'utf8')), [
        libraryEntryOf(s, '/x/1.json', T),
        libraryEntryOf({ ...s, sid: 'second', reviews: [], notes: [] }, '/x/2.json', T),
      ]);
      assert.deepEqual(libraryEntryOf(s, '/x/1.json', T), {
        at: T.toISOString(),
        sid: s.sid,
        session: '/x/1.json',
        reviewed: 3,
        beads: ['a verdict FAIL', 'b verdict PASS', 'c verdict FAIL'],
        notes: ['no session yet: starting fresh'],
      });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
