// Black-box: `baton gc` (docs/runtime.md §12.6) on a project holding items of every kind and
// age: exactly the old finished ones are removed (completed, sent and failed mail, terminal
// runs, disposed bookbags in the archive, ended leaves, library-log entries); live work
// (new/, in_process/, outboxes, an active run, a live bookbag, a copy whose original is still
// in an outbox, anything recent) is never touched; --dry-run changes nothing byte for byte;
// a gc killed at each removal step leaves every item whole or gone, and the rerun finishes.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join, relative } from 'node:path';
import { initRolesAndMailboxes } from '../../lib/admin/init.js';
import { writeBookbag } from '../../lib/review/bookbag/store.js';
import { writeLeafJson } from '../../lib/review/leaf/leafRecord.js';
import { acquireLock } from '../../lib/fsx/lock.js';
import { leafFilesOf, reviewPathsOf } from '../../lib/project/layout.js';
import { BEAD, bookbagIn, placeBookbag } from '../support/bookbags.js';
import { placeItem, projectAt, runBin, snapshot } from '../support/project.js';
import { makeRunRepo, runDirOf, runInProcess, startRun } from '../support/runs.js';

const OLD = '2020-01-01T00:00:00.000Z';
const CONF = 'window coder agent-x master\nwindow reviewer agent-x master\n';

interface Populated {
  /** What a gc --older-than 30d removes, as paths relative to ROOT (kind first). */
  old: string[];
  /** Files that must stay byte for byte. */
  live: string[];
}

const oldTime = new Date(OLD);
const age = (path: string) => fs.utimesSync(path, oldTime, oldTime);

/** Edits a run's record in place (its times made old). */
function ageRun(root: string, runId: string): void {
  const path = join(runDirOf(root, runId), 'workflow.json');
  const wf = JSON.parse(fs.readFileSync(path, 'utf8')) as Record<string, any>;
  wf.created_at = OLD;
  wf.updated_at = OLD;
  for (const h of wf.history) h.at = OLD;
  fs.writeFileSync(path, `${JSON.stringify(wf, null, 2)}\n`);
}

