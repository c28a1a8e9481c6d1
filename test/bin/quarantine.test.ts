// Black-box tests of the quarantine of unusable inbox entries (docs/swarmforge.md, "Differences"): the
// built ready_for_next, done_with_current and handoffd move an entry of inbox/new/ that
// can never be handed out into inbox/bad/ at its first sight, with <name>.error beside it,
// report it once with its name and reason made printable, never count it as mail, and a
// kill at any step of the move followed by a rerun leaves it in exactly one place.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { WAKE_TEXT } from '../../lib/daemon/waker.js';
import { parseLogLine } from '../../lib/project/daemonRecord.js';
import {
  afterPasses,
  daemonLog,
  endStarted,
  startHandoffd,
  startPanes,
  waitFor,
  type Started,
} from '../support/daemon.js';
import { copyFixture } from '../support/fixtures.js';
import {
  itemsIn,
  makeProject,
  placeItem,
  runBin,
  type Project,
  type RunResult,
} from '../support/project.js';

/** The reason readItem gives for fixtures/handoffs/unusable/control-bytes.handoff, made printable. */
const CONTROL_REASON =
  "unreadable header line '\\u001b]0;pwned\\u0007\\u001b[2J\\u001b[31mred\\u202etxt'";
const NON_PRINTABLE = /[\x00-\x09\x0b-\x1f\x7f\u202e]/;
const STEPS = ['quarantine:error-temp-synced', 'quarantine:error-synced', 'quarantine:moved'];

