// lib/run/artifacts: names, path forms (the same as the schema's), digests checked through
// the run folder without following a symlink, evidence written as new durable files, and
// files imported by copy or in place, never overwriting and never recorded twice.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { CommandFailure } from '../../../lib/fsx/commandFailure.js';
import { runPathsOf, type RunPaths } from '../../../lib/project/layout.js';
import {
  ARTIFACTS_FOLDER,
  artifactFileProblem,
  artifactNameOf,
  artifactPathProblem,
  artifactPathTaken,
  checkArtifacts,
  importArtifactFile,
  sha256Of,
  writeEvidence,
} from '../../../lib/run/gates/artifacts.js';
import { type Artifact } from '../../../lib/run/record/workflow.js';
import { traceNode, Trace } from '../../support/strace.js';
import { tempDir } from '../../support/project.js';

const RUN_ID = 'run-20260101T000000Z-abcdef';
/** Every system call Node's stat, lstat and fstat may make. */
const STAT_CALLS = 'statx,newfstatat,fstat,lstat,stat';
const NOW = new Date('2026-01-02T03:04:05.678Z');

function sha256(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

/** A matcher for assert.throws: a CommandFailure of `kind` whose message matches. */
function failure(kind: string, message: RegExp): (err: unknown) => boolean {
  return (err: unknown) => {
    assert.ok(err instanceof CommandFailure, `not a CommandFailure: ${String(err)}`);
    assert.equal(err.kind, kind, err.message);
    assert.match(err.message, message);
    return true;
  };
}

/** Every file, folder and symlink under `dir` with its bytes or target: a snapshot to prove that nothing changed. */
function treeOf(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const entry of fs.readdirSync(d, { withFileTypes: true })) {
      const path = join(d, entry.name);
      const key = relative(dir, path);
      if (entry.isSymbolicLink()) out[key] = `-> ${fs.readlinkSync(path)}`;
      else if (entry.isDirectory()) {
        out[key] = 'dir';
        walk(path);
      } else out[key] = fs.readFileSync(path, 'utf8');
    }
  };
  walk(dir);
  return out;
}

function modeOf(path: string): number {
  return fs.statSync(path).mode & 0o777;
}

