import assert from 'node:assert/strict';
import { makeProject, runBin, writeDraft, noteDraft, deliver } from '../support/project.js';

describe('smoke', () => {
  it('sends, delivers, claims and completes one note', async () => {
    const p = makeProject();
    try {
      const sent = runBin('swarm_handoff', [writeDraft(p.root, noteDraft('reviewer'))], { role: 'coder', cwd: p.root });
      assert.equal(sent.code, 0, sent.stderr);
      await deliver(p, sent.stdout.replace('HANDOFF QUEUED: ', '').trim());
      const ready = runBin('ready_for_next', [], { role: 'reviewer', cwd: p.root });
      assert.match(ready.stdout, /^TASK: /);
      const done = runBin('done_with_current', [], { role: 'reviewer', cwd: p.root });
      assert.match(done.stdout, /^COMPLETED: .*\nNO_TASK\n$/);
    } finally {
      p.cleanup();
    }
  });
});
