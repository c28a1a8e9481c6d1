// Black-box tests of the built swarm_handoff (protocol §1.3, §3–6).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { parseEnvelope } from '../../lib/queue/envelope.js';
import { SWARM_HANDOFF_USAGE } from '../../lib/handoff/usage.js';
import { fixtureBytes, fixtureLines, fixtureLinesIfAny, fixtureText } from '../support/fixtures.js';
import {
  commitIn,
  git,
  itemsIn,
  makeProject,
  noteDraft,
  runBin,
  snapshot,
  tempDir,
  writeDraft,
  type Project,
} from '../support/project.js';

describe('swarm_handoff (built bin)', () => {
  let p: Project;
  beforeEach(() => {
    p = makeProject();
  });
  afterEach(() => p.cleanup());

  const send = (
    draft: string,
    options: { role?: string; cwd?: string; env?: Record<string, string | undefined> } = {},
  ) => runBin('swarm_handoff', [draft], { role: 'coder', cwd: p.root, ...options });

  function queuedPath(stdout: string): string {
    const match = /^HANDOFF QUEUED: (\/.+\.handoff)\n$/.exec(stdout);
    assert.ok(match, `unexpected stdout ${JSON.stringify(stdout)}`);
    return match[1]!;
  }

  it('with no handoffd, warns on stderr in one line written to fd 2, without Node’s stderr stream', () => {
    // Building process.stderr loads the stream modules: about 3 ms of a send (issue 22).
    const trap = join(p.root, 'stderr-trap.cjs');
    fs.writeFileSync(
      trap,
      "const real = Object.getOwnPropertyDescriptor(process, 'stderr');\n" +
        "Object.defineProperty(process, 'stderr', { configurable: true, get() {\n" +
        "  require('node:fs').writeSync(2, 'STDERR STREAM BUILT\\n');\n" +
        '  return real.get.call(process);\n' +
        '} });\n',
    );
    const draft = writeDraft(p.root, noteDraft('reviewer', 'no daemon here'));
    const result = send(draft, { env: { NODE_OPTIONS: `--require ${trap}` } });
    assert.equal(result.code, 0, result.stderr);
    queuedPath(result.stdout);
    assert.equal(result.stderr, 'handoffd is not running: start it with baton daemon start\n');
  });

  it('queues a note: exact output line, headers in order, body, draft deleted, mode 0600', async () => {
    const draft = writeDraft(
      p.root,
      noteDraft('reviewer,QA', 'Waiting on QA result before merging.', '70'),
    );
    const result = send(draft);
    assert.equal(result.code, 0, result.stderr);
    const path = queuedPath(result.stdout);
    assert.equal(join(path, '..'), p.box('coder').outbox);
    assert.match(
      path.split('/').pop()!,
      /^70_\d{8}T\d{6}Z_000001_from_coder_to_reviewer_QA\.handoff$/,
    );
    assert.equal(fs.existsSync(draft), false);
    assert.equal(fs.statSync(path).mode & 0o777, 0o600);
    const text = fs.readFileSync(path, 'utf8');
    const header = text.split('---\n')[1]!;
    assert.deepEqual(
      header
        .split('\n')
        .filter(Boolean)
        .map((l) => l.split(':')[0]),
      ['id', 'from', 'to', 'priority', 'type', 'message', 'created_at'],
    );
    const env = await parseEnvelope(fs.readFileSync(path));
    assert.equal(env.headers.to, 'reviewer,QA');
    assert.equal(env.headers.priority, '70');
    assert.equal(
      env.body.toString(),
      'Re-read your role and constitution.\n\nWaiting on QA result before merging.\n',
    );
    const tsid = env.headers.id!.slice(0, 16);
    const created = env.headers.created_at!;
    assert.match(created, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.equal(
      tsid,
      created.replace(/[-:]/g, '').slice(0, 15) + 'Z',
      'tsid and created_at come from one clock reading',
    );
    assert.equal(env.headers.id, `${tsid}_000001_from_coder`);
  });

  it('queues a git_handoff with role, task and the lowercase 10-character commit', async () => {
    const sha = commitIn(p.root);
    const draft = writeDraft(
      p.root,
      `type: git_handoff\nto: reviewer\npriority: 05\ntask: task-1-cave-setup\ncommit: ${sha.slice(0, 10).toUpperCase()}\n`,
    );
    const result = send(draft);
    assert.equal(result.code, 0, result.stderr);
    const path = queuedPath(result.stdout);
    const text = fs.readFileSync(path, 'utf8');
    const header = text.split('---\n')[1]!;
    assert.deepEqual(
      header
        .split('\n')
        .filter(Boolean)
        .map((l) => l.split(':')[0]),
      ['id', 'from', 'to', 'priority', 'type', 'role', 'task', 'commit', 'created_at'],
    );
    const env = await parseEnvelope(fs.readFileSync(path));
    assert.equal(env.headers.commit, sha.slice(0, 10));
    assert.equal(env.headers.role, 'coder');
    assert.equal(env.headers.priority, '05');
    assert.equal(
      env.body.toString(),
      `Re-read your role and constitution.\n\nmerge_and_process coder ${sha.slice(0, 10)}\n`,
    );
  });

  it("numbers each sender's handoffs in sequence", () => {
    const names = [1, 2, 3].map(() =>
      queuedPath(send(writeDraft(p.root, noteDraft('reviewer'))).stdout)
        .split('/')
        .pop()!,
    );
    assert.deepEqual(
      names.map((n) => n.split('_')[2]),
      ['000001', '000002', '000003'],
    );
    assert.equal(fs.readFileSync(p.box('coder').seqFile, 'utf8'), '3\n');
  });

  it('shortens the recipient list of a name longer than 200 bytes, keeping every recipient in to:', async () => {
    const roles = Array.from({ length: 12 }, (_, i) => `role-with-a-long-name-${i}`);
    const conf =
      roles.map((r) => `window ${r} claude master`).join('\n') + '\nwindow coder claude master\n';
    const wide = makeProject(conf);
    try {
      const result = runBin('swarm_handoff', [writeDraft(wide.root, noteDraft(roles.join(',')))], {
        role: 'coder',
        cwd: wide.root,
      });
      const path = queuedPath(result.stdout);
      const name = path.split('/').pop()!;
      assert.ok(Buffer.byteLength(name) <= 200);
      assert.match(name, /_to_role-with-a-long-name-0_and_11_more\.handoff$/);
      assert.equal((await parseEnvelope(fs.readFileSync(path))).headers.to, roles.join(','));
    } finally {
      wide.cleanup();
    }
  });

  it('usage errors: no argument or two arguments print the usage on stderr, exit 1; --help prints it on stdout', () => {
    for (const args of [[], ['a', 'b']]) {
      const r = runBin('swarm_handoff', args, { role: 'coder', cwd: p.root });
      assert.equal(r.code, 1);
      assert.equal(r.stderr, `${SWARM_HANDOFF_USAGE}\n`);
      assert.equal(r.stdout, '');
    }
    const help = runBin('swarm_handoff', ['--help'], { cwd: p.root });
    assert.equal(help.code, 0);
    assert.match(help.stdout, /type: git_handoff[\s\S]*type: note/);
  });

  it('environment errors in protocol order: missing draft, unset role, no root, unknown sender', () => {
    const draft = writeDraft(p.root, noteDraft('reviewer'));
    const missing = send('nope.txt');
    assert.deepEqual([missing.code, missing.stderr], [1, 'Draft file not found: nope.txt\n']);
    const dirDraft = send('swarmforge');
    assert.deepEqual([dirDraft.code, dirDraft.stderr], [1, 'Draft file not found: swarmforge\n']);
    const unset = runBin('swarm_handoff', [draft], { cwd: p.root });
    assert.deepEqual([unset.code, unset.stderr], [1, 'Set SWARMFORGE_ROLE.\n']);
    const outside = tempDir();
    try {
      const outsideDraft = writeDraft(outside, noteDraft('reviewer'));
      const noRoot = runBin('swarm_handoff', [outsideDraft], { role: 'coder', cwd: outside });
      assert.deepEqual(
        [noRoot.code, noRoot.stderr],
        [
          1,
          'Cannot find SwarmForge project root\n' +
            "Run 'baton init' in your project's git repository (where swarmforge/swarmforge.conf is), then run this command inside it.\n",
        ],
      );
      const badEnv = runBin('swarm_handoff', [draft], {
        role: 'coder',
        cwd: p.root,
        env: { SWARMFORGE_ROOT: outside },
      });
      assert.equal(badEnv.code, 1);
      assert.equal(
        badEnv.stderr,
        `Cannot find SwarmForge project root: SWARMFORGE_ROOT=${outside} has no .swarmforge/roles.tsv\n` +
          `Run 'baton init' in ${outside} (where swarmforge/swarmforge.conf is), or unset SWARMFORGE_ROOT.\n`,
      );
    } finally {
      fs.rmSync(outside, { recursive: true, force: true });
    }
    const ghost = send(draft, { role: 'ghost' });
    assert.deepEqual(
      [ghost.code, ghost.stderr],
      [1, 'Unknown sender role: ghost\nKnown roles: coder, reviewer, QA.\n'],
    );
    const cased = send(draft, { role: 'Coder' });
    assert.deepEqual(
      [cased.code, cased.stderr],
      [1, "Unknown sender role: Coder\nKnown roles: coder, reviewer, QA. Did you mean 'coder'?\n"],
    );
    assert.ok(fs.existsSync(draft));
    assert.deepEqual(itemsIn(p.box('coder').outbox), []);
  });

  it('works from a subdirectory, from a role worktree, and with SWARMFORGE_ROOT', () => {
    fs.mkdirSync(join(p.root, 'src', 'deep'), { recursive: true });
    const fromSub = send(writeDraft(p.root, noteDraft('reviewer'), 'd1'), {
      cwd: join(p.root, 'src', 'deep'),
    });
    assert.equal(fromSub.code, 0, fromSub.stderr);
    const elsewhere = tempDir();
    try {
      const worktree = join(elsewhere, 'review');
      git(p.root, 'worktree', 'add', '-q', worktree);
      const draft = writeDraft(worktree, noteDraft('coder'), 'd2');
      const fromWorktree = runBin('swarm_handoff', ['d2'], { role: 'reviewer', cwd: worktree });
      assert.equal(fromWorktree.code, 0, fromWorktree.stderr);
      assert.equal(join(queuedPath(fromWorktree.stdout), '..', '..'), p.box('reviewer').dir);
      assert.equal(fs.existsSync(draft), false);
      const viaEnv = runBin('swarm_handoff', [writeDraft(elsewhere, noteDraft('coder'), 'd3')], {
        role: 'QA',
        cwd: elsewhere,
        env: { SWARMFORGE_ROOT: p.root },
      });
      assert.equal(viaEnv.code, 0, viaEnv.stderr);
    } finally {
      fs.rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  it("resolves the commit in the sender's own worktree (roles.tsv column 3)", () => {
    const worktree = join(p.root, '.worktrees', 'review');
    git(p.root, 'worktree', 'add', '-q', '-b', 'review', worktree);
    const sha = commitIn(worktree, 'reviewer work');
    const fromReviewer = runBin(
      'swarm_handoff',
      [
        writeDraft(
          p.root,
          `type: git_handoff\nto: QA\npriority: 50\ntask: t\ncommit: ${sha.slice(0, 10)}\n`,
        ),
      ],
      { role: 'reviewer', cwd: p.root },
    );
    assert.equal(fromReviewer.code, 0, fromReviewer.stderr);
  });

  describe('invalid drafts: exact report, exit 2, nothing changes', () => {
    /** Each case's draft and its exact error lines are fixtures/drafts/invalid/<name>.txt and <name>.errors. */
    const cases: [string, string][] = [
      ['payload after headers', 'payload-after-headers'],
      ['not field: value', 'not-field-value'],
      ['empty value', 'empty-value'],
      ['reserved and unknown', 'reserved-and-unknown'],
      ['duplicate header', 'duplicate-header'],
      ['missing required', 'missing-required'],
      ['bad type and priority', 'bad-type-and-priority'],
      ['recipients', 'recipients'],
      ['fields of the other type', 'fields-of-the-other-type'],
      ['git_handoff missing task and commit', 'git_handoff-missing-task-and-commit'],
      ['long task, bad commit', 'long-task-bad-commit'],
      ['commit matching nothing', 'commit-matching-nothing'],
      ['note without message', 'note-without-message'],
      ['long message', 'long-message'],
      [
        'recipients close to known roles, a 7-character commit (hints)',
        'close-recipients-short-commit',
      ],
    ];
    for (const [title, name] of cases) {
      it(title, () => {
        const text = fixtureText('drafts', 'invalid', `${name}.txt`);
        const errors = fixtureLines('drafts', 'invalid', `${name}.errors`);
        const hints = fixtureLinesIfAny('drafts', 'invalid', `${name}.hints`);
        const draft = writeDraft(p.root, text, 'my-draft.txt');
        const before = snapshot(p.root);
        const result = send('my-draft.txt');
        assert.equal(result.code, 2);
        assert.equal(result.stdout, '');
        assert.equal(
          result.stderr,
          `HANDOFF INVALID: my-draft.txt\n\nErrors:\n${errors.map((e) => `- ${e}\n`).join('')}${hints.map((h) => `${h}\n`).join('')}\n${SWARM_HANDOFF_USAGE}\n`,
        );
        assert.deepEqual(snapshot(p.root), before);
        assert.equal(fs.readFileSync(draft, 'utf8'), text);
      });
    }

    it('a commit that resolves to a tree is refused with its type', () => {
      commitIn(p.root);
      const tree = git(p.root, 'rev-parse', 'HEAD^{tree}');
      const result = send(
        writeDraft(
          p.root,
          `type: git_handoff\nto: reviewer\npriority: 50\ntask: t\ncommit: ${tree.slice(0, 10)}\n`,
        ),
      );
      assert.equal(result.code, 2);
      assert.match(
        result.stderr,
        new RegExp(
          `- Header 'commit' must resolve to a commit; '${tree.slice(0, 10)}' resolves to 'tree'.\n`,
        ),
      );
    });

    it('does not consume a sequence number', () => {
      send(writeDraft(p.root, 'type: note\n'));
      const ok = send(writeDraft(p.root, noteDraft('reviewer')));
      assert.match(ok.stdout, /_000001_from_coder/);
    });
  });

  it('accepts CRLF, --- fences and padded values, trimming them', async () => {
    const draft = writeDraft(p.root, fixtureBytes('drafts', 'valid', 'crlf-fences-padded.txt'));
    const result = send(draft);
    assert.equal(result.code, 0, result.stderr);
    const env = await parseEnvelope(fs.readFileSync(queuedPath(result.stdout)));
    assert.deepEqual(
      [env.headers.to, env.headers.message, env.headers.priority],
      ['reviewer,QA', 'spaced out', '07'],
    );
  });
});
