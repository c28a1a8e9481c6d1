// Black-box: `baton` keeps its bundles compiled between calls on a Node without a compile
// cache (lib/cli/codeCache.ts): the first call saves V8's code, later calls use it, and a
// damaged, stale or untrusted cache is never used (the command's output never changes).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import {
  BIN_DIR,
  makeProject,
  noteDraft,
  placeItem,
  runExecutable,
  tempDir,
  writeDraft,
} from '../support/project.js';
import { makeRunRepo } from '../support/runs.js';

const uid = process.getuid!();
const hasNodeCompileCache = 'enableCompileCache' in (await import('node:module'));

describe('the code cache of baton’s bundles (built bin)', function () {
  let tmp: string;
  let bin: string;
  const cacheDir = () => join(tmp, `baton-code-cache-${uid}`);
  const cached = () => (fs.existsSync(cacheDir()) ? fs.readdirSync(cacheDir()).sort() : []);
  const baton = (args: string[], env: Record<string, string> = {}) =>
    runExecutable(process.execPath, [join(bin, 'baton.js'), ...args], {
      cwd: tmp,
      env: { TMPDIR: tmp, ...env },
    });
  const identity = (file: string) => {
    const s = fs.statSync(join(cacheDir(), file));
    return `${s.ino} ${s.mtimeMs} ${s.size}`;
  };
  beforeEach(() => {
    tmp = tempDir('baton-code-cache-test-');
    // A copy of the bins, so that one of its bundles can be rebuilt without touching dist/.
    bin = join(tmp, 'bin');
    fs.cpSync(BIN_DIR, bin, { recursive: true });
  });
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  if (hasNodeCompileCache) {
    it('is Node’s own compile cache on this Node (22.1 and later): no folder of Baton’s', () => {
      assert.equal(baton(['run', '--help']).code, 0);
      assert.deepEqual(cached(), []);
    });
    return;
  }

  it('the first call saves the code of the bundle it ran (0700 folder, 0600 file); later calls use it without writing', () => {
    const first = baton(['run', '--help']);
    assert.equal(first.code, 0, first.stderr);
    const size = fs.statSync(join(bin, 'baton-run.js')).size;
    const [file, ...rest] = cached();
    assert.deepEqual(rest, []);
    assert.match(
      file!,
      new RegExp(`^baton-run\\.js-[0-9a-f]{8}~${size}-\\d+-${process.version}-${process.arch}$`),
    );
    assert.equal(fs.statSync(cacheDir()).mode & 0o777, 0o700);
    assert.equal(fs.statSync(join(cacheDir(), file!)).mode & 0o777, 0o600);
    const before = identity(file!);
    const second = baton(['run', '--help']);
    assert.equal(second.stdout, first.stdout);
    assert.equal(identity(file!), before, 'V8 took the cache: nothing was written again');
    baton(['--help']);
    assert.deepEqual(cached().length, 2, 'the yargs command line is a bundle of its own');
    // Another installed copy of the same build keeps a file of its own: neither evicts the other.
    const copy = join(tmp, 'copy');
    fs.cpSync(bin, copy, { recursive: true, preserveTimestamps: true });
    const other = runExecutable(process.execPath, [join(copy, 'baton.js'), 'run', '--help'], {
      cwd: tmp,
      env: { TMPDIR: tmp },
    });
    assert.equal(other.stdout, first.stdout);
    assert.equal(cached().length, 3);
    assert.equal(identity(file!), before, 'the first copy’s file is untouched');
  });

  it('each `baton run` action keeps a file of its own, made by a call that ran it', () => {
    // One file per action: a file holds what its first call compiled (lib/cli/codeCache.ts).
    const root = makeRunRepo();
    try {
      const inRepo = (args: string[]) =>
        runExecutable(process.execPath, [join(bin, 'baton.js'), 'run', ...args], {
          cwd: root,
          env: { TMPDIR: tmp },
        });
      assert.notEqual(inRepo(['no-such-action']).code, 0);
      assert.notEqual(inRepo(['status', 'run-missing']).code, 0);
      assert.equal(inRepo(['status', '--help']).code, 0);
      assert.deepEqual(cached(), [], 'a mistyped action, a refusal, an action’s --help: no file');
      const started = inRepo([
        ...['start', '--request', 'r', '--task', 't', '--spec', 'spec.md'],
        ...['--acceptance', 'node accept.mjs'],
      ]);
      assert.equal(started.code, 0, started.stderr);
      const runId = (JSON.parse(started.stdout) as { run_id: string }).run_id;
      assert.equal(inRepo(['status', runId]).code, 0);
      assert.equal(inRepo(['--help']).code, 0);
      const size = fs.statSync(join(bin, 'baton-run.js')).size;
      const build = `~${size}-\\d+-${process.version}-${process.arch}$`;
      assert.deepEqual(
        cached()
          .map((f) => f.replace(/^baton-run\.js-[0-9a-f]{8}/, '').replace(new RegExp(build), ''))
          .sort(),
        ['', '-start', '-status'],
      );
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  it('the agent commands load their bundle with a file per command, made by a call that did its work (not --help, not an idle inbox)', async () => {
    const p = makeProject();
    try {
      const agent = (command: string, args: string[] = []) =>
        runExecutable(process.execPath, [join(bin, `${command}.js`), ...args], {
          cwd: p.root,
          env: { TMPDIR: tmp, SWARMFORGE_ROLE: 'coder' },
        });
      for (const command of ['ready_for_next', 'done_with_current', 'swarm_handoff'])
        assert.match(agent(command, ['--help']).stdout, new RegExp(`^Usage: ${command}`));
      assert.equal(agent('ready_for_next').stdout, 'NO_TASK\n');
      assert.deepEqual(cached(), [], 'usage texts and an idle answer run too little of a command');
      await placeItem(p.box('coder').inboxNew, {});
      assert.match(agent('ready_for_next').stdout, /^TASK: /);
      assert.match(agent('done_with_current').stdout, /^COMPLETED: /);
      assert.match(
        agent('swarm_handoff', [writeDraft(p.root, noteDraft('reviewer'))]).stdout,
        /^HANDOFF QUEUED: /,
      );
      const size = fs.statSync(join(bin, 'baton-agent.js')).size;
      assert.deepEqual(
        cached().map((f) => f.replace(/^baton-agent\.js-[0-9a-f]{8}-/, '').split('~')[0]),
        ['done_with_current', 'ready_for_next', 'swarm_handoff'],
      );
      assert.ok(cached().every((f) => f.includes(`~${size}-`)));
    } finally {
      p.cleanup();
    }
  });
  it('a damaged cache file is compiled over and replaced; a rebuilt bundle never meets the old cache, whose file goes', () => {
    const first = baton(['run', '--help']);
    const [file] = cached();
    fs.writeFileSync(join(cacheDir(), file!), 'not V8 code at all');
    const damaged = baton(['run', '--help']);
    assert.equal(damaged.code, 0, damaged.stderr);
    assert.equal(damaged.stdout, first.stdout);
    assert.notEqual(fs.readFileSync(join(cacheDir(), file!), 'utf8'), 'not V8 code at all');
    fs.appendFileSync(join(bin, 'baton-run.js'), '\n// rebuilt\n');
    fs.writeFileSync(join(cacheDir(), `${file!}.999999.tmp`), 'left by a killed call');
    const rebuilt = baton(['run', '--help']);
    assert.equal(rebuilt.stdout, first.stdout);
    const [after, ...others] = cached();
    assert.deepEqual(others, [], 'the older build’s file and the leftover temporary file went');
    assert.notEqual(after, file, 'the rebuilt bundle has a cache file of its own');
    assert.ok(after!.startsWith(file!.slice(0, file!.indexOf('~') + 1)));
  });

  it('a save removes the files no call has read or written for a week (a removed copy’s), and keeps the others', () => {
    assert.equal(baton(['run', '--help']).code, 0);
    const [file] = cached();
    const day = 86_400_000;
    const aged = (name: string, readDaysAgo: number, writtenDaysAgo: number) => {
      fs.writeFileSync(join(cacheDir(), name), 'code of a copy');
      const at = (days: number) => new Date(Date.now() - days * day);
      fs.utimesSync(join(cacheDir(), name), at(readDaysAgo), at(writtenDaysAgo));
    };
    aged('baton-run.js-0badc0de-status~1-1-v0-x64', 8, 8);
    aged('baton-cli.js-0badc0de~1-1-v0-x64', 6, 30);
    aged('baton-agent.js-0badc0de-ready_for_next~1-1-v0-x64', 1, 6);
    assert.equal(baton(['--help']).code, 0, 'a save of another bundle');
    // The real bundles' names carry a hash of their path, so the expected list is sorted too.
    const saved = cached().find((f) => f.startsWith('baton-cli.js-') && !f.includes('0badc0de'));
    assert.ok(saved, 'the save of baton.js');
    assert.deepEqual(
      cached(),
      [
        'baton-agent.js-0badc0de-ready_for_next~1-1-v0-x64',
        'baton-cli.js-0badc0de~1-1-v0-x64',
        saved,
        file!,
      ].sort(),
    );
  });

  it('a folder others may write, a folder that is a symbolic link, and NODE_DISABLE_COMPILE_CACHE: no cache read or written', () => {
    fs.mkdirSync(cacheDir(), { mode: 0o700 });
    fs.chmodSync(cacheDir(), 0o777);
    assert.equal(baton(['run', '--help']).code, 0);
    assert.deepEqual(cached(), []);
    fs.rmdirSync(cacheDir());
    const elsewhere = join(tmp, 'elsewhere');
    fs.mkdirSync(elsewhere, { mode: 0o700 });
    fs.symlinkSync(elsewhere, cacheDir());
    assert.equal(baton(['run', '--help']).code, 0);
    assert.deepEqual(fs.readdirSync(elsewhere), []);
    fs.rmSync(cacheDir());
    const off = baton(['run', '--help'], { NODE_DISABLE_COMPILE_CACHE: '1' });
    assert.equal(off.code, 0);
    assert.equal(fs.existsSync(cacheDir()), false);
  });

  it('a bundle’s warmCodeCache runs once, just before its cache is saved; the bundles whose commands validate records have one', () => {
    const marker = join(tmp, 'warmed');
    const fake = join(bin, 'fake-bundle.js');
    fs.writeFileSync(
      fake,
      `exports.warmCodeCache = () => require('node:fs').appendFileSync(${JSON.stringify(marker)}, 'warm\\n');\n`,
    );
    const load = () =>
      runExecutable(
        process.execPath,
        [
          '-e',
          `require(${JSON.stringify(join(bin, 'baton-code-cache.js'))}).loadBundle(${JSON.stringify(fake)})`,
        ],
        { cwd: tmp, env: { TMPDIR: tmp } },
      );
    assert.equal(load().code, 0);
    assert.equal(
      fs.readFileSync(marker, 'utf8'),
      'warm\n',
      'the call that saved the cache warmed it',
    );
    assert.equal(cached().length, 1);
    assert.equal(load().code, 0);
    assert.equal(fs.readFileSync(marker, 'utf8'), 'warm\n', 'a call that used the cache did not');
    for (const name of ['baton-run.js', 'baton-review-verdict.js', 'hook-session-start.js'])
      assert.match(
        fs.readFileSync(join(bin, name), 'utf8'),
        /warmCodeCache/,
        `${name} exports warmCodeCache`,
      );
  });
});
