import assert from 'node:assert/strict';
import { reviewPathsOf } from '../../../lib/project/layout.js';
import { teacherFolderOf } from '../../../lib/review/teacher/teacherFolder.js';

describe('lib/review/teacher/teacherFolder', () => {
  it("keeps each lens's teacher in <teachers>/<lens>/: sessions/, consolidation.yaml, library_log.yaml, reviewer.json, lock/, spares/", () => {
    const paths = reviewPathsOf('/repo', {});
    assert.deepEqual(teacherFolderOf(paths, 'cto'), {
      dir: '/repo/.swarmforge/reviews/teachers/cto',
      sessions: '/repo/.swarmforge/reviews/teachers/cto/sessions',
      consolidation: '/repo/.swarmforge/reviews/teachers/cto/consolidation.yaml',
      libraryLog: '/repo/.swarmforge/reviews/teachers/cto/library_log.yaml',
      reviewerRecord: '/repo/.swarmforge/reviews/teachers/cto/reviewer.json',
      lock: '/repo/.swarmforge/reviews/teachers/cto/lock',
      spares: '/repo/.swarmforge/reviews/teachers/cto/spares',
    });
    assert.equal(teacherFolderOf(paths, 'coo').dir, '/repo/.swarmforge/reviews/teachers/coo');
  });
});
