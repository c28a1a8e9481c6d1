// Black-box tests of the import of SwarmForge reference-layout mail by the built `baton init`
// and `baton up`: the four-role pack's stopped swarm (fixtures/reference-mail) lands in the
// per-role mailboxes exactly once, the agents' commands then see it, what cannot be placed
// stays where it is and is reported with a fix, and a kill at every step of the import
// followed by a rerun ends with exactly one copy of every item.
import assert from 'node:assert/strict';
import { casesOf } from '../support/tier.js';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { afterPasses, startHandoffd, stopHandoffd, waitFor } from '../support/daemon.js';
import { fixturePath, fixtureText } from '../support/fixtures.js';
import {
  git,
  itemsIn,
  makeRepo,
  projectAt,
  runBin,
  runBinAsync,
  withProject,
  type Project,
  type RunResult,
} from '../support/project.js';
import {
  fourRolesImports,
  placeLegacyItem,
  placeProblemItem,
  referenceFolderOf,
  worktreeOf,
  writeFourRolesReferenceMail,
} from '../support/referenceMail.js';

const WORKTREES = ['master', 'coder', 'review', 'qa'];

/** Two roles sharing ROOT, one on its own worktree. */
const SHARED_ROOT_CONF =
  'window architect claude master\nwindow coder claude master\nwindow QA claude qa batch\n';

/** A repository holding the four-role pack (not initialised) whose worktrees hold the pack's stopped reference swarm. */
function fourRolesProject(): Project {
  const root = makeRepo(fixtureText('packs', 'four-roles', 'swarmforge', 'swarmforge.conf'));
  fs.cpSync(fixturePath('packs', 'four-roles', 'swarmforge'), join(root, 'swarmforge'), {
    recursive: true,
  });
  git(root, 'add', 'swarmforge');
  git(root, 'commit', '-q', '-m', 'pack');
  for (const name of WORKTREES.slice(1))
    git(root, 'worktree', 'add', '-q', '-b', name, worktreeOf(root, name));
  for (const name of WORKTREES) writeFourRolesReferenceMail(root, name);
  return projectAt(root);
}

/** Every `*.handoff` file under a folder, recursively. */
function handoffFilesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return (fs.readdirSync(dir, { recursive: true }) as string[])
    .filter((n) => n.endsWith('.handoff'))
    .map((n) => join(dir, n));
}

/** Every file under a folder whose name marks an import's temp file. */
function importTemps(dir: string): string[] {
  return (fs.readdirSync(dir, { recursive: true }) as string[]).filter((n) =>
    n.endsWith('.import.tmp'),
  );
}

/** The four-role import is complete and exact: one copy per item with the original's bytes, each original marked, no temp left. */
function assertImportedOnce(p: Project): void {
  const expected = fourRolesImports(p.root);
  for (const e of expected) {
    assert.equal(fs.existsSync(e.from), false, `${e.from} is still pending`);
    assert.ok(
      fs.readFileSync(e.fixture).equals(fs.readFileSync(e.marked)),
      `${e.marked} is not the original`,
    );
  }
  for (const role of ['architect', 'coder', 'reviewer', 'QA']) {
    const mine = expected.filter((e) => e.role === role);
    const held = handoffFilesUnder(p.box(role).dir)
      .map((f) => f.split('/').pop()!)
      .sort();
    assert.deepEqual(held, mine.map((e) => e.to.split('/').pop()!).sort(), `${role}'s mailbox`);
  }
  assert.deepEqual(importTemps(join(p.root, '.swarmforge')), [], 'temp files left behind');
}

function initAt(p: Project, env: Record<string, string | undefined> = {}): RunResult {
  return runBin('baton', ['init'], { cwd: p.root, env: { BATON_CRASH_AT: undefined, ...env } });
}

