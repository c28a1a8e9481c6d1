// The queue command table of `baton` through the built bin: init, status, doctor and the
// agent synonyms (their behaviour is tested in test/bin; here: the table and its exits).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { QUEUE_COMMANDS } from '../../lib/cli/queueCommands.js';
import { makeProject, runBin, type Project } from '../support/project.js';

describe('lib/cli/queueCommands', function () {
  this.timeout(30_000);
  let p: Project;
  before(() => {
    p = makeProject();
  });
  after(() => p.cleanup());

  it('exports init, status, doctor, handoff, ready and done, each described in baton --help', () => {
    assert.deepEqual(
      QUEUE_COMMANDS.map((c) => c.command),
      ['init', 'status', 'doctor', 'handoff <draft>', 'ready', 'done [id]'],
    );
    const help = runBin('baton', ['--help'], { cwd: process.cwd() });
    for (const c of QUEUE_COMMANDS)
      assert.ok(help.stdout.includes(`baton ${c.command as string}`), c.command as string);
  });

  it('doctor: exit 0 and OK on a healthy project; exit 2 (problems found) with one PROBLEM line per finding', () => {
    const ok = runBin('baton', ['doctor'], { cwd: p.root });
    assert.deepEqual([ok.code, ok.stdout, ok.stderr], [0, 'OK: no problems found\n', '']);
    const junk = join(p.box('QA').inboxNew, '50_junk.handoff');
    fs.writeFileSync(junk, 'junk', { mode: 0o600 });
    try {
      const bad = runBin('baton', ['doctor', '--json'], { cwd: p.root });
      assert.equal(bad.code, 2);
      const report = JSON.parse(bad.stdout) as {
        findings: { path: string; problem: string }[];
        fixed: string[];
      };
      assert.deepEqual(
        report.findings.map((f) => f.path),
        [junk],
      );
    } finally {
      fs.rmSync(junk);
    }
  });

  it('the agent synonyms run as the agent commands do: ready with nothing waiting prints NO_TASK', () => {
    const r = runBin('baton', ['ready'], { cwd: p.root, role: 'reviewer' });
    assert.deepEqual([r.code, r.stdout, r.stderr], [0, 'NO_TASK\n', '']);
  });
});