/** A project with every kind of item, old and new, finished and live. */
async function populate(root: string): Promise<Populated> {
  const p = projectAt(root);
  const coder = p.box('coder');
  const reviewer = p.box('reviewer');
  const rel = (path: string) => relative(root, path);
  const old: string[] = [];
  const live: string[] = [];
  // Mail.
  old.push(`completed ${rel(await placeItem(coder.completed, { completed_at: OLD }))}`);
  live.push(rel(await placeItem(coder.completed, { completed_at: new Date().toISOString() })));
  const batch = join(reviewer.completed, 'batch_20200101T000000Z_1');
  await placeItem(batch, { completed_at: OLD });
  await placeItem(batch, { completed_at: OLD });
  old.push(`completed ${rel(batch)}`);
  const pendingId = '20200101T000000Z_000999_from_reviewer';
  live.push(rel(await placeItem(coder.completed, { completed_at: OLD, id: pendingId })));
  live.push(rel(await placeItem(reviewer.outbox, { id: pendingId, to: 'coder' })));
  const sent = await placeItem(coder.sent, {});
  age(sent);
  old.push(`sent ${rel(sent)}`);
  live.push(rel(await placeItem(coder.sent, {})));
  const failed = await placeItem(coder.failed, {});
  fs.writeFileSync(`${failed}.error`, 'no such role\n');
  age(failed);
  age(`${failed}.error`);
  old.push(`failed ${rel(failed)}`);
  const orphan = join(reviewer.failed, '50_gone_to_x.handoff.error');
  fs.mkdirSync(reviewer.failed, { recursive: true });
  fs.writeFileSync(orphan, 'left alone\n');
  age(orphan);
  old.push(`failed ${rel(orphan)}`);
  for (const dir of [coder.inboxNew, coder.inProcess, coder.outbox]) {
    const path = await placeItem(dir, { completed_at: OLD });
    age(path);
    live.push(rel(path));
  }
  // Runs: one cancelled long ago, one cancelled now, one active (made old: still kept).
  for (const [request, state] of [
    ['req-old', 'old'],
    ['req-new', 'new'],
    ['req-active', 'active'],
  ] as const) {
    const runId = await startRun(root, [], request);
    if (state !== 'active') await runInProcess(root, ['cancel', runId, '--reason', 'done']);
    if (state !== 'new') ageRun(root, runId);
    const path = rel(join(runDirOf(root, runId), 'workflow.json'));
    if (state === 'old') old.push(`run ${rel(runDirOf(root, runId))}`);
    else live.push(path);
  }
  // Reviews: a disposed bookbag archived long ago and one archived now; a live bookbag.
  const paths = reviewPathsOf(root, {});
  const archived = join(paths.archive, `${BEAD}.json`);
  writeBookbag(archived, bookbagIn('DISPOSED'));
  old.push(`archive ${rel(archived)}`);
  const recent = bookbagIn('DISPOSED', {}, 'coder-general-0000aaaa');
  recent.history.at(-1)!.at = new Date().toISOString();
  const recentPath = join(paths.archive, 'coder-general-0000aaaa.json');
  writeBookbag(recentPath, recent);
  live.push(rel(recentPath));
  live.push(rel(placeBookbag(root, bookbagIn('SCORED', {}, 'coder-general-1111bbbb'))));
  // Leaves: ended long ago; ended long ago but its bead's bookbag is live; still running.
  for (const [bead, removedAt] of [
    ['coder-general-2222cccc', OLD],
    ['coder-general-1111bbbb', OLD],
    ['coder-general-3333dddd', ''],
  ] as const) {
    const files = leafFilesOf(paths, bead);
    writeLeafJson(files.record, {
      ...{ bead, role: 'coder', worktree: 'study-coder-x', path: '/nowhere', branch: 'b' },
      ...{ base: 'abc', leaf: '1 1 b h', worker: '', removed_at: removedAt },
    });
    if (bead === 'coder-general-2222cccc') old.push(`leaf ${rel(files.dir)}`);
    else live.push(rel(files.record));
  }
  // A teacher's library log: two old entries, one new.
  const log = join(paths.teachers, 'cto', 'library_log.yaml');
  fs.mkdirSync(join(paths.teachers, 'cto'), { recursive: true });
  const now = new Date().toISOString();
  fs.writeFileSync(
    log,
    `- at: '${OLD}'\n  sid: s1\n- at: '2020-02-01T00:00:00.000Z'\n  sid: s2\n` +
      `- at: '${now}'\n  sid: s3\n`,
  );
  old.push(`library-log ${rel(log)}`, `library-log ${rel(log)}`);
  return { old: old.sort(), live };
}

