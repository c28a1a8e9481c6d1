// lib/project/agentObservation: a role's observation file written atomically under
// .swarmforge/agents/ and read back; a missing, malformed or foreign file reads as nothing.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { dirname } from 'node:path';
import {
  agentReportPathOf,
  readAgentReport,
  writeAgentReport,
} from '../../lib/project/agentObservation.js';
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
