// Concurrency of `baton review` on the built bin (docs/review.md §4): verdicts of both lenses
// released at one instant always both kept (and one result queued); a dead holder's lock
// (SIGKILLed, or a reused pid) taken over, by exactly one of eight waiters released
// together; a live holder never taken over (bounded wait, then exit 75, nothing written).
// The repetitions are short in `npm test` and full (200, 100) in `npm run soak`.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { fixtureText } from '../support/fixtures.js';
import {
  itemsIn,
  makeProject,
  runBin,
  runBinsTogether,
  snapshot,
  type Project,
} from '../support/project.js';
import { sizeFrom } from '../support/tier.js';

const VERDICT_RACES = sizeFrom('BATON_REVIEW_RACES', { short: 3, full: 200 });
const TAKEOVER_RACES = sizeFrom('BATON_REVIEW_TAKEOVERS', { short: 1, full: 100 });

describe('baton review concurrency (built bin)', function () {
  this.timeout(600_000);
  let p: Project;
  before(() => {
    p = makeProject(fixtureText('conf', 'review.conf'));
    fs.writeFileSync(join(p.root, 'out.txt'), 'the work\n');
  });
  after(() => p.cleanup());

  const submit = () =>
    runBin('baton', ['review', 'submit', '--task', 't', '--output-file', 'out.txt'], {
      cwd: p.root,
      role: 'coder',
    }).stdout.trim();
  const bookbag = (bead: string) =>
    JSON.parse(
      fs.readFileSync(join(p.root, '.swarmforge', 'reviews', 'bookbag', `${bead}.json`), 'utf8'),
    ) as Record<string, string>;
  const lockDir = (bead: string) => join(p.root, '.swarmforge', 'reviews', 'locks', `${bead}.lock`);
  const results = () => ['cto', 'coo'].flatMap((role) => itemsIn(p.box(role).outbox));

  it(`both lenses' verdicts released at one instant are both kept, and one result is queued (${VERDICT_RACES} races)`, async () => {
    for (let i = 0; i < VERDICT_RACES; i++) {
      const bead = submit();
      const before = results().length;
      const [cto, coo] = await runBinsTogether(
        ['cto', 'coo'].map((lens) => ({
          bin: 'baton',
          args: [
            'review',
            'verdict',
            bead,
            '--lens',
            lens,
            ...(lens === 'cto' ? ['--finding', 'HIGH:x:a bug'] : []),
          ],
          options: { cwd: p.root, role: lens },
        })),
      );
      assert.deepEqual([cto!.code, coo!.code], [0, 0], `${cto!.stderr}${coo!.stderr}`);
      const bag = bookbag(bead);
      assert.deepEqual(
        [bag.cto_verdict, bag.coo_verdict, bag.state],
        ['FAIL', 'PASS', 'REVIEWED'],
        `race ${i}`,
      );
      assert.equal(results().length, before + 1, `race ${i}: exactly one result`);
    }
  });

  /** A lock folder whose current generation names a holder that is not running: `pid` on this host, or our own pid with another start time. */
  const plantDeadHolder = (bead: string, pid: number, startTime: string) => {
    fs.mkdirSync(lockDir(bead), { recursive: true });
    const boot = fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    fs.writeFileSync(
      join(lockDir(bead), 'lock.7'),
      `${pid} ${startTime} ${boot} ${hostname().replace(/\s/g, '_')} 0011223344556677\n`,
    );
  };

  it(`eight waiters released together on a dead holder's lock: exactly one records the verdict, the others are refused, none waits out (${TAKEOVER_RACES} races)`, async () => {
    for (let i = 0; i < TAKEOVER_RACES; i++) {
      const bead = submit();
      const dead = spawn(process.execPath, ['-e', '0']);
      await new Promise((done) => dead.on('exit', done));
      plantDeadHolder(bead, dead.pid!, '1');
      const runs = await runBinsTogether(
        Array.from({ length: 8 }, (_, n) => ({
          bin: 'baton',
          args: [
            'review',
            'verdict',
            bead,
            '--lens',
            'cto',
            '--reviewer',
            `waiter-${n}`,
            '--lock-timeout',
            '30',
          ],
          options: { cwd: p.root },
        })),
      );
      const codes = runs.map((r) => r.code).sort();
      assert.deepEqual(codes, [0, 2, 2, 2, 2, 2, 2, 2], runs.map((r) => r.stderr).join(''));
      assert.ok(
        runs
          .filter((r) => r.code === 2)
          .every((r) => /cto verdict already recorded/.test(r.stderr)),
      );
      assert.equal(bookbag(bead).cto_reviewer, `waiter-${runs.findIndex((r) => r.code === 0)}`);
    }
  });

  it('a reused pid (a live process with the recorded pid but another start time) counts as dead', () => {
    const bead = submit();
    plantDeadHolder(bead, process.pid, '1');
    const r = runBin('baton', ['review', 'verdict', bead, '--lens', 'coo', '--lock-timeout', '5'], {
      cwd: p.root,
    });
    assert.equal(r.code, 0, r.stderr);
  });

  it("a SIGKILLed holder's lock is taken over; a live holder is never: the verdict waits, then exits 75 with nothing written", async () => {
    const bead = submit();
    const holder = spawn(
      process.execPath,
      ['--import', 'tsx', join('test', 'support', 'lockHolder.ts'), 'hold', lockDir(bead)],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    await new Promise<void>((held) =>
      holder.stdout.on('data', (b: Buffer) => b.toString().includes('HELD') && held()),
    );
    try {
      const before = snapshot(join(p.root, '.swarmforge', 'reviews', 'bookbag'));
      const t0 = Date.now();
      const busy = runBin(
        'baton',
        ['review', 'verdict', bead, '--lens', 'cto', '--lock-timeout', '0.5'],
        { cwd: p.root },
      );
      assert.equal(busy.code, 75, busy.stderr);
      assert.ok(Date.now() - t0 >= 500, 'it waited for the bounded time first');
      assert.match(
        busy.stderr,
        new RegExp(`^baton: lock busy '.*${bead}\\.lock': held by pid ${holder.pid}\\n$`),
      );
      assert.deepEqual(snapshot(join(p.root, '.swarmforge', 'reviews', 'bookbag')), before);
    } finally {
      holder.kill('SIGKILL');
      await new Promise((done) => holder.on('exit', done));
    }
    const taken = runBin(
      'baton',
      ['review', 'verdict', bead, '--lens', 'cto', '--lock-timeout', '5'],
      { cwd: p.root },
    );
    assert.equal(taken.code, 0, taken.stderr);
  });
});
