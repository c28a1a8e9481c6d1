import assert from 'node:assert/strict';
import { DaemonAlreadyRunning } from '../../lib/daemon/alreadyRunning.js';

describe('lib/daemon/alreadyRunning', () => {
  it("names the running daemon's pid in the one form both handoffd and baton daemon start print", () => {
    const err = new DaemonAlreadyRunning(4242);
    assert.ok(err instanceof Error);
    assert.equal(err.pid, 4242);
    assert.equal(err.message, 'handoffd: already running as pid 4242');
  });
});
