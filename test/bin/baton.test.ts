// Black-box tests of the built `baton` umbrella: init, status, doctor and the synonyms.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { copyFixture } from '../support/fixtures.js';
import { makeRunRepo } from '../support/runs.js';
import {
  commitIn,
  git,
  itemsIn,
  makeProject,
  makeRepo,
  noteDraft,
  placeItem,
  projectAt,
  runBin,
  tempDir,
  writeDraft,
  type Project,
} from '../support/project.js';

describe('baton (built bin)', () => {
  describe('init', () => {
    it('writes roles.tsv, every mailbox (0700) and the git exclude line, idempotently', () => {
      const p = projectAt(
        makeRepo(
          '# a comment\n\nwindow coder claude master\nwindow reviewer codex review --model x\nwindow QA claude none batch\n',
        ),
      );
      try {
        const init = runBin('baton', ['init'], { cwd: p.root });
        assert.equal(init.code, 0, init.stderr);
        const roles = fs.readFileSync(join(p.root, '.swarmforge', 'roles.tsv'), 'utf8');
        const session = `baton-${p.root.split('/').pop()}`;
        assert.equal(
          roles,
          `coder\tmaster\t${p.root}\t${session}\tcoder\tclaude\ttask\n` +
            `reviewer\treview\t${p.root}/.worktrees/review\t${session}\treviewer\tcodex\ttask\n` +
            `QA\tnone\t${p.root}\t${session}\tQA\tclaude\tbatch\n`,
        );
        for (const role of ['coder', 'reviewer', 'QA']) {
          const box = p.box(role);
          for (const dir of [
            box.outbox,
            box.outboxTmp,
            box.sent,
            box.failed,
            box.inboxNew,
            box.inProcess,
            box.completed,
          ]) {
            assert.equal(fs.statSync(dir).mode & 0o777, 0o700, dir);
          }
        }
        const again = runBin('baton', ['init'], { cwd: join(p.root, 'swarmforge') });
        assert.equal(again.code, 0, again.stderr);
        const exclude = fs.readFileSync(join(p.root, '.git', 'info', 'exclude'), 'utf8');
        assert.equal(exclude.split('\n').filter((l) => l === '.swarmforge/').length, 1);
        assert.equal(
          git(p.root, 'status', '--porcelain', '--untracked-files=all').includes('.swarmforge'),
          false,
        );
      } finally {
        p.cleanup();
      }
    });

    it("a run started in a ROOT in no git repository: refused in Baton's words, once; none of git's on stderr; nothing made", () => {
      const plain = tempDir();
      const repo = makeRunRepo();
      try {
        fs.writeFileSync(join(plain, 'spec.md'), 'spec\n');
        const start = runBin(
          'baton',
          ['run', 'start', '--request', 'r', '--task', 't', '--spec', 'spec.md'].concat([
            '--acceptance',
            'node accept.mjs',
            '--repo',
            repo,
          ]),
          { cwd: plain, env: { SWARMFORGE_ROOT: plain } },
        );
        assert.deepEqual(
          [start.code, start.stdout, start.stderr],
          [
            2,
            '',
            `baton run start: ROOT '${plain}' is not in a git repository, so '${repo}' ` +
              'cannot be a work tree of it\n',
          ],
        );
        assert.deepEqual(fs.readdirSync(plain), ['spec.md'], 'nothing made');
      } finally {
        fs.rmSync(plain, { recursive: true, force: true });
        fs.rmSync(repo, { recursive: true, force: true });
      }
    });

    it('reports every config error with file, line and rule, exit 1, and writes nothing', () => {
      const root = tempDir();
      try {
        git(root, 'init', '-q');
        commitIn(root);
        fs.mkdirSync(join(root, 'swarmforge'));
        const conf = join(root, 'swarmforge', 'swarmforge.conf');
        fs.writeFileSync(
          conf,
          'window coder claude master\nwindow coder claude other\nwindow bad_role claude x\nwindow a claude ..\nwindow b claude shared\nwindow c claude shared\npane x y z\nwindow d claude\n',
        );
        const r = runBin('baton', ['init'], { cwd: root });
        assert.equal(r.code, 1);
        assert.equal(
          r.stderr,
          `${conf}:2: role 'coder' is already defined on line 1\n` +
            `${conf}:3: role 'bad_role' must match ^[A-Za-z][A-Za-z0-9-]*$ and be at most 32 characters\n` +
            `${conf}:4: worktree '..' must be master, none or a name matching ^[A-Za-z0-9][A-Za-z0-9._-]*$\n` +
            `${conf}:6: worktree 'shared' is already used on line 5; only master/none may be shared\n` +
            `${conf}:7: unknown directive 'pane'; expected 'window <role> <agent> <worktree> [task|batch] [args...]' or 'review cto|coo <role>'\n` +
            `${conf}:8: a window line needs <role> <agent> <worktree>\n`,
        );
        assert.equal(fs.existsSync(join(root, '.swarmforge')), false);
        const none = tempDir();
        git(none, 'init', '-q');
        const missing = runBin('baton', ['init'], { cwd: none });
        assert.equal(missing.code, 1);
        assert.match(missing.stderr, /no swarmforge\/swarmforge.conf/);
        fs.rmSync(none, { recursive: true, force: true });
      } finally {
        fs.rmSync(root, { recursive: true, force: true });
      }
    });
  });

  describe('status', () => {
    let p: Project;
    beforeEach(() => {
      p = makeProject();
    });
    afterEach(() => p.cleanup());

    it('--json counts each folder and gives the ages of the oldest waiting item and the work in process', async () => {
      const box = p.box('reviewer');
      const old = await placeItem(box.inboxNew, { priority: '90' });
      await placeItem(box.inboxNew, { priority: '10' });
      const hourAgo = new Date(Date.now() - 3600_000);
      fs.utimesSync(old, hourAgo, hourAgo);
      await placeItem(box.completed, {});
      runBin('swarm_handoff', [writeDraft(p.root, noteDraft('QA'))], {
        role: 'reviewer',
        cwd: p.root,
      });
      runBin('ready_for_next', [], { role: 'reviewer', cwd: p.root });
      const r = runBin('baton', ['status', '--json'], { cwd: p.root });
      assert.equal(r.code, 0, r.stderr);
      const rows = (JSON.parse(r.stdout) as { roles: Record<string, unknown>[] }).roles;
      const reviewer = rows.find((row) => row.role === 'reviewer')!;
      assert.equal(reviewer.outbox, 1);
      assert.equal(reviewer.new, 1);
      assert.equal(reviewer.in_process, 1);
      assert.equal(reviewer.completed, 1);
      assert.equal(reviewer.failed, 0);
      assert.ok((reviewer.oldest_waiting_s as number) >= 3599);
      assert.ok((reviewer.in_process_s as number) < 600);
      assert.deepEqual(
        rows.map((row) => row.role),
        ['coder', 'reviewer', 'QA'],
      );
      const text = runBin('baton', ['status'], { cwd: p.root });
      assert.match(
        text.stdout,
        /^ROLE\s+MODE\s+OUTBOX\s+NEW\s+IN_PROCESS\s+COMPLETED\s+FAILED\s+OLDEST_WAITING\s+IN_PROCESS_FOR\n/,
      );
      assert.match(text.stdout, /\nreviewer\s+task\s+1\s+1\s+1\s+1\s+0\s+1h0\dm\s+\d+s\n/);
    });
  });

  describe('doctor', () => {
    let p: Project;
    beforeEach(() => {
      p = makeProject();
    });
    afterEach(() => p.cleanup());

    it('reports nothing on a healthy project, exit 0', async () => {
      await placeItem(p.box('reviewer').inboxNew, {});
      const r = runBin('baton', ['doctor'], { cwd: p.root });
      assert.deepEqual([r.code, r.stdout], [0, 'OK: no problems found\n']);
    });

    it('reports each broken invariant with its path, exit 2, repairing nothing', async () => {
      const box = p.box('reviewer');
      const one = await placeItem(box.inProcess, { id: 'dup' });
      await placeItem(box.inProcess, { id: 'two' });
      await placeItem(box.completed, { id: 'dup' }, 'x', '10_dup.handoff');
      copyFixture(
        join(box.inboxNew, '50_bad.handoff'),
        'handoffs',
        'unusable',
        'no-header.handoff',
      );
      fs.symlinkSync(one, join(box.inboxNew, '50_link.handoff'));
      const stale = join(box.outboxTmp, '50_old.handoff.tmp');
      fs.writeFileSync(stale, 'x');
      const old = new Date(Date.now() - 37 * 3600_000);
      fs.utimesSync(stale, old, old);
      fs.writeFileSync(join(box.outboxTmp, '50_fresh.handoff.tmp'), 'x');
      fs.appendFileSync(join(p.root, '.swarmforge', 'roles.tsv'), 'short\tline\n');
      const r = runBin('baton', ['doctor', '--json'], { cwd: p.root });
      assert.equal(r.code, 2);
      const report = JSON.parse(r.stdout) as {
        findings: { path: string; problem: string }[];
        fixed: string[];
      };
      const problems = report.findings.map((f) => `${f.path}: ${f.problem}`);
      const has = (re: RegExp) =>
        assert.ok(
          problems.some((x) => re.test(x)),
          `${re} in ${problems.join('\n')}`,
        );
      has(/roles\.tsv: .*roles\.tsv:4: fewer than 6 columns$/);
      has(/in_process: 2 items in process/);
      has(/50_link\.handoff: symlink in a mailbox folder/);
      has(/50_bad\.handoff: unusable item: /);
      has(/50_old\.handoff\.tmp: temp file older than 36 h/);
      has(/id dup also at /);
      assert.equal(
        problems.some((x) => x.includes('50_fresh')),
        false,
      );
      assert.deepEqual(report.fixed, []);
      assert.ok(fs.existsSync(stale));
      const text = runBin('baton', ['doctor'], { cwd: p.root });
      assert.equal(text.code, 2);
      assert.match(text.stdout, /^PROBLEM: /m);
    });

    it('--fix deletes only stale temp files, printing each, and exits 0 when nothing else is wrong', () => {
      const box = p.box('coder');
      const stale = join(box.outboxTmp, '50_old.handoff.tmp');
      const fresh = join(box.outboxTmp, '50_new.handoff.tmp');
      fs.writeFileSync(stale, 'x');
      fs.writeFileSync(fresh, 'x');
      const old = new Date(Date.now() - 40 * 3600_000);
      fs.utimesSync(stale, old, old);
      const r = runBin('baton', ['doctor', '--fix'], { cwd: p.root });
      assert.equal(r.code, 0, r.stdout);
      assert.equal(r.stdout, `REMOVED: ${stale}\nOK: no problems found\n`);
      assert.equal(fs.existsSync(stale), false);
      assert.ok(fs.existsSync(fresh));
    });
  });

  describe('synonyms, help and usage', () => {
    it('handoff, ready and done behave as the agent commands', () => {
      const p = makeProject();
      try {
        const sent = runBin('baton', ['handoff', writeDraft(p.root, noteDraft('reviewer'))], {
          role: 'coder',
          cwd: p.root,
        });
        assert.match(sent.stdout, /^HANDOFF QUEUED: /);
        const outbox = itemsIn(p.box('coder').outbox);
        assert.equal(outbox.length, 1);
        fs.copyFileSync(
          join(p.box('coder').outbox, outbox[0]!),
          join(p.box('reviewer').inboxNew, outbox[0]!),
        );
        assert.match(
          runBin('baton', ['ready'], { role: 'reviewer', cwd: p.root }).stdout,
          /^TASK: /,
        );
        const wrong = runBin('baton', ['done', 'nope'], { role: 'reviewer', cwd: p.root });
        assert.deepEqual(
          [wrong.code, wrong.stderr],
          [
            2,
            `NOT_CURRENT_TASK: nope is not in process.\n- ${join(p.box('reviewer').inProcess, outbox[0]!)}\n`,
          ],
        );
        assert.match(
          runBin('baton', ['done'], { role: 'reviewer', cwd: p.root }).stdout,
          /^COMPLETED: .*\nNO_TASK\n$/,
        );
        const invalid = runBin('baton', ['handoff', writeDraft(p.root, 'type: x\n')], {
          role: 'coder',
          cwd: p.root,
        });
        assert.equal(invalid.code, 2);
        assert.match(invalid.stderr, /^HANDOFF INVALID: /);
      } finally {
        p.cleanup();
      }
    });

    it('every command has --help; an unknown command or option is a usage error (exit 1)', () => {
      const cwd = process.cwd();
      for (const command of ['init', 'status', 'doctor', 'handoff', 'ready', 'done']) {
        const r = runBin('baton', [command, '--help'], { cwd });
        assert.equal(r.code, 0, command);
        assert.match(r.stdout, new RegExp(`baton ${command}`));
      }
      const top = runBin('baton', ['--help'], { cwd });
      assert.match(top.stdout, /Commands:/);
      for (const args of [['frobnicate'], ['status', '--bogus'], []]) {
        const r = runBin('baton', args, { cwd });
        assert.equal(r.code, 1, args.join(' '));
        assert.match(r.stderr, /^baton: /);
      }
    });
  });
});
