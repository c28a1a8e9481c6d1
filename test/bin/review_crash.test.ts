// Crash tests of `baton review submit` and `verdict` on the built bin (docs/review.md §5):
// SIGKILL at every write step (BATON_CRASH_AT), then a rerun of the command and `baton
// review resume` must end with one consistent bookbag, one request per lens and, once both
// verdicts are in, exactly one result; a second resume repairs nothing.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { casesOf } from '../support/tier.js';
import { join } from 'node:path';
import { fixtureText } from '../support/fixtures.js';
import { itemsIn, makeProject, runBin, type Project } from '../support/project.js';

const SUBMIT_STEPS = [
  'review:bookbag-written',
  'review:bookbag-synced',
  'review:signal-written',
  'send:sequence-saved',
  'system-send:temp-synced',
  'system-send:temp-synced#2',
  'system-send:published',
  'review:requested',
];
const VERDICT_STEPS = [
  'review:bookbag-written',
  'review:bookbag-synced',
  'system-send:temp-synced',
  'system-send:published',
  'review:result-queued',
];

describe('baton review crashes (built bin)', function () {
  this.timeout(120_000);
  let p: Project;
  beforeEach(() => {
    p = makeProject(fixtureText('conf', 'review.conf'));
    fs.writeFileSync(join(p.root, 'out.txt'), 'the work\n');
  });
  afterEach(() => p.cleanup());

  const review = (args: string[], role?: string, crashAt?: string) =>
    runBin('baton', ['review', ...args], { cwd: p.root, role, env: { BATON_CRASH_AT: crashAt } });
  const beads = () =>
    fs
      .readdirSync(join(p.root, '.swarmforge', 'reviews', 'bookbag'))
      .filter((n) => n.endsWith('.json'))
      .map((n) => n.slice(0, -5));
  const headers = (path: string) => fs.readFileSync(path, 'utf8');
  const requests = (lens: string) =>
    itemsIn(p.box('coder').outbox).filter((n) =>
      headers(join(p.box('coder').outbox, n)).includes(`\nlens: ${lens}\n`),
    );
  const results = () =>
    ['cto', 'coo'].flatMap((role) =>
      itemsIn(p.box(role).outbox).filter((n) =>
        headers(join(p.box(role).outbox, n)).includes('\ntype: review_result\n'),
      ),
    );
  const signal = (bead: string) =>
    fs.existsSync(join(p.root, '.swarmforge', 'reviews', 'signals', `${bead}.ready`));
  const resumeRepairsNothing = () => {
    const again = JSON.parse(review(['resume', '--json']).stdout) as { repaired: string[] }[];
    assert.deepEqual(
      again.flatMap((e) => e.repaired),
      [],
      'a second resume repairs nothing',
    );
  };

  // npm test: a crash in each of the submit's three parts, with both requests written and
  // neither queued, and after the last.
  for (const step of casesOf(SUBMIT_STEPS, (_, i) => i % 3 === 0 || i >= SUBMIT_STEPS.length - 3)) {
    it(`submit killed at ${step}: resume ends with one WRITTEN bookbag, its signal and one request per lens`, () => {
      const crashed = review(['submit', '--task', 't', '--output-file', 'out.txt'], 'coder', step);
      assert.equal(crashed.signal, 'SIGKILL', `died at ${step}: ${crashed.stderr}`);
      const resumed = review(['resume']);
      assert.equal(resumed.code, 0, resumed.stderr);
      assert.equal(beads().length, 1);
      const bead = beads()[0]!;
      assert.equal(review(['validate', bead]).code, 0);
      assert.match(review(['show', bead]).stdout, /STATE: WRITTEN/);
      assert.deepEqual([requests('cto').length, requests('coo').length], [1, 1]);
      assert.equal(signal(bead), true);
      resumeRepairsNothing();
    });
  }

  for (const step of casesOf(VERDICT_STEPS, (_, i) => i % 2 === 0)) {
    it(`the completing verdict killed at ${step}: a rerun and resume end REVIEWED with exactly one result and no signal`, () => {
      const bead = review(
        ['submit', '--task', 't', '--output-file', 'out.txt'],
        'coder',
      ).stdout.trim();
      assert.equal(review(['verdict', bead, '--lens', 'cto']).code, 0);
      const crashed = review(
        ['verdict', bead, '--lens', 'coo', '--finding', 'HIGH:x:y'],
        'coo',
        step,
      );
      assert.equal(crashed.signal, 'SIGKILL', `died at ${step}: ${crashed.stderr}`);
      const rerun = review(['verdict', bead, '--lens', 'coo', '--finding', 'HIGH:x:y'], 'coo');
      assert.ok(
        rerun.code === 0 || /coo verdict already recorded/.test(rerun.stderr),
        rerun.stderr,
      );
      assert.equal(review(['resume']).code, 0);
      assert.equal(review(['validate', bead]).code, 0);
      assert.match(review(['show', bead]).stdout, /STATE: REVIEWED\n[\s\S]*COO: FAIL/);
      assert.equal(results().length, 1, 'exactly one result');
      assert.deepEqual([requests('cto').length, requests('coo').length], [1, 1]);
      assert.equal(signal(bead), false);
      resumeRepairsNothing();
    });
  }

  it('the first verdict killed after its write: the rerun is refused, resume queues nothing, no result yet', () => {
    const bead = review(
      ['submit', '--task', 't', '--output-file', 'out.txt'],
      'coder',
    ).stdout.trim();
    assert.equal(
      review(['verdict', bead, '--lens', 'cto'], 'cto', 'review:bookbag-synced').signal,
      'SIGKILL',
    );
    assert.match(review(['verdict', bead, '--lens', 'cto']).stderr, /cto verdict already recorded/);
    assert.deepEqual(JSON.parse(review(['resume', '--json']).stdout), [
      { bead, state: 'CTO_REVIEWED', waits_for: ['coo verdict from coo'], repaired: [] },
    ]);
    assert.equal(results().length, 0);
    assert.equal(signal(bead), true);
  });
});
