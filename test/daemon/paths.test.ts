import assert from 'node:assert/strict';
import { daemonPathsOf } from '../../lib/daemon/paths.js';

describe('lib/daemon/paths', () => {
  it('puts every daemon file under ROOT/.swarmforge/daemon/', () => {
    assert.deepEqual(daemonPathsOf('/r'), {
      dir: '/r/.swarmforge/daemon',
      pid: '/r/.swarmforge/daemon/handoffd.pid',
      log: '/r/.swarmforge/daemon/handoffd.log',
      stop: '/r/.swarmforge/daemon/stop',
      tmp: '/r/.swarmforge/daemon/tmp',
      lock: '/r/.swarmforge/daemon/lock',
      health: '/r/.swarmforge/daemon/health.json',
    });
  });
});
