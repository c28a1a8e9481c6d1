// Black-box tests of `baton review` on the built bin (docs/review.md §2–6): the whole life of
// a bead with a real handoffd carrying the requests and the result, and the invariants,
// refusals and bad input, each checked to change nothing.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { startHandoffd, stopHandoffd, waitFor, type DaemonChild } from '../support/daemon.js';
import { bundlesLoadedBy } from '../support/bundleProbe.js';
import { fixturePath, fixtureText } from '../support/fixtures.js';
import { itemsIn, makeProject, runBin, snapshot, type Project } from '../support/project.js';

const CONF = fixtureText('conf', 'review.conf');

describe('baton review (built bin)', function () {
  this.timeout(60_000);
  let p: Project;
  beforeEach(() => {
    p = makeProject(CONF);
    fs.writeFileSync(join(p.root, 'out.txt'), 'the work\n');
  });
  afterEach(() => p.cleanup());

  const review = (args: string[], role?: string) =>
    runBin('baton', ['review', ...args], { cwd: p.root, role });
  const reviews = () => join(p.root, '.swarmforge', 'reviews');
  const bookbag = (bead: string) =>
    JSON.parse(fs.readFileSync(join(reviews(), 'bookbag', `${bead}.json`), 'utf8')) as Record<
      string,
      unknown
    >;
  const submit = () => {
    const r = review(
      [
        'submit',
        '--task',
        'add the login form',
        '--output-file',
        'out.txt',
        '--difficulty',
        'easy',
      ],
      'coder',
    );
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^coder-general-[0-9a-f]{8}\n$/);
    return r.stdout.trim();
  };
  const headersOf = (path: string) =>
    Object.fromEntries(
      fs
        .readFileSync(path, 'utf8')
        .split('---\n')[1]!
        .split('\n')
        .filter(Boolean)
        .map((l) => [l.slice(0, l.indexOf(': ')), l.slice(l.indexOf(': ') + 2)]),
    );

  it("lives a whole life: WRITTEN with a signal and a request in each reviewer's inbox; CTO then COO; the result to the submitter; SCORED; DISPOSED and archived", async () => {
    let daemon: DaemonChild | undefined = await startHandoffd(p.root, ['--poll-interval', '100']);
    try {
      const bead = submit();
      assert.equal(bookbag(bead).state, 'WRITTEN');
      assert.ok(fs.existsSync(join(reviews(), 'signals', `${bead}.ready`)));
      await waitFor(
        "a request in each reviewer's inbox",
        () =>
          itemsIn(p.box('cto').inboxNew).length === 1 &&
          itemsIn(p.box('coo').inboxNew).length === 1,
      );
      for (const lens of ['cto', 'coo']) {
        const request = join(p.box(lens).inboxNew, itemsIn(p.box(lens).inboxNew)[0]!);
        assert.deepEqual(
          [
            headersOf(request).type,
            headersOf(request).bead,
            headersOf(request).lens,
            headersOf(request).from,
          ],
          ['review_request', bead, lens, 'coder'],
        );
      }
      const cto = review(
        ['verdict', bead, '--lens', 'cto', '--finding', 'LOW:style:a long line'],
        'cto',
      );
      assert.deepEqual(
        [cto.code, cto.stdout],
        [0, `VERDICT: ${bead} cto PASS score 98; state CTO_REVIEWED\n`],
      );
      assert.ok(
        fs.existsSync(join(reviews(), 'signals', `${bead}.ready`)),
        'the signal stays until the second verdict',
      );
      const coo = review(
        [
          'verdict',
          bead,
          '--lens',
          'coo',
          '--findings-file',
          fixturePath('review', 'findings-pass.json'),
        ],
        'coo',
      );
      assert.deepEqual(
        [coo.code, coo.stdout],
        [0, `VERDICT: ${bead} coo PASS score 98; state REVIEWED, accepted yes\n`],
      );
      const bag = bookbag(bead);
      assert.deepEqual(
        [bag.state, bag.accepted, bag.cto_score, bag.coo_summary],
        ['REVIEWED', true, 98, 'Looks complete.'],
      );
      assert.deepEqual(bag.findings, [
        { lens: 'cto', section: 'style', severity: 'LOW', description: 'a long line' },
        { lens: 'coo', section: 'docs', severity: 'LOW', description: 'a typo in the README' },
      ]);
      assert.equal(
        fs.existsSync(join(reviews(), 'signals', `${bead}.ready`)),
        false,
        'the signal is removed',
      );
      await waitFor(
        "the result in the submitter's inbox",
        () => itemsIn(p.box('coder').inboxNew).length === 1,
      );
      const result = headersOf(join(p.box('coder').inboxNew, itemsIn(p.box('coder').inboxNew)[0]!));
      assert.deepEqual(
        [
          result.type,
          result.bead,
          result.accepted,
          result.cto_verdict,
          result.coo_verdict,
          result.from,
        ],
        ['review_result', bead, 'true', 'PASS', 'PASS', 'coo'],
      );
      await stopHandoffd(p.root, daemon);
      daemon = undefined;
      assert.deepEqual(
        [review(['score', bead]).stdout, bookbag(bead).state],
        [`SCORED: ${bead} accepted yes (cto 98, coo 98)\n`, 'SCORED'],
      );
      const disposed = review(['dispose', bead]);
      assert.equal(
        disposed.stdout,
        `DISPOSED: ${bead} -> ${join(reviews(), 'archive', `${bead}.json`)}\n`,
      );
      assert.equal(fs.existsSync(join(reviews(), 'bookbag', `${bead}.json`)), false);
      assert.deepEqual(JSON.parse(review(['list', '--archived', '--json']).stdout), [
        { bead, state: 'DISPOSED', cto_verdict: 'PASS', coo_verdict: 'PASS', accepted: true },
      ]);
    } finally {
      if (daemon) await stopHandoffd(p.root, daemon);
    }
  });

  it('a FAIL verdict from a Markdown findings file makes the bead not accepted; wait prints both verdicts', () => {
    const bead = submit();
    assert.equal(
      review([
        'verdict',
        bead,
        '--lens',
        'cto',
        '--findings-file',
        fixturePath('review', 'findings-fail.md'),
      ]).code,
      0,
    );
    const waiting = review(['wait', bead, '--timeout', '0.2', '--poll-interval', '0.05']);
    assert.deepEqual(
      [waiting.code, waiting.stdout, waiting.stderr],
      [
        75,
        'cto: FAIL\ncoo: (empty)\n',
        `baton review: timed out waiting for both verdicts of ${bead}\n`,
      ],
    );
    assert.equal(review(['verdict', bead, '--lens', 'coo']).code, 0);
    assert.deepEqual(JSON.parse(review(['wait', bead, '--json']).stdout), {
      bead,
      cto_verdict: 'FAIL',
      coo_verdict: 'PASS',
    });
    const bag = bookbag(bead);
    assert.deepEqual([bag.state, bag.accepted, bag.cto_score], ['REVIEWED', false, 88]);
  });

  describe('refusals and bad input change nothing', () => {
    const unchanged = (args: string[], code: number, stderr: RegExp) => {
      const before = snapshot(join(p.root, '.swarmforge'));
      const r = review(args);
      assert.equal(r.code, code, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr.trimEnd(), stderr);
      assert.equal(r.stderr.trim().split('\n').length, 1, `one line: ${r.stderr}`);
      assert.deepEqual(
        snapshot(join(p.root, '.swarmforge')),
        before,
        `${args.join(' ')} changed nothing`,
      );
    };

    it('unknown lens, unknown bead, a bad bead name, a bad severity, a malformed findings file, a contradicted PASS: exit 2, one line', () => {
      const bead = submit();
      unchanged(
        ['verdict', bead, '--lens', 'cfo'],
        2,
        /^baton review: unknown lens 'cfo' \(cto or coo\)$/,
      );
      unchanged(
        ['verdict', 'coder-general-00000000', '--lens', 'cto'],
        2,
        /^baton: unknown bead: no bookbag '.*coder-general-00000000\.json'$/,
      );
      unchanged(
        ['verdict', '../etc', '--lens', 'cto'],
        2,
        /^baton review: invalid bead name '\.\.\/etc'/,
      );
      unchanged(
        ['verdict', bead, '--lens', 'cto', '--finding', 'SEVERE:x:y'],
        2,
        /^baton: unknown severity 'SEVERE'/,
      );
      unchanged(
        [
          'verdict',
          bead,
          '--lens',
          'cto',
          '--findings-file',
          fixturePath('review', 'findings-malformed.json'),
        ],
        2,
        /^baton: malformed findings file '.*findings-malformed\.json': unknown severity 'BLOCKER'/,
      );
      unchanged(
        [
          'verdict',
          bead,
          '--lens',
          'cto',
          '--findings-file',
          fixturePath('review', 'findings-contradiction.md'),
        ],
        2,
        /^baton: declared PASS contradicts the HIGH finding 'correctness: off by one in the loop'$/,
      );
      unchanged(
        [
          'verdict',
          bead,
          '--lens',
          'cto',
          '--verdict',
          'PASS',
          '--finding',
          'HIGH:security:a leak',
        ],
        2,
        /^baton: declared PASS contradicts the HIGH finding/,
      );
      unchanged(['list', '--state', 'DONE'], 2, /^baton review: unknown state 'DONE'/);
      unchanged(['score', bead], 2, /is WRITTEN, not REVIEWED/);
    });

    it('a verdict twice is refused; score on a SCORED bead is refused', () => {
      const bead = submit();
      assert.equal(review(['verdict', bead, '--lens', 'cto']).code, 0);
      unchanged(
        ['verdict', bead, '--lens', 'cto', '--finding', 'HIGH:x:y'],
        2,
        new RegExp(`^baton: cto verdict already recorded for ${bead}$`),
      );
      assert.equal(review(['verdict', bead, '--lens', 'coo']).code, 0);
      assert.equal(review(['score', bead]).code, 0);
      unchanged(['score', bead], 2, /is SCORED, not REVIEWED/);
    });

    it('a hand-edited accepted: true beside a FAIL is reported as inconsistent by show and validate, and refused for writes', () => {
      const bead = submit();
      assert.equal(
        review(['verdict', bead, '--lens', 'cto', '--finding', 'HIGH:security:a leak']).code,
        0,
      );
      assert.equal(review(['verdict', bead, '--lens', 'coo']).code, 0);
      const path = join(reviews(), 'bookbag', `${bead}.json`);
      fs.writeFileSync(path, JSON.stringify({ ...bookbag(bead), accepted: true }, null, 2));
      const show = review(['show', bead]);
      assert.equal(show.code, 2);
      assert.match(show.stdout, /^BEAD: /);
      assert.match(
        show.stderr,
        /inconsistent bookbag .*\n- accepted is true but both verdicts are not PASS\n/,
      );
      const validate = review(['validate', bead]);
      assert.equal(validate.code, 2);
      assert.match(validate.stderr, /accepted is true but both verdicts are not PASS/);
      const before = fs.readFileSync(path);
      const score = review(['score', bead]);
      assert.equal(score.code, 2);
      assert.match(score.stderr, /^baton: inconsistent bookbag '.*'\n- accepted is true/);
      assert.ok(fs.readFileSync(path).equals(before), 'nothing written');
      assert.deepEqual(
        JSON.parse(review(['list', '--json']).stdout).map((r: { state: string }) => r.state),
        ['INVALID'],
      );
    });

    it('an unknown property is refused on read (the schema has additionalProperties: false at every level)', () => {
      const bead = submit();
      const path = join(reviews(), 'bookbag', `${bead}.json`);
      fs.writeFileSync(path, JSON.stringify({ ...bookbag(bead), extra: 1 }));
      const show = review(['show', bead]);
      assert.equal(show.code, 2);
      assert.match(
        show.stderr,
        /invalid bookbag .*\n- \/ must NOT have additional properties 'extra'/,
      );
    });
  });

  it("verdict from a Markdown findings file: gray-matter's bundle, without its own YAML or esprima", () => {
    const bead = submit();
    const args = ['review', 'verdict', bead, '--lens', 'cto'];
    const findings = ['--findings-file', fixturePath('review', 'findings-fail.md')];
    const run = bundlesLoadedBy('baton', [...args, ...findings], { cwd: p.root, role: 'cto' });
    assert.equal(run.result.code, 0, run.result.stderr);
    assert.match(run.result.stdout, /^VERDICT: .* cto FAIL /);
    assert.deepEqual(run.bundles, [
      'baton.js',
      'baton-review-verdict.js',
      'baton-front-matter.js',
      'baton-yaml.js',
    ]);
    // js-yaml 3, which gray-matter brings for an engine Baton never uses, required esprima (280
    // KB, compiled from source through node:module) as it loaded.
    assert.ok(!run.builtins.includes('module'), run.builtins.join(' '));
  });

  it('verdict: a well-formed call loads only its own bundle (no yargs); --help, a missing --lens, an unknown or repeated option are read by yargs, with its words', () => {
    const bead = submit();
    const verdict = (args: string[]) =>
      bundlesLoadedBy('baton', ['review', 'verdict', ...args], { cwd: p.root, role: 'cto' });
    const fast = verdict([bead, '--lens', 'cto', '--finding', 'LOW:style:a long line', '--json']);
    assert.equal(fast.result.code, 0, fast.result.stderr);
    assert.deepEqual(fast.bundles, ['baton.js', 'baton-review-verdict.js']);
    assert.equal((JSON.parse(fast.result.stdout) as { cto_verdict: string }).cto_verdict, 'PASS');
    const before = snapshot(p.root);
    const help = verdict(['--help']);
    assert.equal(help.result.code, 0);
    assert.match(help.result.stdout, /^baton review verdict <bead>\n/);
    assert.match(help.result.stdout, /--findings-file/);
    for (const [args, words] of [
      [[bead], /^baton: Missing required argument: lens\n/],
      [[bead, '--lens', 'coo', '--bogus'], /^baton: Unknown arguments?: bogus\n/],
      [[bead, '--lens', 'coo', '--lens', 'cto'], /^baton review: unknown lens 'coo,cto'/],
      [[bead, 'extra', '--lens', 'coo'], /^baton: Unknown argument: extra\n/],
    ] as const) {
      const r = verdict([...args]);
      assert.deepEqual(r.bundles, ['baton.js', 'baton-review-verdict.js', 'baton-cli.js']);
      assert.match(r.result.stderr, words, args.join(' '));
      assert.notEqual(r.result.code, 0);
    }
    assert.deepEqual(snapshot(p.root), before, 'nothing changed');
  });
});
