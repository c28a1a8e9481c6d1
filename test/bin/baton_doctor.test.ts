// Black-box tests of the built `baton doctor`: a remedy for every finding (text and --json),
// and the mailbox of a role removed from swarmforge.conf that still holds work.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { copyFixture } from '../support/fixtures.js';
import { makeProject, placeItem, runBin, withProject } from '../support/project.js';
import { placeLegacyItem, referenceFolderOf } from '../support/referenceMail.js';

interface Finding {
  path: string;
  problem: string;
  kind: string;
  remedy: string;
  role?: string;
}

describe('baton doctor (built bin)', function () {
  this.timeout(60_000);

  it('names a remedy for each finding: a "  fix:" line under each PROBLEM line, a remedy field in --json; --fix still removes only stale temp files', () =>
    withProject(makeProject(), async (p) => {
      const box = p.box('reviewer');
      await placeItem(box.inProcess, {});
      await placeItem(box.inProcess, {});
      const junk = copyFixture(
        join(box.inboxNew, '50_junk.handoff'),
        'handoffs',
        'unusable',
        'no-id.handoff',
      );
      fs.chmodSync(box.sent, 0o755);
      const stale = join(box.outboxTmp, '50_old.handoff.tmp');
      fs.writeFileSync(stale, 'x');
      const old = new Date(Date.now() - 40 * 3600_000);
      fs.utimesSync(stale, old, old);
      const json = runBin('baton', ['doctor', '--json'], { cwd: p.root });
      assert.equal(json.code, 2);
      const findings = (JSON.parse(json.stdout) as { findings: Finding[] }).findings;
      assert.deepEqual(findings.map((f) => f.kind).sort(), [
        'folder-mode',
        'several-in-process',
        'stale-temp',
        'unusable-item',
      ]);
      assert.deepEqual(
        findings.find((f) => f.path === junk)!.remedy,
        'readers skip it: give it a readable header with an id line, or move it out of the mailbox',
      );
      assert.deepEqual(
        findings.find((f) => f.path === box.sent)!.remedy,
        `chmod 700 '${box.sent}'`,
      );
      const text = runBin('baton', ['doctor'], { cwd: p.root });
      assert.equal(text.code, 2);
      assert.equal(
        text.stdout,
        findings.map((f) => `PROBLEM: ${f.path}: ${f.problem}\n  fix: ${f.remedy}\n`).join(''),
      );
      const fixed = runBin('baton', ['doctor', '--fix'], { cwd: p.root });
      assert.equal(fixed.code, 2);
      assert.match(fixed.stdout, new RegExp(`^REMOVED: ${stale}\nPROBLEM: `));
      assert.ok(fs.existsSync(junk), '--fix touches no item');
      assert.equal(fs.statSync(box.sent).mode & 0o777, 0o755, '--fix changes no mode');
    }));

  it('lists the mailbox of a role removed from swarmforge.conf that still holds work, and not the reference folders beside it', () =>
    withProject(makeProject(), async (p) => {
      const qa = p.box('QA');
      await placeItem(qa.outbox, {});
      await placeItem(qa.inboxNew, {});
      await placeItem(join(qa.inProcess, 'batch_20260101T000000Z_000001'), {});
      for (const folder of ['sent', 'failed', 'inbox/completed'] as const)
        placeLegacyItem(referenceFolderOf(p.root, folder), '50_old.handoff', {
          id: 'o',
          from: 'coder',
          to: 'reviewer',
        });
      const before = JSON.parse(runBin('baton', ['doctor', '--json'], { cwd: p.root }).stdout) as {
        findings: Finding[];
      };
      assert.deepEqual(
        before.findings.map((f) => [f.kind, f.path]),
        [['daemon-not-running', qa.outbox]],
        'while QA is configured',
      );
      fs.writeFileSync(
        join(p.root, 'swarmforge', 'swarmforge.conf'),
        'window coder claude master\nwindow reviewer codex review\n',
      );
      assert.equal(runBin('baton', ['init'], { cwd: p.root }).code, 0);
      const r = runBin('baton', ['doctor'], { cwd: p.root });
      assert.deepEqual(
        [r.code, r.stdout],
        [
          2,
          `PROBLEM: ${qa.dir}: role QA is not in roles.tsv, but its mailbox holds 1 in outbox, 1 waiting, 1 in process: nothing delivers, wakes or lists them\n` +
            `  fix: add a window line for QA back to ${join(p.root, 'swarmforge', 'swarmforge.conf')} and run baton init, or move its waiting items by hand into a configured role's inbox/new/\n`,
        ],
      );
      const json = JSON.parse(runBin('baton', ['doctor', '--json'], { cwd: p.root }).stdout) as {
        findings: Finding[];
      };
      assert.deepEqual(
        json.findings.map((f) => [f.kind, f.role, f.path]),
        [['unconfigured-role', 'QA', qa.dir]],
      );
    }));
});