describe('baton gc (built bin)', function () {
  this.timeout(120_000);
  let root: string;
  let items: Populated;
  const gc = (args: string[], env: Record<string, string> = {}) =>
    runBin('baton', ['gc', ...args], { cwd: root, env });
  const listed = (stdout: string) =>
    (JSON.parse(stdout) as { removed: { kind: string; path: string }[] }).removed
      .map((r) => `${r.kind} ${r.path}`)
      .sort();

  beforeEach(async () => {
    root = makeRunRepo();
    fs.mkdirSync(join(root, 'swarmforge'));
    fs.writeFileSync(join(root, 'swarmforge', 'swarmforge.conf'), CONF);
    initRolesAndMailboxes(root);
    items = await populate(root);
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  /** After a complete gc: every old item gone, every live file as it was, the new log entry kept. */
  function assertCollected(live: Record<string, string>): void {
    for (const item of items.old.filter((i) => !i.startsWith('library-log'))) {
      const path = join(root, item.slice(item.indexOf(' ') + 1));
      assert.equal(fs.existsSync(path), false, `${item} removed`);
    }
    const failed = items.old.find((i) => i.startsWith('failed .swarmforge/handoffs/coder'))!;
    assert.equal(fs.existsSync(join(root, `${failed.slice(7)}.error`)), false, 'with its .error');
    const log = join(reviewPathsOf(root, {}).teachers, 'cto', 'library_log.yaml');
    assert.match(fs.readFileSync(log, 'utf8'), /^- at: '[^']+'\n {2}sid: s3\n$/);
    const now = snapshot(root);
    for (const path of items.live) assert.equal(now[path], live[path], `${path} untouched`);
    assert.deepEqual(fs.readdirSync(join(root, '.swarmforge', 'gc-trash')), []);
  }

  it('removes exactly the old finished items; --dry-run lists the same and changes nothing', () => {
    const before = snapshot(root);
    const dry = gc(['--older-than', '30d', '--dry-run', '--json']);
    assert.equal(dry.code, 0, dry.stderr);
    assert.deepEqual(listed(dry.stdout), items.old);
    assert.deepEqual(snapshot(root), before, 'a dry run changes nothing');
    const plain = gc(['--older-than', '30d', '--dry-run']);
    assert.match(plain.stdout, /^WOULD REMOVE: run \.swarmforge\/runs\/run-\S+ \(2020-01-01T/m);
    assert.match(plain.stdout, /\nGC: 10 would be removed \(dry run\)\n$/);
    const real = gc(['--older-than', '30d']);
    assert.equal(real.code, 0, real.stderr);
    assert.equal(real.stdout.split('\n').filter((l) => l.startsWith('REMOVED: ')).length, 10);
    assert.match(real.stdout, /\nGC: 10 removed\n$/);
    assertCollected(before);
    const again = gc(['--older-than', '30d']);
    assert.deepEqual([again.code, again.stdout], [0, 'GC: 0 removed\n']);
  });

  it('a bad or missing --older-than is a usage error (exit 1), one line, nothing changed', () => {
    const before = snapshot(root);
    for (const args of [['--older-than', '5x'], ['--older-than', '0d'], []]) {
      const r = gc(args);
      assert.equal(r.code, 1, args.join(' '));
      assert.equal(r.stdout, '');
      assert.equal(r.stderr.trim().split('\n').length >= 1, true);
    }
    assert.equal(
      gc(['--older-than', '5x']).stderr,
      "baton gc: --older-than takes a duration like 90s, 30m, 12h or 7d, not '5x'\n",
    );
    assert.deepEqual(snapshot(root), before);
  });

  it('a teacher that runs keeps its library log (exit 75, one line); the rest is removed', () => {
    const log = join(reviewPathsOf(root, {}).teachers, 'cto', 'library_log.yaml');
    const text = fs.readFileSync(log, 'utf8');
    const release = acquireLock(join(reviewPathsOf(root, {}).teachers, 'cto', 'lock'), 0);
    try {
      const r = gc(['--older-than', '30d']);
      assert.equal(r.code, 75);
      assert.match(r.stderr, /^baton gc: library-log \S+ kept: the cto teacher is running/m);
      assert.match(r.stdout, /\nGC: 8 removed, 2 kept\n$/);
      assert.equal(fs.readFileSync(log, 'utf8'), text);
    } finally {
      release();
    }
  });

  for (const step of ['gc:in-trash', 'gc:removed', 'gc:log-rewritten']) {
    it(`killed at ${step}: every item whole or gone, nothing live touched; the rerun finishes`, () => {
      const before = snapshot(root);
      const killed = gc(['--older-than', '30d'], { BATON_CRASH_AT: step });
      assert.equal(killed.signal, 'SIGKILL', killed.stderr);
      const now = snapshot(root);
      for (const [path, digest] of Object.entries(now)) {
        if (path.startsWith('.swarmforge/gc-trash/')) continue;
        // The log is checked below; a killed holder's lock is taken over by the next gc.
        if (path.endsWith('library_log.yaml') || /\/lock\/|\.lock\//.test(path)) continue;
        assert.equal(digest, before[path], `${path} is whole`);
      }
      for (const item of items.old) {
        const dir = `${item.slice(item.indexOf(' ') + 1)}/`;
        const files = (snap: Record<string, string>) =>
          Object.keys(snap).filter((path) => path.startsWith(dir));
        const left = files(now);
        assert.ok(
          left.length === 0 || left.length === files(before).length,
          `${dir} whole or gone`,
        );
      }
      const log = join(reviewPathsOf(root, {}).teachers, 'cto', 'library_log.yaml');
      assert.match(fs.readFileSync(log, 'utf8'), /sid: s3\n$/, 'the log is old or new, whole');
      const rerun = gc(['--older-than', '30d']);
      assert.equal(rerun.code, 0, rerun.stderr);
      assertCollected(before);
    });
  }
});
