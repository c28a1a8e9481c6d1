// Black-box tests of the built ready_for_next in task and batch mode (protocol §2, §3, §7).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { parseEnvelope } from '../../lib/queue/envelope.js';
import { startHandoffd, stopHandoffd, waitFor } from '../support/daemon.js';
import { copyFixture } from '../support/fixtures.js';
import {
  git,
  itemsIn,
  makeProject,
  placeItem,
  runBin,
  snapshot,
  tempDir,
  noteDraft,
  writeDraft,
  type Project,
} from '../support/project.js';

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe('ready_for_next (built bin)', () => {
  let p: Project;
  beforeEach(() => {
    p = makeProject();
  });
  afterEach(() => p.cleanup());
  const ready = (role = 'reviewer', cwd = p.root) => runBin('ready_for_next', [], { role, cwd });

  describe('task mode', () => {
    it('prints NO_TASK on an empty inbox', () => {
      const r = ready();
      assert.deepEqual([r.code, r.stdout, r.stderr], [0, 'NO_TASK\n', '']);
    });

    it('claims the first item in name order, stamps dequeued_at and prints the exact task', async () => {
      const later = await placeItem(
        p.box('reviewer').inboxNew,
        {
          priority: '50',
          type: 'git_handoff',
          task: 'task-2',
          commit: 'abcdef0123',
          role: 'coder',
          message: '',
        },
        'second\n',
      );
      const first = await placeItem(
        p.box('reviewer').inboxNew,
        {
          priority: '10',
          type: 'git_handoff',
          task: 'task-1',
          commit: 'abcdef0123',
          role: 'coder',
          message: '',
        },
        'Re-read.\n\nmerge_and_process coder abcdef0123\n',
      );
      const r = ready();
      const claimed = join(p.box('reviewer').inProcess, first.split('/').pop()!);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(
        r.stdout,
        `TASK: ${claimed}\nFROM: coder\nTYPE: git_handoff\nPRIORITY: 10\nTASK_NAME: task-1\nPAYLOAD:\nRe-read.\n\nmerge_and_process coder abcdef0123\n`,
      );
      assert.equal(fs.existsSync(first), false);
      assert.ok(fs.existsSync(later));
      const env = await parseEnvelope(fs.readFileSync(claimed));
      assert.match(env.headers.dequeued_at!, ISO);
      const header = fs.readFileSync(claimed, 'utf8').split('---\n')[1]!;
      assert.deepEqual(
        header
          .split('\n')
          .filter(Boolean)
          .map((l) => l.split(':')[0]),
        [
          'id',
          'from',
          'to',
          'recipient',
          'priority',
          'type',
          'role',
          'task',
          'commit',
          'dequeued_at',
        ],
      );
    });

    it('resumes the item in process unchanged on a second call', async () => {
      await placeItem(p.box('reviewer').inboxNew, {});
      const first = ready();
      const [name] = itemsIn(p.box('reviewer').inProcess);
      const bytes = fs.readFileSync(join(p.box('reviewer').inProcess, name!));
      const second = ready();
      assert.equal(second.stdout, first.stdout);
      assert.deepEqual(fs.readFileSync(join(p.box('reviewer').inProcess, name!)), bytes);
    });

    it('stamps a missing dequeued_at when resuming (a claim cut short by a crash)', async () => {
      const path = await placeItem(p.box('reviewer').inProcess, {});
      ready();
      assert.match((await parseEnvelope(fs.readFileSync(path))).headers.dequeued_at!, ISO);
    });

    it('keeps body bytes verbatim (CRLF, trailing blank lines) and adds a newline only to the output', async () => {
      const crlf = Buffer.from('line one\r\nline two\r\n\r\n\r\n');
      const bare = Buffer.from('no newline at end');
      const a = await placeItem(p.box('reviewer').inboxNew, { priority: '01' }, crlf);
      const b = await placeItem(p.box('reviewer').inboxNew, { priority: '02' }, bare);
      const first = ready();
      assert.ok(first.stdoutBytes.subarray(first.stdoutBytes.length - crlf.length).equals(crlf));
      const inProcessA = join(p.box('reviewer').inProcess, a.split('/').pop()!);
      assert.ok((await parseEnvelope(fs.readFileSync(inProcessA))).body.equals(crlf));
      const done = runBin('done_with_current', [], { role: 'reviewer', cwd: p.root });
      assert.ok(done.stdout.endsWith('PAYLOAD:\nno newline at end\n'));
      const completedA = join(p.box('reviewer').completed, a.split('/').pop()!);
      assert.ok((await parseEnvelope(fs.readFileSync(completedA))).body.equals(crlf));
      const inProcessB = join(p.box('reviewer').inProcess, b.split('/').pop()!);
      assert.ok((await parseEnvelope(fs.readFileSync(inProcessB))).body.equals(bare));
    });

    it('drains a legacy-format file and rewrites it as front matter with the body bytes kept', async () => {
      const name = '50_20250101T000000Z_000007_from_coder_to_reviewer.handoff';
      copyFixture(join(p.box('reviewer').inboxNew, name), 'handoffs', 'legacy', 'note.handoff');
      const r = ready();
      assert.equal(
        r.stdout,
        `TASK: ${join(p.box('reviewer').inProcess, name)}\nFROM: coder\nTYPE: note\nPRIORITY: 50\nPAYLOAD:\nRe-read your role.\r\n\r\nlegacy body\n\n`,
      );
      const text = fs.readFileSync(join(p.box('reviewer').inProcess, name), 'utf8');
      assert.ok(text.startsWith('---\nid: 20250101T000000Z_000007_from_coder\n'));
      assert.ok(text.endsWith('---\nRe-read your role.\r\n\r\nlegacy body\n\n'));
      const done = runBin('done_with_current', [], { role: 'reviewer', cwd: p.root });
      assert.equal(done.code, 0);
      assert.deepEqual(itemsIn(p.box('reviewer').completed), [name]);
    });

    it('prints unknown/50 for missing FROM, TYPE and PRIORITY and no TASK_NAME without a task header', async () => {
      const name = '50_x.handoff';
      fs.writeFileSync(join(p.box('reviewer').inboxNew, name), 'id: bare\n\nbody\n');
      assert.equal(
        ready().stdout,
        `TASK: ${join(p.box('reviewer').inProcess, name)}\nFROM: unknown\nTYPE: unknown\nPRIORITY: 50\nPAYLOAD:\nbody\n`,
      );
    });

    it('quarantines unusable items into inbox/bad/ with a report on stderr and hands out the next', async () => {
      const inbox = p.box('reviewer').inboxNew;
      const bad = p.box('reviewer').bad;
      copyFixture(join(inbox, '00_a.handoff'), 'handoffs', 'unusable', 'no-header.handoff');
      copyFixture(join(inbox, '00_b.handoff'), 'handoffs', 'unusable', 'no-id.handoff');
      const good = await placeItem(inbox, { priority: '01' });
      const r = ready();
      assert.equal(r.code, 0);
      assert.equal(
        r.stderr,
        `quarantined ${join(inbox, '00_a.handoff')} -> ${join(bad, '00_a.handoff')}: unreadable header line 'no header at all'\n` +
          `quarantined ${join(inbox, '00_b.handoff')} -> ${join(bad, '00_b.handoff')}: no id header\n`,
      );
      assert.ok(
        r.stdout.startsWith(`TASK: ${join(p.box('reviewer').inProcess, good.split('/').pop()!)}\n`),
      );
      assert.deepEqual(itemsIn(inbox), []);
      assert.deepEqual(fs.readdirSync(bad).sort(), [
        '00_a.handoff',
        '00_a.handoff.error',
        '00_b.handoff',
        '00_b.handoff.error',
      ]);
    });

    it('refuses when a batch is in process or several tasks are, listing them, exit 2, nothing changed', async () => {
      const box = p.box('reviewer');
      const batch = join(box.inProcess, 'batch_20260101T000000Z_000001');
      await placeItem(batch, {});
      await placeItem(box.inboxNew, {});
      let before = snapshot(p.root);
      let r = ready();
      assert.deepEqual([r.code, r.stdout], [2, '']);
      assert.equal(
        r.stderr,
        `TASK_IN_PROCESS_IS_BATCH: a batch is in process but this role receives single tasks.\n- ${batch}\n`,
      );
      assert.deepEqual(snapshot(p.root), before);
      fs.rmSync(batch, { recursive: true });
      const one = await placeItem(box.inProcess, { priority: '20' });
      const two = await placeItem(box.inProcess, { priority: '10' });
      before = snapshot(p.root);
      r = ready();
      assert.equal(r.code, 2);
      assert.equal(
        r.stderr,
        `AMBIGUOUS_TASK_STATE: multiple tasks are already in process.\n- ${two}\n- ${one}\n`,
      );
      assert.deepEqual(snapshot(p.root), before);
    });

    it("acts on the role's own mailbox from a subdirectory and from the role's worktree outside ROOT", async () => {
      const daemon = await startHandoffd(p.root, ['--poll-interval', '200']);
      try {
        for (const message of ['one', 'two']) {
          const sent = runBin(
            'swarm_handoff',
            [writeDraft(p.root, noteDraft('reviewer', message), `draft-${message}.txt`)],
            { role: 'coder', cwd: p.root },
          );
          assert.equal(sent.code, 0, sent.stderr);
        }
        await waitFor(
          'both deliveries',
          () =>
            itemsIn(p.box('reviewer').inboxNew).length === 2 &&
            itemsIn(p.box('coder').outbox).length === 0,
        );
        assert.equal(await stopHandoffd(p.root, daemon), 0, daemon.stderr());
      } finally {
        if (daemon.child.exitCode === null) daemon.child.kill('SIGKILL');
        await daemon.exited;
      }
      fs.mkdirSync(join(p.root, 'a', 'b'), { recursive: true });
      const fromSub = ready('reviewer', join(p.root, 'a', 'b'));
      assert.match(fromSub.stdout, /PAYLOAD:\nRe-read your role and constitution.\n\none\n$/);
      const elsewhere = tempDir();
      try {
        git(p.root, 'worktree', 'add', '-q', join(elsewhere, 'wt'));
        const done = runBin('done_with_current', [], {
          role: 'reviewer',
          cwd: join(elsewhere, 'wt'),
        });
        assert.match(done.stdout, /^COMPLETED: .*\nTASK: .*\n[\s\S]*\ntwo\n$/);
      } finally {
        fs.rmSync(elsewhere, { recursive: true, force: true });
      }
    });

    it('ignores malformed roles.tsv lines and creates a missing mailbox on demand (0700)', async () => {
      const rolesPath = join(p.root, '.swarmforge', 'roles.tsv');
      fs.appendFileSync(
        rolesPath,
        'short\tline\nbad_name\tx\t/x\ts\td\tclaude\ttask\nreviewer\tdup\t/x\ts\td\tclaude\tbatch\n',
      );
      fs.rmSync(p.box('reviewer').dir, { recursive: true });
      const r = ready();
      assert.deepEqual([r.code, r.stdout], [0, 'NO_TASK\n']);
      assert.equal(fs.statSync(p.box('reviewer').inboxNew).mode & 0o777, 0o700);
      assert.equal(
        ready('bad_name').stderr,
        'Unknown role: bad_name\nKnown roles: coder, reviewer, QA.\n',
      );
    });

    it('environment errors: unset role, unknown role, invalid receive mode (exit 2)', () => {
      const unset = runBin('ready_for_next', [], { cwd: p.root });
      assert.deepEqual([unset.code, unset.stderr], [1, 'Set SWARMFORGE_ROLE.\n']);
      const ghost = ready('ghost');
      assert.deepEqual(
        [ghost.code, ghost.stderr],
        [1, 'Unknown role: ghost\nKnown roles: coder, reviewer, QA.\n'],
      );
      const typo = ready('reviwer');
      assert.deepEqual(
        [typo.code, typo.stderr],
        [1, "Unknown role: reviwer\nKnown roles: coder, reviewer, QA. Did you mean 'reviewer'?\n"],
      );
      const rolesPath = join(p.root, '.swarmforge', 'roles.tsv');
      fs.writeFileSync(
        rolesPath,
        fs.readFileSync(rolesPath, 'utf8').replace(/\ttask\n/, '\tweird\n'),
      );
      const bad = ready('coder');
      assert.deepEqual([bad.code, bad.stderr], [2, 'INVALID_RECEIVE_MODE: weird for role coder\n']);
      const help = runBin('ready_for_next', ['--help'], { cwd: p.root });
      assert.equal(help.code, 0);
      assert.match(help.stdout, /^Usage: ready_for_next/);
      const extra = runBin('ready_for_next', ['x'], { role: 'reviewer', cwd: p.root });
      assert.equal(extra.code, 1);
    });
  });

  describe('batch mode', () => {
    it('prints NO_TASK on an empty inbox', () => {
      assert.equal(ready('QA').stdout, 'NO_TASK\n');
    });

    it("claims every item with the first item's priority (no header counts as 50) into one batch", async () => {
      const box = p.box('QA');
      const a = await placeItem(
        box.inboxNew,
        { priority: '50', task: 'A', type: 'git_handoff' },
        'body A\n',
      );
      const b = await placeItem(box.inboxNew, { priority: '70' }, 'body B\n');
      const c = await placeItem(
        box.inboxNew,
        { priority: '' },
        'body C\n',
        '90_no_priority_header.handoff',
      );
      const r = ready('QA');
      assert.equal(r.code, 0, r.stderr);
      const [batchName] = fs.readdirSync(box.inProcess);
      assert.match(batchName!, /^batch_\d{8}T\d{6}Z_000001$/);
      const dir = join(box.inProcess, batchName!);
      const pathOf = (x: string) => join(dir, x.split('/').pop()!);
      assert.equal(
        r.stdout,
        `BATCH: ${dir}\nCOUNT: 2\nPRIORITY: 50\n\n` +
          `BATCH_ITEM: 1\nTASK: ${pathOf(a)}\nFROM: coder\nTYPE: git_handoff\nPRIORITY: 50\nTASK_NAME: A\nPAYLOAD:\nbody A\n\n` +
          `BATCH_ITEM: 2\nTASK: ${pathOf(c)}\nFROM: coder\nTYPE: note\nPRIORITY: 50\nPAYLOAD:\nbody C\n`,
      );
      assert.deepEqual(itemsIn(box.inboxNew), [b.split('/').pop()]);
      const stamps = await Promise.all(
        [a, c].map(
          async (x) => (await parseEnvelope(fs.readFileSync(pathOf(x)))).headers.dequeued_at,
        ),
      );
      assert.match(stamps[0]!, ISO);
      assert.equal(stamps[0], stamps[1]);
      assert.equal(ready('QA').stdout, r.stdout, 'a second call resumes the same batch');
    });

    it('refusals: single file in process, several batches, an empty batch; exit 2, nothing changed', async () => {
      const box = p.box('QA');
      const single = await placeItem(box.inProcess, {});
      let before = snapshot(p.root);
      let r = ready('QA');
      assert.equal(
        r.stderr,
        `TASK_IN_PROCESS_IS_SINGLE: a single task is in process but this role receives batches.\n- ${single}\n`,
      );
      assert.equal(r.code, 2);
      assert.deepEqual(snapshot(p.root), before);
      fs.rmSync(single);
      const b1 = join(box.inProcess, 'batch_20260101T000000Z_000001');
      const b2 = join(box.inProcess, 'batch_20260101T000000Z_000002');
      await placeItem(b1, {});
      await placeItem(b2, {});
      before = snapshot(p.root);
      r = ready('QA');
      assert.equal(
        r.stderr,
        `AMBIGUOUS_TASK_STATE: multiple batches are already in process.\n- ${b1}\n- ${b2}\n`,
      );
      assert.deepEqual(snapshot(p.root), before);
      fs.rmSync(b2, { recursive: true });
      fs.rmSync(b1, { recursive: true });
      fs.mkdirSync(b1);
      r = ready('QA');
      assert.equal(r.stderr, `AMBIGUOUS_TASK_STATE: batch contains no tasks: ${b1}\n- ${b1}\n`);
      assert.equal(r.code, 2);
    });

    it('gives a new batch a name unique across in_process/ and completed/', async () => {
      const box = p.box('QA');
      await placeItem(box.inboxNew, {});
      const first = ready('QA');
      const done = runBin('done_with_current', [], { role: 'QA', cwd: p.root });
      assert.equal(done.code, 0);
      await placeItem(box.inboxNew, {});
      const second = ready('QA');
      const nameOf = (out: string) => /^BATCH: .*\/(batch_\S+)\n/.exec(out)![1]!;
      assert.notEqual(nameOf(first.stdout), nameOf(second.stdout));
    });
  });
});
