// lib/run/controllerPhase: controller/phase.json (read, a fresh phase for a missing or
// unreadable file, an atomic 0600 write stamped with the time) and the controller's log.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { runPathsOf, type RunPaths } from '../../../lib/project/layout.js';
import {
  emptyPhase,
  logLine,
  readPhase,
  writePhase,
  type ControllerPhase,
} from '../../../lib/run/controller/controllerPhase.js';
import { tempDir } from '../../support/project.js';

describe('lib/run/controller/controllerPhase', () => {
  let root: string;
  let paths: RunPaths;
  const now = new Date('2030-01-01T00:00:00.000Z');
  beforeEach(() => {
    root = tempDir('baton-phase-');
    paths = runPathsOf(root, 'run-20300101T000000Z-a1b2c3');
    fs.mkdirSync(paths.dir, { recursive: true });
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  it('emptyPhase: DRIVING, nothing sent, received or handled, no question, stamped now', () => {
    assert.deepEqual(emptyPhase(now), {
      state: 'DRIVING',
      sent: [],
      replies: {},
      handled: [],
      question: null,
      updated_at: '2030-01-01T00:00:00.000Z',
    });
  });

  it('readPhase: a missing file, bad JSON, or a file of the wrong shape each read as a fresh phase', () => {
    assert.deepEqual(readPhase(paths, now), emptyPhase(now));
    fs.mkdirSync(join(paths.dir, 'controller'));
    fs.writeFileSync(paths.phase, '{not json');
    assert.deepEqual(readPhase(paths, now), emptyPhase(now));
    for (const bad of [
      { sent: 'x', handled: [], replies: {} },
      { sent: [], handled: {}, replies: {} },
      { sent: [], handled: [] },
    ]) {
      fs.writeFileSync(paths.phase, JSON.stringify(bad));
      assert.deepEqual(readPhase(paths, now), emptyPhase(now), JSON.stringify(bad));
    }
  });

  it('writePhase then readPhase: the same phase, updated_at set to the write time, mode 0600, no temp file left', () => {
    const phase: ControllerPhase = {
      state: 'WAITING_FOR_HUMAN_INPUT',
      sent: ['k1', 'k2'],
      replies: { k1: 'artifacts/a.md' },
      handled: ['id-1'],
      question: {
        text: 'why?',
        from: 'worker',
        stage: 'implementation',
        cycle: 1,
        since: '2030-01-01T00:00:00.000Z',
      },
      updated_at: 'old',
    };
    writePhase(paths, phase, new Date('2030-05-05T05:05:05.000Z'));
    assert.deepEqual(readPhase(paths), { ...phase, updated_at: '2030-05-05T05:05:05.000Z' });
    assert.equal(fs.statSync(paths.phase).mode & 0o777, 0o600);
    assert.deepEqual(fs.readdirSync(join(paths.dir, 'controller')), ['phase.json']);
    assert.ok(fs.readFileSync(paths.phase, 'utf8').endsWith('}\n'));
    writePhase(paths, emptyPhase(now), now);
    assert.deepEqual(readPhase(paths), emptyPhase(now));
  });

  it('logLine appends a timestamped line (0600); a log that cannot be written is ignored', () => {
    logLine(paths, 'SENT: one', new Date('2030-01-01T00:00:01.000Z'));
    logLine(paths, 'REPLY: two', new Date('2030-01-01T00:00:02.000Z'));
    assert.equal(
      fs.readFileSync(paths.controllerLog, 'utf8'),
      '2030-01-01T00:00:01.000Z SENT: one\n2030-01-01T00:00:02.000Z REPLY: two\n',
    );
    assert.equal(fs.statSync(paths.controllerLog).mode & 0o777, 0o600);
    const blocked = runPathsOf(root, 'run-20300101T000000Z-b1b2c3');
    fs.mkdirSync(blocked.dir, { recursive: true });
    fs.writeFileSync(join(blocked.dir, 'controller'), 'a file where the folder should be');
    assert.doesNotThrow(() => logLine(blocked, 'lost'));
  });
});