describe('quarantine of unusable inbox entries (built bins)', function () {
  this.timeout(60_000);
  const started: Started = {};
  let p: Project;
  beforeEach(() => (p = makeProject()));
  afterEach(async () => {
    await endStarted(started);
    p.cleanup();
  });

  const run = (bin: string, role: string, args: string[] = [], crashAt?: string): RunResult =>
    runBin(bin, args, { role, cwd: p.root, env: { BATON_CRASH_AT: crashAt } });
  const junkIn = (role: string, name = '00_junk.handoff') =>
    copyFixture(join(p.box(role).inboxNew, name), 'handoffs', 'unusable', 'control-bytes.handoff');
  const events = (event: string) =>
    daemonLog(p.root)
      .map((l) => parseLogLine(l)!)
      .filter((e) => e.event === event);

  /** The entry is in bad/ exactly once with its .error, and nowhere in the inbox; nothing half-written is left. */
  function quarantinedOnce(role: string, name: string, reason: string): void {
    const box = p.box(role);
    assert.deepEqual(
      fs.readdirSync(box.bad).sort(),
      [name, `${name}.error`],
      'bad/ holds the entry and its reason, nothing else',
    );
    assert.equal(fs.readFileSync(join(box.bad, `${name}.error`), 'utf8'), `${reason}\n`);
    for (const dir of [box.inboxNew, box.inProcess, box.completed])
      assert.ok(!fs.readdirSync(dir).includes(name), `${name} is still in ${dir}`);
  }

  it('ready_for_next: one printable `quarantined` line, NO_TASK, the entry and its .error in inbox/bad/; silent the next time', () => {
    const box = p.box('reviewer');
    const junk = junkIn('reviewer');
    const first = run('ready_for_next', 'reviewer');
    assert.deepEqual([first.code, first.stdout], [0, 'NO_TASK\n']);
    assert.equal(
      first.stderr,
      `quarantined ${junk} -> ${join(box.bad, '00_junk.handoff')}: ${CONTROL_REASON}\n`,
    );
    assert.doesNotMatch(first.stderr, NON_PRINTABLE);
    quarantinedOnce('reviewer', '00_junk.handoff', CONTROL_REASON);
    const again = run('ready_for_next', 'reviewer');
    assert.deepEqual([again.code, again.stdout, again.stderr], [0, 'NO_TASK\n', '']);
  });

  it('done_with_current quarantines what it meets when it claims the next item; baton doctor does not count bad/ as a problem', async () => {
    const box = p.box('QA');
    const a = await placeItem(box.inboxNew, { priority: '10', to: 'QA', recipient: 'QA' });
    assert.equal(run('ready_for_next', 'QA').code, 0);
    const junk = junkIn('QA', '10_junk.handoff');
    const done = run('done_with_current', 'QA');
    assert.equal(done.code, 0, done.stderr);
    assert.match(
      done.stdout,
      new RegExp(`^COMPLETED: .*${a.split('/').pop()}\\nCOMPLETED_BATCH: .*\\nNO_TASK\\n$`),
    );
    assert.equal(
      done.stderr,
      `quarantined ${junk} -> ${join(box.bad, '10_junk.handoff')}: ${CONTROL_REASON}\n`,
    );
    const doctor = runBin('baton', ['doctor'], { cwd: p.root });
    assert.deepEqual(
      [doctor.code, doctor.stdout, doctor.stderr],
      [0, 'OK: no problems found\n', ''],
    );
  });

  it('an entry whose name is not valid UTF-8 no longer fails every claim: it is quarantined under its decoded name', async () => {
    const box = p.box('reviewer');
    fs.writeFileSync(
      Buffer.concat([
        Buffer.from(`${box.inboxNew}/00_`),
        Buffer.from([0xff]),
        Buffer.from('odd.handoff'),
      ]),
      'whatever',
    );
    const good = await placeItem(box.inboxNew, { priority: '50' });
    const r = run('ready_for_next', 'reviewer');
    assert.equal(r.code, 0, r.stderr);
    assert.ok(
      r.stdout.startsWith(`TASK: ${join(box.inProcess, good.split('/').pop()!)}\n`),
      r.stdout,
    );
    assert.equal(
      r.stderr,
      `quarantined ${join(box.inboxNew, '00_\ufffdodd.handoff')} -> ${join(box.bad, '00_\ufffdodd.handoff')}: name is not valid UTF-8\n`,
    );
    quarantinedOnce('reviewer', '00_\ufffdodd.handoff', 'name is not valid UTF-8');
  });

  it('a name clash in bad/ keeps both: the newcomer gets .1 and its own .error', () => {
    junkIn('reviewer');
    run('ready_for_next', 'reviewer');
    const second = copyFixture(
      join(p.box('reviewer').inboxNew, '00_junk.handoff'),
      'handoffs',
      'unusable',
      'no-id.handoff',
    );
    const r = run('ready_for_next', 'reviewer');
    assert.equal(
      r.stderr,
      `quarantined ${second} -> ${join(p.box('reviewer').bad, '00_junk.1.handoff')}: no id header\n`,
    );
    assert.deepEqual(fs.readdirSync(p.box('reviewer').bad).sort(), [
      '00_junk.1.handoff',
      '00_junk.1.handoff.error',
      '00_junk.handoff',
      '00_junk.handoff.error',
    ]);
  });

  it('handoffd never wakes for an unusable entry: it quarantines it (logged) while a real item gets its re-wake', async () => {
    const tmux = await startPanes(p.root, ['coder', 'reviewer', 'QA']);
    started.panes = tmux;
    junkIn('reviewer');
    await placeItem(p.box('QA').inboxNew, { to: 'QA', recipient: 'QA' });
    const daemon = await startHandoffd(p.root, [
      '--poll-interval',
      '100',
      '--rewake-interval',
      '1',
    ]);
    started.daemon = daemon;
    await waitFor(
      'a re-wake of QA',
      () => events('woke').some((e) => e.details.role === 'QA' && e.details.reason === 'rewake'),
      15_000,
    );
    assert.deepEqual(
      events('woke').filter((e) => e.details.role === 'reviewer'),
      [],
      'reviewer has no mail to be woken for',
    );
    assert.equal(
      (await tmux.tmux.capturePane(tmux.panes.get('reviewer')!)).includes(WAKE_TEXT),
      false,
    );
    quarantinedOnce('reviewer', '00_junk.handoff', CONTROL_REASON);
    assert.deepEqual(
      events('quarantined').map((e) => e.details),
      [
        {
          role: 'reviewer',
          name: '00_junk.handoff',
          reason: "unreadable header line '\x1b]0;pwned\x07\x1b[2J\x1b[31mred\u202etxt'",
          to: join(p.box('reviewer').bad, '00_junk.handoff'),
        },
      ],
    );
    assert.doesNotMatch(
      daemon.stderr(),
      NON_PRINTABLE,
      'the foreground log on stderr is printable',
    );
  });

  describe('a kill at each step of the move, then a rerun: the entry ends in exactly one place', () => {
    /** Where the entry is right after the kill at `step`. */
    function afterKill(role: string, step: string): void {
      const box = p.box(role);
      const moved = step === 'quarantine:moved';
      assert.equal(
        fs.existsSync(join(box.inboxNew, '00_junk.handoff')),
        !moved,
        'in new/ until the rename',
      );
      assert.equal(fs.existsSync(join(box.bad, '00_junk.handoff')), moved, 'in bad/ after it');
      assert.equal(
        fs.existsSync(join(box.bad, '00_junk.handoff.error')),
        step !== 'quarantine:error-temp-synced',
        'the .error comes before the move',
      );
    }

    for (const step of STEPS) {
      it(`ready_for_next killed at ${step}, then run again`, async () => {
        junkIn('reviewer');
        const good = await placeItem(p.box('reviewer').inboxNew, { priority: '50' });
        const killed = run('ready_for_next', 'reviewer', [], step);
        assert.deepEqual([killed.signal, killed.stdout], ['SIGKILL', '']);
        afterKill('reviewer', step);
        const rerun = run('ready_for_next', 'reviewer');
        assert.equal(rerun.code, 0, rerun.stderr);
        assert.ok(
          rerun.stdout.startsWith(
            `TASK: ${join(p.box('reviewer').inProcess, good.split('/').pop()!)}\n`,
          ),
          rerun.stdout,
        );
        quarantinedOnce('reviewer', '00_junk.handoff', CONTROL_REASON);
        assert.deepEqual(itemsIn(p.box('reviewer').inboxNew), []);
      });

      it(`done_with_current killed at ${step}, then ready_for_next`, async () => {
        const a = await placeItem(p.box('reviewer').inboxNew, { priority: '10' });
        run('ready_for_next', 'reviewer');
        junkIn('reviewer');
        const killed = run('done_with_current', 'reviewer', [], step);
        assert.deepEqual([killed.signal, killed.stdout], ['SIGKILL', '']);
        afterKill('reviewer', step);
        const rerun = run('ready_for_next', 'reviewer');
        assert.deepEqual([rerun.code, rerun.stdout], [0, 'NO_TASK\n']);
        quarantinedOnce('reviewer', '00_junk.handoff', CONTROL_REASON);
        assert.deepEqual(itemsIn(p.box('reviewer').completed), [a.split('/').pop()]);
      });

      it(`handoffd killed at ${step}, then restarted`, async () => {
        junkIn('reviewer');
        const killed = await startHandoffd(p.root, ['--poll-interval', '100'], {
          BATON_CRASH_AT: step,
        });
        started.daemon = killed;
        await waitFor(
          `handoffd to die at ${step}`,
          () => killed.child.exitCode !== null || killed.child.signalCode !== null,
        );
        assert.equal(killed.child.signalCode, 'SIGKILL', 'killed by the crash point');
        afterKill('reviewer', step);
        started.daemon = await startHandoffd(p.root, ['--poll-interval', '100']);
        if (step === 'quarantine:moved') await afterPasses(p.root, 3);
        else await waitFor('the quarantine, logged', () => events('quarantined').length === 1);
        quarantinedOnce('reviewer', '00_junk.handoff', CONTROL_REASON);
      });
    }
  });
});
