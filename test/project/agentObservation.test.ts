// lib/project/agentObservation: a role's observation file written atomically under
// .swarmforge/agents/ and read back; a missing, malformed or foreign file reads as nothing.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { dirname, join } from 'node:path';
import {
  agentReportPathOf,
  readAgentReport,
  writeAgentReport,
} from '../../lib/project/agentObservation.js';
import { durableStepsOf } from '../support/durability.js';
import { tempDir } from '../support/project.js';

describe('lib/project/agentObservation', () => {
  let root: string;
  beforeEach(() => (root = tempDir()));
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  it('writes .swarmforge/agents/<role>.json and reads it back', () => {
    const report = {
      state: 'idle',
      at: '2030-01-01T00:00:00.000Z',
      session_id: 's',
      event: 'Stop',
    };
    writeAgentReport(root, 'coder', report as Parameters<typeof writeAgentReport>[2]);
    assert.equal(agentReportPathOf(root, 'coder'), `${root}/.swarmforge/agents/coder.json`);
    assert.deepEqual(readAgentReport(root, 'coder'), report);
    assert.deepEqual(fs.readdirSync(dirname(agentReportPathOf(root, 'coder'))), ['coder.json']);
  });

  it('is replaced by a rename and never fsync’d (an observation a crash may lose: issue 22); a symlink in its place is refused', async () => {
    const report = { state: 'working', at: '2030-01-01T00:00:00.000Z', session_id: '', event: 'x' };
    const write = () =>
      writeAgentReport(root, 'coder', report as Parameters<typeof writeAgentReport>[2]);
    write();
    const steps = await durableStepsOf(root, write);
    assert.equal(steps.length, 1, steps.join('\n'));
    assert.match(
      steps[0]!,
      /^rename \.swarmforge\/agents\/coder\.json\.\d+\.\d+\.tmp -> \.swarmforge\/agents\/coder\.json$/,
    );
    assert.equal(fs.statSync(agentReportPathOf(root, 'coder')).mode & 0o777, 0o600);
    fs.rmSync(agentReportPathOf(root, 'coder'));
    fs.symlinkSync(join(root, 'elsewhere'), agentReportPathOf(root, 'coder'));
    assert.throws(write, /refusing to use a symlink/);
    assert.equal(fs.existsSync(join(root, 'elsewhere')), false);
    assert.deepEqual(fs.readdirSync(dirname(agentReportPathOf(root, 'coder'))), ['coder.json']);
  });

  it('reads nothing from a missing, malformed or foreign file', () => {
    assert.equal(readAgentReport(root, 'coder'), undefined);
    fs.mkdirSync(dirname(agentReportPathOf(root, 'coder')), { recursive: true });
    for (const text of [
      '{',
      '[]',
      '{"state":"asleep","at":"2030-01-01T00:00:00Z"}',
      '{"state":"idle"}',
    ]) {
      fs.writeFileSync(agentReportPathOf(root, 'coder'), text);
      assert.equal(readAgentReport(root, 'coder'), undefined, text);
    }
  });
});
