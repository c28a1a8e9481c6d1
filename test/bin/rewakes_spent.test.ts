// Black-box tests of mail that outlasts handoffd's re-wakes: a real handoffd with a tiny
// re-wake interval wakes an idle pane (cat on a private tmux server: it never claims) three
// times, then records the role as spent in health.json; the built `baton status`,
// `baton monitor` and `baton doctor` flag it without talking to the daemon, and stop when
// the mail is claimed or a new wake-up succeeds.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { daemonPathsOf } from '../../lib/project/layout.js';
import {
  daemonLog,
  endStarted,
  startHandoffd,
  startPanes,
  waitFor,
  type Started,
} from '../support/daemon.js';
import {
  makeProject,
  noteDraft,
  placeItem,
  runBin,
  writeDraft,
  type Project,
} from '../support/project.js';

const LINE = 'reviewer: mail unclaimed for 12 min, re-wakes spent';

interface Health {
  rewakes_spent?: Record<string, string>;
}

describe('mail unclaimed after every re-wake (built bins, real handoffd and tmux)', function () {
  this.timeout(60_000);
  let p: Project;
  const started: Started = {};

  const health = (): Health => {
    try {
      return JSON.parse(fs.readFileSync(daemonPathsOf(p.root).health, 'utf8')) as Health;
    } catch {
      return {};
    }
  };
  const rewakes = () =>
    daemonLog(p.root).filter((l) => / woke role=reviewer .*reason=rewake$/.test(l));
  const baton = (...args: string[]) => runBin('baton', args, { cwd: p.root });

  /**
   * A project whose reviewer holds one item delivered 12 min 15 s ago, an idle pane per role,
   * and handoffd re-waking every 0.1 s (the 2 s gap between wake-ups paces the three); waits
   * until health.json records reviewer as spent.
   */
  const spendRewakes = async () => {
    p = makeProject();
    const item = await placeItem(p.box('reviewer').inboxNew, {});
    const delivered = (Date.now() - (12 * 60 + 15) * 1000) / 1000;
    fs.utimesSync(item, delivered, delivered);
    started.panes = await startPanes(p.root, ['coder', 'reviewer', 'QA']);
    started.daemon = await startHandoffd(p.root, [
      '--poll-interval',
      '50',
      '--rewake-interval',
      '0.1',
      '--quiet',
    ]);
    await waitFor('reviewer recorded as spent', () => !!health().rewakes_spent?.reviewer, 30_000);
    assert.equal(rewakes().length, 3, 'spent after the third re-wake, not before');
    return item;
  };

  describe('the re-wakes spent on an idle pane', () => {
    let item: string;
    before(async () => {
      item = await spendRewakes();
    });
    after(async () => {
      await endStarted(started);
      p.cleanup();
    });

    it('baton status: the line under the table; --json: rewakes_spent and unclaimed_min', () => {
      const text = baton('status');
      assert.equal(text.code, 0, text.stderr);
      const lines = text.stdout.split('\n');
      assert.equal(lines.filter((l) => l === LINE).length, 1, text.stdout);
      assert.ok(lines.indexOf(LINE) > lines.findIndex((l) => l.startsWith('QA ')));
      assert.ok(!text.stdout.includes('coder: mail unclaimed'));
      const json = baton('status', '--json');
      assert.equal(json.code, 0, json.stderr);
      const roles = (JSON.parse(json.stdout) as { roles: Record<string, unknown>[] }).roles;
      assert.deepEqual(
        roles.map((r) => [r.role, r.rewakes_spent, r.unclaimed_min]),
        [
          ['coder', false, null],
          ['reviewer', true, 12],
          ['QA', false, null],
        ],
      );
    });

    it('baton monitor --once: the line; --json: the fields on the role', () => {
      const text = baton('monitor', '--once');
      assert.equal(text.code, 0, text.stderr);
      assert.equal(text.stdout.split('\n').filter((l) => l === LINE).length, 1, text.stdout);
      const json = baton('monitor', '--once', '--json');
      assert.equal(json.code, 0, json.stderr);
      const reviewer = (JSON.parse(json.stdout) as { roles: Record<string, unknown>[] }).roles.find(
        (r) => r.role === 'reviewer',
      )!;
      assert.deepEqual([reviewer.rewakes_spent, reviewer.unclaimed_min], [true, 12]);
    });

    it('baton doctor: a problem (exit 2) with its fix; --json: a rewakes-spent finding', () => {
      const text = baton('doctor');
      assert.equal(text.code, 2, text.stdout);
      assert.match(
        text.stdout,
        new RegExp(
          `^PROBLEM: ${p.box('reviewer').inboxNew}: ${LINE}\n  fix: look at reviewer's pane`,
          'm',
        ),
      );
      assert.ok(!text.stdout.includes('OK: no problems found'));
      const json = baton('doctor', '--json');
      assert.equal(json.code, 2);
      const findings = (JSON.parse(json.stdout) as { findings: Record<string, unknown>[] })
        .findings;
      assert.deepEqual(
        findings.map((f) => [f.kind, f.role, f.problem, f.rewakes_spent, f.unclaimed_min]),
        [['rewakes-spent', 'reviewer', LINE, true, 12]],
      );
    });

    it('a claim clears it: at once in every view, in health.json on the next pass', async () => {
      const claim = runBin('ready_for_next', [], { role: 'reviewer', cwd: p.root });
      assert.equal(claim.code, 0, claim.stderr);
      assert.ok(!fs.existsSync(item), 'claimed');
      assert.ok(!baton('status').stdout.includes('unclaimed'));
      assert.ok(!baton('monitor', '--once').stdout.includes('unclaimed'));
      const doctor = baton('doctor');
      // The panes run `cat`, not the configured claude and codex: doctor warns about their
      // hooks (lib/admin/hooklessAgents.ts), and finds no problem.
      assert.equal(doctor.code, 0);
      assert.deepEqual(
        doctor.stdout
          .split('\n')
          .filter((l) => /^[A-Z]+:/.test(l))
          .map((l) => l.split(':')[0]),
        ['WARNING', 'WARNING', 'WARNING', 'OK'],
      );
      assert.match(doctor.stdout, /\nOK: no problems found\n$/);
      await waitFor('the record cleared', () => health().rewakes_spent?.reviewer === undefined);
      assert.deepEqual(health().rewakes_spent, {});
    });
  });

  describe('a new wake-up', () => {
    after(async () => {
      await endStarted(started);
      p.cleanup();
    });

    it('a delivery wake-up that works clears it; mail outwaiting it is marked anew', async () => {
      await spendRewakes();
      const spentAt = health().rewakes_spent!.reviewer!;
      const draft = writeDraft(p.root, noteDraft('reviewer', 'more'), 'more.txt');
      const sent = runBin('swarm_handoff', [draft], { role: 'coder', cwd: p.root });
      assert.equal(sent.code, 0, sent.stderr);
      await waitFor('the delivery wake-up', () =>
        daemonLog(p.root).some((l) => / woke role=reviewer .*reason=delivery$/.test(l)),
      );
      // A mark keeps the time it was found until it goes; the 0.1 s interval runs out again at
      // once after the wake-up, so a later time says the wake-up lifted it.
      await waitFor('a new mark', () => {
        const at = health().rewakes_spent?.reviewer;
        return at !== undefined && at !== spentAt;
      });
      assert.ok(health().rewakes_spent!.reviewer! > spentAt);
      assert.equal(rewakes().length, 3, 'the delivery gave no new re-wakes');
    });
  });
});