describe('baton init / up: import of SwarmForge reference-layout mail (built bin)', function () {
  this.timeout(60_000);

  it('baton init imports the pending mail of ROOT and every worktree into the role mailboxes, reporting each; a rerun imports nothing', () =>
    withProject(fourRolesProject(), (p) => {
      const r = initAt(p);
      assert.equal(r.code, 0, r.stderr);
      const imported = r.stdout.split('\n').filter((l) => l.startsWith('IMPORTED: '));
      assert.deepEqual(
        imported,
        fourRolesImports(p.root).map((e) => `IMPORTED: ${e.from} -> ${e.to}`),
      );
      for (const e of fourRolesImports(p.root))
        assert.ok(
          fs.readFileSync(e.fixture).equals(fs.readFileSync(e.to)),
          `${e.to} keeps the original's bytes`,
        );
      assertImportedOnce(p);
      const completed = join(
        referenceFolderOf(worktreeOf(p.root, 'review'), 'inbox/completed'),
        '50_20250613T170000Z_000001_from_coder_to_reviewer.handoff',
      );
      assert.ok(fs.existsSync(completed), 'history stays where it is');
      const again = initAt(p);
      assert.equal(again.code, 0, again.stderr);
      assert.doesNotMatch(again.stdout, /IMPORTED/);
      assertImportedOnce(p);
    }));

  it("after the import the agents' commands and handoffd see the mail: ready_for_next resumes it, handoffd delivers the outboxes once", () =>
    withProject(fourRolesProject(), async (p) => {
      assert.equal(initAt(p).code, 0);
      const coder = runBin('ready_for_next', [], { role: 'coder', cwd: p.root });
      assert.match(
        coder.stdout,
        /^TASK: .*\/coder\/inbox\/in_process\/50_20250614T091000Z_000002_from_architect_to_coder\.handoff\nFROM: architect\n/,
      );
      const qa = runBin('ready_for_next', [], { role: 'QA', cwd: p.root });
      assert.match(qa.stdout, /^BATCH: .*\nCOUNT: 2\nPRIORITY: 60\n/);
      const daemon = await startHandoffd(p.root);
      try {
        await waitFor(
          'both outboxes delivered',
          () =>
            itemsIn(p.box('architect').outbox).length + itemsIn(p.box('coder').outbox).length === 0,
        );
      } finally {
        await stopHandoffd(p.root, daemon);
      }
      assert.deepEqual(itemsIn(p.box('coder').inboxNew), [
        '50_20250614T090000Z_000001_from_architect_to_coder.handoff',
      ]);
      assert.deepEqual(
        itemsIn(p.box('reviewer').inboxNew),
        ['30_20250614T094000Z_000004_from_coder_to_reviewer_QA.handoff'],
        'the reviewer already held that id: no second copy',
      );
      assert.deepEqual(itemsIn(p.box('QA').inboxNew), [
        '30_20250614T094000Z_000004_from_coder_to_reviewer_QA.handoff',
      ]);
    }));

  it("three baton init run at once import every item exactly once (each role's import holds that mailbox's lock)", () =>
    withProject(fourRolesProject(), async (p) => {
      const runs = await Promise.all(
        [1, 2, 3].map(() =>
          runBinAsync('baton', ['init'], { cwd: p.root, env: { BATON_CRASH_AT: undefined } }),
        ),
      );
      assert.deepEqual(
        runs.map((r) => [r.code, r.stderr]),
        [
          [0, ''],
          [0, ''],
          [0, ''],
        ],
      );
      assertImportedOnce(p);
      assert.deepEqual(
        runs.filter((r) => r.stdout.includes('NOT IMPORTED')).map((r) => r.stdout),
        [],
        'a racing import saw its own copy as a clash',
      );
      const reported = runs.flatMap((r) =>
        r.stdout.split('\n').filter((l) => l.startsWith('IMPORTED: ')),
      );
      assert.deepEqual(
        [...new Set(reported)].sort(),
        fourRolesImports(p.root)
          .map((e) => `IMPORTED: ${e.from} -> ${e.to}`)
          .sort(),
      );
    }));

  it('--json lists the imported and the left items with their remedies', () =>
    withProject(fourRolesProject(), (p) => {
      const junk = placeProblemItem(p.root, 'inbox/new', 'no-id.handoff', '50_junk.handoff');
      const r = runBin('baton', ['init', '--json'], { cwd: p.root });
      assert.equal(r.code, 0, r.stderr);
      const out = JSON.parse(r.stdout) as {
        root: string;
        roles: { role: string }[];
        imported: { from: string; to: string; id: string; role: string }[];
        not_imported: { path: string; problem: string; remedy: string }[];
      };
      assert.equal(out.root, p.root);
      assert.deepEqual(
        out.roles.map((x) => x.role),
        ['architect', 'coder', 'reviewer', 'QA'],
      );
      assert.deepEqual(
        out.imported.map((i) => [i.from, i.to, i.role]),
        fourRolesImports(p.root).map((e) => [e.from, e.to, e.role]),
      );
      assert.equal(out.imported[0]!.id, '20250614T090000Z_000001_from_architect');
      assert.deepEqual(out.not_imported, [
        {
          path: junk,
          problem: 'unusable item: no id header',
          remedy:
            'give it a readable header with an id line (or move it out of the folder), then run baton init',
        },
      ]);
    }));

  it("leaves ambiguous and unusable items in place, says why on init's stdout, and doctor lists them with a fix", () =>
    withProject(projectAt(makeRepo(SHARED_ROOT_CONF)), (p) => {
      const root = p.root;
      const shared = placeProblemItem(
        root,
        'inbox/new',
        'no-recipient.handoff',
        '50_20250614T100000Z_000007_from_QA_to_architect_coder.handoff',
      );
      const foreign = placeProblemItem(
        worktreeOf(root, 'qa'),
        'inbox/new',
        'foreign-recipient.handoff',
        '50_20250614T100100Z_000008_from_QA_to_tester.handoff',
      );
      const sender = placeProblemItem(
        root,
        'outbox',
        'foreign-sender.handoff',
        '50_20250614T100200Z_000001_from_tester_to_coder.handoff',
      );
      const noId = placeProblemItem(root, 'inbox/in_process', 'no-id.handoff', '50_noid.handoff');
      const r = initAt(p);
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(
        r.stdout.split('\n').filter((l) => /^(NOT IMPORTED|IMPORTED|  fix)/.test(l)),
        [
          `NOT IMPORTED: ${sender}: from 'tester' is not a role of this worktree (roles here: architect, coder)`,
          '  fix: set its from header to the role it belongs to (one of architect, coder), then run baton init',
          `NOT IMPORTED: ${shared}: roles architect, coder share this worktree and no recipient header says whose it is`,
          '  fix: set its recipient header to the role it belongs to (one of architect, coder), then run baton init',
          `NOT IMPORTED: ${noId}: unusable item: no id header`,
          '  fix: give it a readable header with an id line (or move it out of the folder), then run baton init',
          `NOT IMPORTED: ${foreign}: recipient 'tester' is not a role of this worktree (roles here: QA)`,
          '  fix: set its recipient header to the role it belongs to (one of QA), then run baton init',
        ],
      );
      for (const path of [shared, foreign, sender, noId])
        assert.ok(fs.existsSync(path), `${path} stays in place`);
      assert.equal(runBin('ready_for_next', [], { role: 'coder', cwd: root }).stdout, 'NO_TASK\n');
      const doctor = runBin('baton', ['doctor', '--json'], { cwd: root });
      assert.equal(doctor.code, 2);
      const findings = (
        JSON.parse(doctor.stdout) as { findings: { path: string; kind: string; remedy: string }[] }
      ).findings;
      assert.deepEqual(
        findings.map((f) => [f.path, f.kind]),
        [
          [sender, 'reference-mail-ambiguous'],
          [shared, 'reference-mail-ambiguous'],
          [noId, 'reference-mail-unusable'],
          [foreign, 'reference-mail-ambiguous'],
        ],
      );
      fs.writeFileSync(
        shared,
        fs
          .readFileSync(shared, 'utf8')
          .replace('to: architect,coder\n', 'to: architect,coder\nrecipient: coder\n'),
      );
      const fixed = initAt(p);
      assert.match(
        fixed.stdout,
        new RegExp(
          `^IMPORTED: ${shared} -> ${p.box('coder').inboxNew}/50_20250614T100000Z_000007_from_QA_to_architect_coder\\.handoff$`,
          'm',
        ),
      );
    }));

  it('doctor reports mail waiting in a reference mailbox before baton init has imported it', () =>
    withProject(projectAt(makeRepo('window lead claude master\n')), (p) => {
      const root = p.root;
      assert.equal(initAt(p).code, 0);
      const waiting = placeLegacyItem(
        referenceFolderOf(root, 'inbox/new'),
        '50_20250614T110000Z_000001_from_lead_to_lead.handoff',
        {
          id: '20250614T110000Z_000001_from_lead',
          from: 'lead',
          to: 'lead',
          priority: '50',
          type: 'note',
          message: 'm',
        },
      );
      const doctor = runBin('baton', ['doctor'], { cwd: root });
      assert.deepEqual(
        [doctor.code, doctor.stdout],
        [
          2,
          `PROBLEM: ${waiting}: SwarmForge mail not imported yet (for lead, from the worktree's inbox/new/)\n  fix: run baton init (or baton up): it imports the item into ${p.box('lead').inboxNew}/\n`,
        ],
      );
      assert.equal(initAt(p).code, 0);
      assert.deepEqual(
        [runBin('baton', ['doctor'], { cwd: root }).stdout],
        ['OK: no problems found\n'],
      );
    }));

  it('baton up imports too, before handoffd starts: the imported outbox item is delivered', async () => {
    const root = makeRepo('window lead cat master\n');
    const p = projectAt(root);
    let socket = '';
    try {
      placeLegacyItem(
        referenceFolderOf(root, 'outbox'),
        '50_20250614T120000Z_000001_from_lead_to_lead.handoff',
        {
          id: '20250614T120000Z_000001_from_lead',
          from: 'lead',
          to: 'lead',
          priority: '50',
          type: 'note',
          message: 'm',
        },
      );
      const up = runBin('baton', ['up'], { cwd: root });
      assert.equal(up.code, 0, up.stderr);
      socket = fs.readFileSync(join(root, '.swarmforge', 'tmux-socket'), 'utf8').trim();
      await waitFor(
        'the imported handoff delivered',
        () => itemsIn(p.box('lead').inboxNew).length === 1,
      );
      assert.deepEqual(itemsIn(p.box('lead').sent), [
        '50_20250614T120000Z_000001_from_lead_to_lead.handoff',
      ]);
      assert.ok(
        fs.existsSync(
          join(
            referenceFolderOf(root, 'outbox'),
            '50_20250614T120000Z_000001_from_lead_to_lead.handoff.imported',
          ),
        ),
      );
    } finally {
      runBin('baton', ['down'], { cwd: root });
      if (socket) spawnSync('tmux', ['-S', socket, 'kill-server'], { stdio: 'ignore' });
      p.cleanup();
    }
  });

  describe('a kill at every step, then a rerun: exactly one copy of every item', () => {
    // Each step, with what the kill leaves of the item it interrupts: temp files, and originals marked (before it, plus it).
    const STEPS: [string, { temps: number; markedToo: number }][] = [
      ['deliver:copy-synced', { temps: 1, markedToo: 0 }],
      ['deliver:linked', { temps: 1, markedToo: 0 }],
      ['import:copied', { temps: 0, markedToo: 0 }],
      ['import:copy-synced', { temps: 0, markedToo: 0 }],
      ['import:marked', { temps: 0, markedToo: 1 }],
    ];
    // The first hit is an outbox item (the architect's), the second an inbox item, the sixth an
    // in-process batch item. npm test kills each step once, at one of the three in turn; npm run
    // soak at all three.
    for (const [i, [step, left]] of STEPS.entries()) {
      for (const nth of casesOf([1, 2, 6], (_, j) => j === i % 3)) {
        it(`${step}#${nth}`, () =>
          withProject(fourRolesProject(), (p) => {
            const killed = initAt(p, { BATON_CRASH_AT: `${step}#${nth}` });
            assert.equal(
              killed.signal,
              'SIGKILL',
              `init did not die at ${step}#${nth}: exit ${killed.code} ${killed.stderr}`,
            );
            assert.equal(
              importTemps(join(p.root, '.swarmforge')).length +
                importTemps(join(p.root, '.worktrees')).length,
              left.temps,
              'temp files at the kill',
            );
            assert.equal(
              fourRolesImports(p.root).filter((e) => fs.existsSync(e.marked)).length,
              nth - 1 + left.markedToo,
              'originals marked at the kill',
            );
            const rerun = initAt(p);
            assert.equal(rerun.code, 0, rerun.stderr);
            assertImportedOnce(p);
          }));
      }
    }

    it('a copy claimed by its agent (or delivered by handoffd) between the kill and the rerun is not imported again', () =>
      withProject(fourRolesProject(), async (p) => {
        assert.equal(initAt(p, { BATON_CRASH_AT: 'import:copy-synced#1' }).signal, 'SIGKILL');
        const daemon = await startHandoffd(p.root);
        try {
          await afterPasses(p.root);
        } finally {
          await stopHandoffd(p.root, daemon);
        }
        assert.deepEqual(itemsIn(p.box('architect').sent), [
          '50_20250614T090000Z_000001_from_architect_to_coder.handoff',
        ]);
        assert.equal(
          initAt(p, { BATON_CRASH_AT: 'import:copy-synced#1' }).signal,
          'SIGKILL',
          "killed after copying the architect's inbox item",
        );
        assert.match(
          runBin('ready_for_next', [], { role: 'architect', cwd: p.root }).stdout,
          /^TASK: .*40_20250614T093000Z_000003_from_coder_to_architect\.handoff\n/,
        );
        assert.equal(initAt(p).code, 0);
        assert.deepEqual(itemsIn(p.box('architect').outbox), []);
        assert.deepEqual(itemsIn(p.box('architect').inboxNew), []);
        assert.deepEqual(itemsIn(p.box('architect').inProcess), [
          '40_20250614T093000Z_000003_from_coder_to_architect.handoff',
        ]);
        assert.deepEqual(itemsIn(p.box('coder').inboxNew), [
          '50_20250614T090000Z_000001_from_architect_to_coder.handoff',
          '50_20250614T091000Z_000002_from_architect_to_coder.handoff',
        ]);
        for (const e of fourRolesImports(p.root))
          assert.ok(fs.existsSync(e.marked), `${e.from} marked`);
      }));
  });
});