describe('lib/run/gates/artifacts', () => {
  let root: string;
  let paths: RunPaths;
  beforeEach(() => {
    root = tempDir();
    paths = runPathsOf(root, RUN_ID);
    fs.mkdirSync(paths.dir, { recursive: true, mode: 0o700 });
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  /** Writes `text` at `relPath` in the run folder (folders created) and returns its manifest entry. */
  function placed(relPath: string, text: string): Artifact {
    fs.mkdirSync(join(paths.dir, relPath, '..'), { recursive: true });
    fs.writeFileSync(join(paths.dir, relPath), text);
    return { path: relPath, sha256: sha256(text), type: 'report', producer: 'worker' };
  }

  it('names the artifact folder as the layout does', () => {
    assert.equal(join(paths.dir, ARTIFACTS_FOLDER), paths.artifacts);
  });

  describe('sha256Of', () => {
    it("hashes a file's bytes, also across read chunks", () => {
      const small = join(root, 'abc');
      fs.writeFileSync(small, 'abc');
      assert.equal(
        sha256Of(small),
        'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
      );
      const big = Buffer.alloc((5 << 19) + 7, 0);
      for (let i = 0; i < big.length; i++) big[i] = (i * 31) & 0xff;
      fs.writeFileSync(join(root, 'big'), big);
      assert.equal(sha256Of(join(root, 'big')), sha256(big));
    });
  });

  describe('artifactNameOf', () => {
    it('names artifacts/<stage>-c<cycle>-<kind>.<ext>, then -2, -3 while the name is taken', () => {
      const taken = new Set<string>();
      const next = () =>
        artifactNameOf('implementation', 2, 'acceptance', 'json', (p) => taken.has(p));
      assert.equal(next(), 'artifacts/implementation-c2-acceptance.json');
      taken.add(next());
      assert.equal(next(), 'artifacts/implementation-c2-acceptance-2.json');
      taken.add(next());
      assert.equal(next(), 'artifacts/implementation-c2-acceptance-3.json');
      assert.equal(
        artifactNameOf('run', 1, 'notes', 'md', () => false),
        'artifacts/run-c1-notes.md',
      );
    });

    it('refuses parts that would not make one plain file name', () => {
      const free = () => false;
      assert.throws(() => artifactNameOf('../x', 1, 'k', 'json', free), /bad stage/);
      assert.throws(() => artifactNameOf('Impl', 1, 'k', 'json', free), /bad stage/);
      assert.throws(() => artifactNameOf('impl', 0, 'k', 'json', free), /bad cycle/);
      assert.throws(() => artifactNameOf('impl', 1.5, 'k', 'json', free), /bad cycle/);
      assert.throws(() => artifactNameOf('impl', 1, 'a/b', 'json', free), /bad kind/);
      assert.throws(() => artifactNameOf('impl', 1, 'k', 'js/on', free), /bad extension/);
    });

    it('knows a name as taken when the manifest has it or a file (an orphan a crash left) is there', () => {
      const recorded = placed('artifacts/impl-c1-acceptance.json', '{}');
      placed('artifacts/impl-c1-acceptance-2.json', 'orphan');
      const taken = artifactPathTaken(paths, [recorded]);
      assert.equal(
        artifactNameOf('impl', 1, 'acceptance', 'json', taken),
        'artifacts/impl-c1-acceptance-3.json',
      );
      fs.rmSync(join(paths.dir, recorded.path));
      assert.equal(
        taken(recorded.path),
        true,
        'recorded in the manifest, even when the file is gone',
      );
      fs.symlinkSync('nowhere', join(paths.artifacts, 'dangling.json'));
      assert.equal(taken('artifacts/dangling.json'), true, 'a dangling symlink takes its name');
    });
  });

  describe('artifactPathProblem', () => {
    const good = [
      'a',
      'artifacts/impl-c1-acceptance.json',
      'artifacts/sub/x.md',
      '.hidden',
      'a..b',
      '...',
      'a./b.',
    ];
    const bad: [string, RegExp][] = [
      ['', /is empty/],
      ['/etc/passwd', /is absolute/],
      ['artifacts\\x.json', /backslash/],
      ['artifacts//x.json', /empty segment/],
      ['artifacts/', /empty segment/],
      ['./artifacts/x', /'\.' or '\.\.' segment/],
      ['artifacts/./x', /'\.' or '\.\.' segment/],
      ['artifacts/../workflow.json', /'\.' or '\.\.' segment/],
      ['..', /'\.' or '\.\.' segment/],
      ['artifacts/..', /'\.' or '\.\.' segment/],
    ];

    it('accepts relative POSIX paths and names the rule each malformed one breaks', () => {
      for (const path of good) assert.equal(artifactPathProblem(path), undefined, path);
      for (const [path, rule] of bad)
        assert.match(artifactPathProblem(path) ?? 'accepted', rule, path);
    });

    it("agrees with the schema's artifact path rule on every sample", () => {
      const schema = JSON.parse(fs.readFileSync(resolve('schemas/workflow.schema.json'), 'utf8'));
      const rule = schema.$defs.artifact.properties.path;
      const schemaAccepts = (p: string) =>
        p.length >= rule.minLength && !new RegExp(rule.not.pattern, 'u').test(p);
      for (const path of [...good, ...bad.map(([p]) => p)])
        assert.equal(artifactPathProblem(path) === undefined, schemaAccepts(path), path);
    });
  });

  describe('checkArtifacts', () => {
    it('passes intact regular files', () => {
      const entries = [
        placed('artifacts/a.json', '{"a":1}\n'),
        placed('artifacts/sub/b.md', '# b\n'),
      ];
      assert.deepEqual(checkArtifacts(paths, entries), { ok: true, bad: [] });
      assert.deepEqual(checkArtifacts(paths, []), { ok: true, bad: [] });
    });

    it('reports one changed byte with the digest found', () => {
      const entry = placed('artifacts/a.json', '{"a":1}\n');
      fs.writeFileSync(join(paths.dir, entry.path), '{"a":2}\n');
      assert.deepEqual(checkArtifacts(paths, [entry]), {
        ok: false,
        bad: [
          {
            path: entry.path,
            problem: `changed (sha256 ${sha256('{"a":2}\n')}, recorded ${entry.sha256})`,
          },
        ],
      });
    });

    it('reports a missing file, and a missing or non-folder parent', () => {
      const gone = placed('artifacts/gone.json', 'x');
      fs.rmSync(join(paths.dir, gone.path));
      const noParent = { ...gone, path: 'artifacts/nofolder/x.json' };
      const fileParent = { ...placed('artifacts/file', 'x'), path: 'artifacts/file/x.json' };
      assert.deepEqual(
        checkArtifacts(paths, [gone, noParent, fileParent]).bad.map((b) => b.problem),
        ['missing', 'missing', 'missing'],
      );
    });

    it('reports a symlinked file, even one whose target hashes right, and never reads through it', () => {
      const real = placed('artifacts/real.json', 'same bytes');
      fs.symlinkSync('real.json', join(paths.artifacts, 'link.json'));
      const outside = join(root, 'outside.json');
      fs.writeFileSync(outside, 'same bytes');
      fs.symlinkSync(outside, join(paths.artifacts, 'out.json'));
      const links = [
        { ...real, path: 'artifacts/link.json' },
        { ...real, path: 'artifacts/out.json' },
      ];
      assert.deepEqual(checkArtifacts(paths, [real, ...links]), {
        ok: false,
        bad: links.map((l) => ({ path: l.path, problem: 'reached through a symlink' })),
      });
    });

    it('reports a file reached through a symlinked parent folder, artifacts/ itself included', () => {
      const elsewhere = join(root, 'elsewhere');
      fs.mkdirSync(join(elsewhere, 'sub'), { recursive: true });
      fs.writeFileSync(join(elsewhere, 'sub', 'x.json'), 'x');
      fs.mkdirSync(paths.artifacts);
      fs.symlinkSync(join(elsewhere, 'sub'), join(paths.artifacts, 'sub'));
      const entry = { path: 'artifacts/sub/x.json', sha256: sha256('x'), type: 't', producer: 'p' };
      assert.deepEqual(checkArtifacts(paths, [entry]).bad, [
        { path: entry.path, problem: 'reached through a symlink' },
      ]);
      fs.rmSync(paths.artifacts, { recursive: true });
      fs.symlinkSync(elsewhere, paths.artifacts);
      assert.deepEqual(checkArtifacts(paths, [entry]).bad, [
        { path: entry.path, problem: 'reached through a symlink' },
      ]);
    });

    it('reports a folder or a FIFO as not a regular file (without blocking on the FIFO)', () => {
      fs.mkdirSync(join(paths.artifacts, 'folder'), { recursive: true });
      const fifo = spawnSync('mkfifo', [join(paths.artifacts, 'fifo')]);
      assert.equal(fifo.status, 0, String(fifo.stderr));
      const entries = ['artifacts/folder', 'artifacts/fifo'].map((path) => ({
        path,
        sha256: sha256(''),
        type: 't',
        producer: 'p',
      }));
      assert.deepEqual(
        checkArtifacts(paths, entries).bad.map((b) => b.problem),
        ['not a regular file', 'not a regular file'],
      );
    });

    it('reports a malformed manifest path by its rule and checks every entry, in order, without throwing', () => {
      const ok = placed('artifacts/ok.json', 'ok');
      const entries = [{ ...ok, path: '../outside' }, ok, { ...ok, path: 'artifacts/none' }];
      const result = checkArtifacts(paths, entries);
      assert.equal(result.ok, false);
      assert.deepEqual(
        result.bad.map((b) => b.path),
        ['../outside', 'artifacts/none'],
      );
      assert.match(result.bad[0]!.problem, /'\.' or '\.\.' segment/);
    });

    it('reports a file replaced between its check and its open, by its identity', () => {
      const entry = placed('artifacts/a.json', '{"a":1}\n');
      const file = join(paths.dir, entry.path);
      fs.writeFileSync(join(root, 'other.json'), '{"a":1}\n');
      // The module object lib/ reads its functions from, so the swap lands between the two.
      const nodeFs = process.getBuiltinModule('node:fs');
      const realOpen = nodeFs.openSync;
      nodeFs.openSync = ((...args: Parameters<typeof fs.openSync>) => {
        // Same bytes, another inode: only the identity check can tell.
        if (args[0] === file) nodeFs.renameSync(join(root, 'other.json'), file);
        return realOpen.apply(nodeFs, args);
      }) as typeof fs.openSync;
      try {
        assert.deepEqual(checkArtifacts(paths, [entry]), {
          ok: false,
          bad: [{ path: entry.path, problem: 'changed (replaced while it was checked)' }],
        });
      } finally {
        nodeFs.openSync = realOpen;
      }
    });

    it('artifactFileProblem checks the form, the symlinks and the file type, not the digest', () => {
      placed('artifacts/x.json', 'x');
      assert.equal(artifactFileProblem(paths, 'artifacts/x.json'), undefined);
      assert.match(artifactFileProblem(paths, '/abs') ?? '', /absolute/);
      assert.equal(artifactFileProblem(paths, 'artifacts'), 'not a regular file');
    });
  });

  describe('writeEvidence', () => {
    it('writes the envelope {kind, recorded_at, payload} as a 0600 file in a new 0700 artifacts/, and returns its digest', () => {
      const relPath = 'artifacts/impl-c1-acceptance.json';
      const written = writeEvidence(
        paths,
        relPath,
        'acceptance',
        { exit: 0, command: ['npm', 'test'] },
        NOW,
      );
      const full = join(paths.dir, relPath);
      assert.deepEqual(JSON.parse(fs.readFileSync(full, 'utf8')), {
        kind: 'acceptance',
        recorded_at: '2026-01-02T03:04:05.678Z',
        payload: { exit: 0, command: ['npm', 'test'] },
      });
      assert.deepEqual(written, { path: relPath, sha256: sha256Of(full) });
      assert.equal(modeOf(full), 0o600);
      assert.equal(modeOf(paths.artifacts), 0o700);
      assert.deepEqual(
        checkArtifacts(paths, [{ ...written, type: 'acceptance', producer: 'runtime' }]),
        { ok: true, bad: [] },
      );
    });

    it('refuses to overwrite an existing file, a symlink at the name, or a symlinked artifacts/, changing nothing', () => {
      placed('artifacts/x.json', 'original');
      fs.symlinkSync(join(root, 'target.json'), join(paths.artifacts, 'link.json'));
      const before = treeOf(root);
      assert.throws(
        () => writeEvidence(paths, 'artifacts/x.json', 'k', {}, NOW),
        failure('refused', /'artifacts\/x\.json' already exists: an artifact is never overwritten/),
      );
      assert.throws(
        () => writeEvidence(paths, 'artifacts/link.json', 'k', {}, NOW),
        failure('refused', /already exists/),
      );
      assert.deepEqual(treeOf(root), before);
      fs.rmSync(paths.artifacts, { recursive: true });
      fs.mkdirSync(join(root, 'elsewhere'));
      fs.symlinkSync(join(root, 'elsewhere'), paths.artifacts);
      assert.throws(
        () => writeEvidence(paths, 'artifacts/y.json', 'k', {}, NOW),
        failure('refused', /is a symlink/),
      );
      assert.deepEqual(fs.readdirSync(join(root, 'elsewhere')), []);
    });

    it("throws for a path that is not a file directly in artifacts/ (a caller's bug)", () => {
      for (const relPath of [
        'workflow.json',
        'artifacts/sub/x.json',
        'artifacts/../x.json',
        '/tmp/x.json',
      ]) {
        assert.throws(
          () => writeEvidence(paths, relPath, 'k', {}, NOW),
          (err: unknown) => err instanceof Error && !(err instanceof CommandFailure),
          relPath,
        );
      }
      assert.equal(fs.existsSync(paths.artifacts), false);
    });

    it("killed after the file is fsync'd, leaves a complete orphan whose name is then taken", () => {
      const relPath = 'artifacts/impl-c1-acceptance.json';
      const program =
        `const { writeEvidence } = await import(${JSON.stringify(resolve('lib/run/gates/artifacts.ts'))});\n` +
        `writeEvidence(${JSON.stringify(paths)}, ${JSON.stringify(relPath)}, 'acceptance', { ok: true }, new Date(${NOW.getTime()}));`;
      const killed = spawnSync(
        process.execPath,
        ['--import', 'tsx', '--input-type=module', '-e', program],
        {
          env: { ...process.env, BATON_CRASH_AT: 'run:evidence-written' },
          encoding: 'utf8',
        },
      );
      assert.equal(killed.signal, 'SIGKILL', killed.stderr);
      assert.deepEqual(JSON.parse(fs.readFileSync(join(paths.dir, relPath), 'utf8')).payload, {
        ok: true,
      });
      const next = artifactNameOf('impl', 1, 'acceptance', 'json', artifactPathTaken(paths, []));
      assert.equal(next, 'artifacts/impl-c1-acceptance-2.json');
      assert.equal(writeEvidence(paths, next, 'acceptance', { ok: true }, NOW).path, next);
    });
  });

  describe('importArtifactFile', () => {
    /** A copy named by the names rule (stage impl, cycle 1). */
    const opts = { type: 'report', producer: 'worker', stage: 'impl', cycle: 1 };
    /** A copy under the name the caller chose. */
    const named = { type: 'report', producer: 'worker', name: 'report.md' };

    it('copies a file from outside the run folder into artifacts/<stage>-c<cycle>-<type>.<ext> (0600) and returns its entry', () => {
      fs.mkdirSync(join(root, 'work'));
      fs.writeFileSync(join(root, 'work', 'report.md'), '# report\n');
      const entry = importArtifactFile(paths, 'work/report.md', root, [], opts);
      assert.deepEqual(entry, {
        path: 'artifacts/impl-c1-report.md',
        sha256: sha256('# report\n'),
        type: 'report',
        producer: 'worker',
      });
      assert.equal(
        fs.readFileSync(join(paths.artifacts, 'impl-c1-report.md'), 'utf8'),
        '# report\n',
      );
      assert.equal(modeOf(join(paths.artifacts, 'impl-c1-report.md')), 0o600);
      assert.deepEqual(checkArtifacts(paths, [entry]), { ok: true, bad: [] });
      fs.writeFileSync(join(root, 'work', 'report.md'), 'changed later');
      assert.deepEqual(
        checkArtifacts(paths, [entry]).ok,
        true,
        'the copy, not the source, is the artifact',
      );
    });

    it('copies under the name given, and copies the content of a symlink named outside the run folder', () => {
      fs.writeFileSync(join(root, 'report.md'), 'r');
      fs.symlinkSync(join(root, 'report.md'), join(root, 'link.md'));
      assert.equal(
        importArtifactFile(paths, 'report.md', root, [], { ...opts, name: 'impl-c1-work.md' }).path,
        'artifacts/impl-c1-work.md',
      );
      const viaLink = importArtifactFile(paths, 'link.md', root, [], opts);
      assert.equal(viaLink.path, 'artifacts/impl-c1-report.md');
      assert.equal(fs.lstatSync(join(paths.artifacts, 'impl-c1-report.md')).isFile(), true);
      assert.deepEqual(checkArtifacts(paths, [viaLink]), { ok: true, bad: [] });
    });

    it('registers a file already in artifacts/ in place, without copying, from any cwd', () => {
      const placedEntry = placed('artifacts/sub/review.json', '{}');
      const before = treeOf(root);
      assert.deepEqual(
        importArtifactFile(paths, 'artifacts/sub/review.json', paths.dir, [], opts),
        { ...placedEntry, type: 'report', producer: 'worker' },
      );
      assert.equal(
        importArtifactFile(paths, join(paths.dir, 'artifacts/sub/review.json'), '/', [], opts).path,
        'artifacts/sub/review.json',
      );
      fs.symlinkSync(paths.dir, join(root, 'run-link'));
      assert.equal(
        importArtifactFile(paths, 'run-link/artifacts/sub/review.json', root, [], opts).path,
        'artifacts/sub/review.json',
        'the real path decides',
      );
      assert.deepEqual(treeOf(root), { ...before, 'run-link': `-> ${paths.dir}` });
    });

    it("refuses in place: a symlink named in the run folder, the runtime's own files, a folder, a malformed name", () => {
      placed('artifacts/real.json', '{}');
      fs.symlinkSync('real.json', join(paths.artifacts, 'link.json'));
      fs.writeFileSync(paths.workflow, '{}');
      fs.writeFileSync(join(paths.artifacts, 'back\\slash.json'), '{}');
      const before = treeOf(paths.dir);
      const from = (source: string) => () => importArtifactFile(paths, source, paths.dir, [], opts);
      assert.throws(
        from('artifacts/link.json'),
        failure('refused', /is a symlink: name the artifact file itself \('artifacts\/real\.json'/),
      );
      assert.throws(
        from('workflow.json'),
        failure('refused', /runtime's own file 'workflow\.json'/),
      );
      assert.throws(from('artifacts'), failure('refused', /'artifacts' is not a regular file/));
      fs.mkdirSync(join(paths.artifacts, 'folder'));
      assert.throws(
        from('artifacts/folder'),
        failure('refused', /'artifacts\/folder' is not a regular file/),
      );
      assert.throws(from('artifacts/back\\slash.json'), failure('refused', /backslash/));
      assert.deepEqual(treeOf(paths.dir), { ...before, 'artifacts/folder': 'dir' });
    });

    it('a file of the same name in another cycle, or again in the same one, is another artifact, never a refused duplicate', () => {
      fs.writeFileSync(join(root, 'report.md'), '# cycle 1\n');
      const first = importArtifactFile(paths, 'report.md', root, [], opts);
      fs.writeFileSync(join(root, 'report.md'), '# cycle 2\n');
      const second = importArtifactFile(paths, 'report.md', root, [first], { ...opts, cycle: 2 });
      const again = importArtifactFile(paths, 'report.md', root, [first, second], {
        ...opts,
        cycle: 2,
      });
      assert.deepEqual(
        [first.path, second.path, again.path],
        [
          'artifacts/impl-c1-report.md',
          'artifacts/impl-c2-report.md',
          'artifacts/impl-c2-report-2.md',
        ],
      );
      assert.deepEqual(checkArtifacts(paths, [first, second, again]), { ok: true, bad: [] });
    });

    it("the names rule: the type as a kind (lowercase, other characters as -), the source's extension lowercased, txt without one", () => {
      fs.writeFileSync(join(root, 'NOTES'), 'n');
      fs.writeFileSync(join(root, 'Test Log.TXT'), 't');
      assert.equal(
        importArtifactFile(paths, 'NOTES', root, [], { ...opts, type: 'Test Report!' }).path,
        'artifacts/impl-c1-test-report.txt',
      );
      assert.equal(
        importArtifactFile(paths, 'Test Log.TXT', root, [], { ...opts, stage: 'run', type: '42' })
          .path,
        'artifacts/run-c1-artifact.txt',
      );
    });

    it('refuses a duplicate path, whether copied under a chosen name or in place, before writing anything', () => {
      const recorded = placed('artifacts/report.md', '# old\n');
      fs.writeFileSync(join(root, 'report.md'), '# new\n');
      const before = treeOf(root);
      assert.throws(
        () => importArtifactFile(paths, 'report.md', root, [recorded], named),
        failure('refused', /duplicate artifact path 'artifacts\/report\.md'/),
      );
      assert.throws(
        () => importArtifactFile(paths, 'artifacts/report.md', paths.dir, [recorded], opts),
        failure('refused', /duplicate artifact path/),
      );
      assert.deepEqual(treeOf(root), before);
    });

    it("never overwrites an existing file at the copy's chosen name (an orphan, or a file not in the manifest)", () => {
      placed('artifacts/report.md', '# orphan\n');
      fs.writeFileSync(join(root, 'report.md'), '# new\n');
      const before = treeOf(root);
      assert.throws(
        () => importArtifactFile(paths, 'report.md', root, [], named),
        failure(
          'refused',
          /'artifacts\/report\.md' already exists: an artifact is never overwritten/,
        ),
      );
      assert.deepEqual(treeOf(root), before);
    });

    it('by the names rule, a file not in the manifest takes its name: the copy goes to the next; an orphan with the same bytes is reused', () => {
      placed('artifacts/impl-c1-report.md', '# other\n');
      fs.writeFileSync(join(root, 'report.md'), '# new\n');
      const entry = importArtifactFile(paths, 'report.md', root, [], opts);
      assert.equal(entry.path, 'artifacts/impl-c1-report-2.md');
      assert.equal(
        fs.readFileSync(join(paths.artifacts, 'impl-c1-report.md'), 'utf8'),
        '# other\n',
        'never overwritten',
      );
      const before = treeOf(paths.dir);
      assert.deepEqual(
        importArtifactFile(paths, 'report.md', root, [], opts),
        entry,
        'the unregistered complete copy is reused',
      );
      assert.deepEqual(treeOf(paths.dir), before);
    });

    it('fails usage for a missing source, an empty type or producer, or a name that is not one plain segment', () => {
      fs.writeFileSync(join(root, 'r.md'), 'r');
      assert.throws(
        () => importArtifactFile(paths, 'nope.md', root, [], opts),
        failure('usage', /no such file 'nope\.md'/),
      );
      assert.throws(
        () => importArtifactFile(paths, 'r.md/x', root, [], opts),
        failure('usage', /no such file/),
      );
      assert.throws(
        () => importArtifactFile(paths, 'r.md', root, [], { ...opts, type: '' }),
        failure('usage', /--type is empty/),
      );
      assert.throws(
        () => importArtifactFile(paths, 'r.md', root, [], { ...opts, producer: ' ' }),
        failure('usage', /--producer is empty/),
      );
      for (const name of ['a/b.md', '..', '.', '', 'a\\b']) {
        assert.throws(
          () => importArtifactFile(paths, 'r.md', root, [], { ...named, name }),
          failure('usage', /not a plain file name/),
          name,
        );
      }
      assert.equal(fs.existsSync(paths.artifacts), false);
    });

    it('refuses to copy a folder or a FIFO (without blocking on it)', () => {
      fs.mkdirSync(join(root, 'folder'));
      assert.equal(spawnSync('mkfifo', [join(root, 'fifo')]).status, 0);
      assert.throws(
        () => importArtifactFile(paths, 'folder', root, [], opts),
        failure('refused', /'folder' is not a regular file/),
      );
      assert.throws(
        () => importArtifactFile(paths, 'fifo', root, [], opts),
        failure('refused', /'fifo' is not a regular file/),
      );
      assert.equal(
        fs.existsSync(join(paths.artifacts, 'folder')) ||
          fs.existsSync(join(paths.artifacts, 'fifo')),
        false,
      );
    });
  });

  describe('system calls (strace)', () => {
    it("checks an artifact with its folders' lstats and one fstat of the opened file", function () {
      this.timeout(60_000);
      const entries = Array.from({ length: 20 }, (_, i) => placed(`artifacts/a${i}.json`, `${i}`));
      const program =
        `const { checkArtifacts } = await import(${JSON.stringify(resolve('lib/run/gates/artifacts.ts'))});\n` +
        `const paths = ${JSON.stringify(paths)};\n` +
        "process.stdout.write('checking\\n');\n" +
        `const { ok } = checkArtifacts(paths, ${JSON.stringify(entries)});\n` +
        'process.stdout.write(`checked ${ok}\\n`);\n';
      const run = traceNode(['--import', 'tsx', '--input-type=module', '-e', program], {
        calls: `write,${STAT_CALLS}`,
      });
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.stdout, 'checking\nchecked true\n');
      const trace = new Trace(run.calls);
      const from = trace.stdout('checking').end;
      const to = trace.stdout('checked').start;
      const stats = trace.calls.filter((c) => c.name !== 'write' && c.start > from && c.end < to);
      // Per artifact: artifacts/ and the file (the walk), then the opened file's fstat.
      assert.equal(stats.length, 3 * entries.length, stats.map((c) => c.name).join(' '));
    });
  });

  describe('durability (strace)', () => {
    it('fsyncs each new file after its last write, then artifacts/, before returning', function () {
      this.timeout(60_000);
      const probe = spawnSync('strace', [
        '-f',
        '-qq',
        '-o',
        '/dev/null',
        process.execPath,
        '-e',
        '0',
      ]);
      assert.equal(probe.status, 0, `strace does not work here: ${probe.stderr}`);
      fs.writeFileSync(join(root, 'report.md'), '# report\n');
      const program =
        `const { writeEvidence, importArtifactFile } = await import(${JSON.stringify(resolve('lib/run/gates/artifacts.ts'))});\n` +
        `const paths = ${JSON.stringify(paths)};\n` +
        "writeEvidence(paths, 'artifacts/impl-c1-acceptance.json', 'acceptance', { ok: true });\nprocess.stdout.write('written\\n');\n" +
        `importArtifactFile(paths, 'report.md', ${JSON.stringify(root)}, [], { type: 't', producer: 'p', name: 'report.md' });\nprocess.stdout.write('copied\\n');\n`;
      const run = traceNode(['--import', 'tsx', '--input-type=module', '-e', program]);
      assert.equal(run.code, 0, run.stderr);
      const trace = new Trace(run.calls);
      for (const [name, printed] of [
        ['impl-c1-acceptance.json', 'written'],
        ['report.md', 'copied'],
      ] as const) {
        const file = join(paths.artifacts, name);
        const done = trace.stdout(printed);
        const fileSync = trace.calls.find(
          (c) => c.name === 'fsync' && c.fdPath === file && c.ret === 0 && c.end < done.start,
        );
        assert.ok(fileSync, `no fsync of ${file}`);
        assert.ok(trace.lastWrite(file).end < fileSync.start, `${name}: written after its fsync`);
        trace.fsyncBetween(paths.artifacts, fileSync, done, `${name}: the new entry in artifacts/`);
      }
    });
  });
});
