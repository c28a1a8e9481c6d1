// The bench's resident-runner probe (bench/support/residentRunner.ts): its server answers each
// client through its own way in, each answer reaches the caller whole and once, and a client
// whose server is gone fails instead of hanging the bench.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { startResidentRunner } from '../../bench/support/residentRunner.js';
import { ownerEnv } from '../../bench/support/spawnNode.js';
import { tempDir } from '../support/project.js';

describe('the bench’s resident-runner probe', function () {
  let dir: string;
  beforeEach(() => (dir = tempDir('baton-runner-probe-')));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('answers the FIFO client and the socket client, each call once, leaving no answer file behind', async () => {
    const runner = await startResidentRunner(join(dir, 'runner'), ownerEnv());
    try {
      for (let call = 0; call < 3; call++) {
        await runner.fifoClient.run();
        await runner.socketClient.run();
      }
      assert.equal(fs.statSync(join(dir, 'runner', 'requests')).isFIFO(), true);
      assert.deepEqual(fs.readdirSync(join(dir, 'runner', 'answers')), []);
    } finally {
      await runner.stop();
    }
  });

  it('a client whose server has stopped fails at once, through either way in', async () => {
    const runner = await startResidentRunner(join(dir, 'runner'), ownerEnv());
    await runner.stop();
    await assert.rejects(() => Promise.resolve(runner.fifoClient.run()), /exit [1-9]/);
    await assert.rejects(() => Promise.resolve(runner.socketClient.run()), /exit [1-9]/);
  });
});
