import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { startHandoffd, stopHandoffd, waitFor, type DaemonChild } from '../support/daemon.js';
import { makeProject, runBin, writeDraft, noteDraft } from '../support/project.js';

describe('smoke', () => {
  it('sends, delivers, claims and completes one note', async () => {
    const p = makeProject();
    let daemon: DaemonChild | undefined;
    try {
      daemon = await startHandoffd(p.root, ['--poll-interval', '200']);
      const sent = runBin('swarm_handoff', [writeDraft(p.root, noteDraft('reviewer'))], {
        role: 'coder',
        cwd: p.root,
      });
      assert.equal(sent.code, 0, sent.stderr);
      const name = sent.stdout.replace('HANDOFF QUEUED: ', '').trim().split('/').pop()!;
      await waitFor(
        'the delivery',
        () =>
          fs.existsSync(join(p.box('reviewer').inboxNew, name)) &&
          fs.existsSync(join(p.box('coder').sent, name)),
      );
      const ready = runBin('ready_for_next', [], { role: 'reviewer', cwd: p.root });
      assert.match(ready.stdout, /^TASK: /);
      const done = runBin('done_with_current', [], { role: 'reviewer', cwd: p.root });
      assert.match(done.stdout, /^COMPLETED: .*\nNO_TASK\n$/);
      assert.equal(await stopHandoffd(p.root, daemon), 0, daemon.stderr());
    } finally {
      if (daemon?.child.exitCode === null) daemon.child.kill('SIGKILL');
      await daemon?.exited;
      p.cleanup();
    }
  });
});
