import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { CommandFailure } from '../../lib/fsx/commandFailure.js';
import { daemonPathsOf } from '../../lib/project/layout.js';
import { sendHandoff } from '../../lib/handoff/send.js';
import { SWARM_HANDOFF_USAGE } from '../../lib/handoff/usage.js';
import { parseEnvelope, serializeEnvelope } from '../../lib/queue/envelope.js';
import { acquireLock } from '../../lib/fsx/lock.js';
import { ensureMailbox } from '../../lib/queue/mailbox.js';
import {
  commitIn,
  itemsIn,
  makeProject,
  noteDraft,
  placeItem,
  writeDraft,
  type Project,
} from '../support/project.js';

const NOW = new Date('2026-06-15T14:05:31.123Z');
const TSID = '20260615T140531Z';
const PREAMBLE = 'Re-read your role and constitution.\n\n';

describe('lib/handoff/send', () => {
  let p: Project;
  before(() => {
    p = makeProject();
  });
  after(() => p.cleanup());
  beforeEach(() => {
    fs.rmSync(p.box('coder').dir, { recursive: true, force: true });
    ensureMailbox(p.box('coder'));
  });

  const env = (role = 'coder') => ({ SWARMFORGE_ROLE: role });
  const box = () => p.box('coder');
  const tmpEntries = () => fs.readdirSync(box().outboxTmp).sort();

  function failure(kind: string, lines: string[]) {
    return (err: unknown) => {
      assert.ok(err instanceof CommandFailure, String(err));
      assert.deepEqual([err.kind, err.lines], [kind, lines]);
      return true;
    };
  }

  /**
   * Leaves the state a crash of an earlier send of `draft` leaves behind (see the crash
   * contract of send.ts): the handoff as outbox/tmp/<name>.tmp (or already renamed into
   * outbox/ when `published`), the journal record outbox/tmp/<name>.draft naming the
   * draft as it was then, and the sequence number taken.
   */
  async function leaveCrashedSend(
    draft: string,
    seq: number,
    published: boolean,
    message = 'hello',
  ): Promise<{ name: string; bytes: Buffer }> {
    const draftBytes = fs.readFileSync(draft);
    const stat = fs.statSync(draft);
    const id = `20260101T000000Z_${String(seq).padStart(6, '0')}_from_coder`;
    const name = `50_${id}_to_reviewer.handoff`;
    const bytes = await serializeEnvelope(
      {
        id,
        from: 'coder',
        to: 'reviewer',
        priority: '50',
        type: 'note',
        message,
        created_at: '2026-01-01T00:00:00.000Z',
      },
      Buffer.from(`${PREAMBLE}${message}\n`),
    );
    fs.writeFileSync(
      published ? join(box().outbox, name) : join(box().outboxTmp, `${name}.tmp`),
      bytes,
      { mode: 0o600 },
    );
    const record = {
      path: draft,
      dev: stat.dev,
      ino: stat.ino,
      size: stat.size,
      mtimeMs: stat.mtimeMs,
      sha256: createHash('sha256').update(draftBytes).digest('hex'),
      name,
    };
    fs.writeFileSync(join(box().outboxTmp, `${name}.draft`), JSON.stringify(record), {
      mode: 0o600,
    });
    fs.writeFileSync(box().seqFile, `${seq}\n`);
    return { name, bytes };
  }

  it('queues a note: the exact stdout line, name, headers, body; draft deleted; no temp or journal left', async () => {
    const draft = writeDraft(
      p.root,
      noteDraft('reviewer,QA', 'Waiting on QA result.', '70'),
      'note.txt',
    );
    const out = await sendHandoff('note.txt', p.root, env(), undefined, NOW);
    const name = `70_${TSID}_000001_from_coder_to_reviewer_QA.handoff`;
    const path = join(box().outbox, name);
    assert.equal(out, `HANDOFF QUEUED: ${path}\n`);
    assert.deepEqual(itemsIn(box().outbox), [name]);
    assert.equal(fs.statSync(path).mode & 0o777, 0o600);
    const envelope = await parseEnvelope(fs.readFileSync(path));
    assert.deepEqual(envelope.headers, {
      id: `${TSID}_000001_from_coder`,
      from: 'coder',
      to: 'reviewer,QA',
      priority: '70',
      type: 'note',
      message: 'Waiting on QA result.',
      created_at: '2026-06-15T14:05:31.123Z',
    });
    assert.equal(envelope.body.toString(), `${PREAMBLE}Waiting on QA result.\n`);
    assert.equal(fs.existsSync(draft), false);
    assert.deepEqual(tmpEntries(), []);
  });

  it('warns once, through onWarning, when no handoffd runs to deliver (the send still succeeds); not while a live daemon holds its lock', async () => {
    const warnings: string[] = [];
    writeDraft(p.root, noteDraft('reviewer'), 'w.txt');
    const out = await sendHandoff('w.txt', p.root, env(), undefined, NOW, (line) =>
      warnings.push(line),
    );
    assert.match(out, /^HANDOFF QUEUED: /);
    assert.deepEqual(warnings, ['handoffd is not running: start it with baton daemon start']);
    const release = acquireLock(daemonPathsOf(p.root).lock);
    try {
      writeDraft(p.root, noteDraft('reviewer'), 'w.txt');
      await sendHandoff('w.txt', p.root, env(), undefined, NOW, (line) => warnings.push(line));
    } finally {
      release();
    }
    assert.equal(warnings.length, 1);
  });

  it('warns as well when a retry finishes an interrupted send whose draft is gone', async () => {
    const draft = writeDraft(p.root, noteDraft('reviewer'), 'crashed.txt');
    await leaveCrashedSend(draft, 2, true);
    fs.unlinkSync(draft);
    const warnings: string[] = [];
    assert.match(
      await sendHandoff('crashed.txt', p.root, env(), undefined, NOW, (line) =>
        warnings.push(line),
      ),
      /^HANDOFF QUEUED: /,
    );
    assert.deepEqual(warnings, ['handoffd is not running: start it with baton daemon start']);
  });

  it("queues a git_handoff from the sender's worktree with role, task and the lowercase commit", async () => {
    const sha = commitIn(p.root, 'coder work');
    writeDraft(
      p.root,
      `type: git_handoff\nto: reviewer\npriority: 05\ntask: task-1\ncommit: ${sha.slice(0, 10).toUpperCase()}\n`,
      'git.txt',
    );
    const out = await sendHandoff('git.txt', p.root, env(), undefined, NOW);
    const path = join(box().outbox, `05_${TSID}_000001_from_coder_to_reviewer.handoff`);
    assert.equal(out, `HANDOFF QUEUED: ${path}\n`);
    const envelope = await parseEnvelope(fs.readFileSync(path));
    assert.deepEqual(envelope.headers, {
      id: `${TSID}_000001_from_coder`,
      from: 'coder',
      to: 'reviewer',
      priority: '05',
      type: 'git_handoff',
      role: 'coder',
      task: 'task-1',
      commit: sha.slice(0, 10),
      created_at: '2026-06-15T14:05:31.123Z',
    });
    assert.equal(
      envelope.body.toString(),
      `${PREAMBLE}merge_and_process coder ${sha.slice(0, 10)}\n`,
    );
  });

  it('numbers successive sends 1, 2, 3 and resolves a relative draft against cwd', async () => {
    fs.mkdirSync(join(p.root, 'sub'), { recursive: true });
    const names: string[] = [];
    for (let i = 0; i < 3; i++) {
      writeDraft(join(p.root, 'sub'), noteDraft('reviewer', `n${i}`), 'd.txt');
      const out = await sendHandoff('d.txt', join(p.root, 'sub'), env(), undefined, NOW);
      names.push(out.trim().split('/').pop()!);
    }
    assert.deepEqual(
      names.map((n) => n.split('_')[2]),
      ['000001', '000002', '000003'],
    );
    assert.equal(fs.readFileSync(box().seqFile, 'utf8'), '3\n');
  });

  it('an invalid draft: the exact report (kind invalid), draft kept, nothing written, no sequence consumed', async () => {
    const text = 'type: note\nto: ghost\npriority: 5\n';
    const draft = writeDraft(p.root, text, 'bad.txt');
    await assert.rejects(
      sendHandoff('bad.txt', p.root, env(), undefined, NOW),
      failure('invalid', [
        'HANDOFF INVALID: bad.txt',
        '',
        'Errors:',
        "- Header 'priority' must be two digits from 00 to 99; got '5'.",
        "- Unknown recipient role 'ghost'.",
        "- Missing required header 'message' for note.",
        'Known roles: coder, reviewer, QA.',
        '',
        SWARM_HANDOFF_USAGE,
      ]),
    );
    assert.equal(fs.readFileSync(draft, 'utf8'), text);
    assert.equal(fs.existsSync(box().seqFile), false);
    assert.deepEqual(itemsIn(box().outbox), []);
    assert.deepEqual(tmpEntries(), []);
  });

  it('checks the draft before the role: a missing draft or a directory is "Draft file not found" even with no role', async () => {
    await assert.rejects(
      sendHandoff('nope.txt', p.root, {}, undefined, NOW),
      failure('usage', ['Draft file not found: nope.txt']),
    );
    await assert.rejects(
      sendHandoff('nope.txt', p.root, env(), undefined, NOW),
      failure('usage', ['Draft file not found: nope.txt']),
    );
    await assert.rejects(
      sendHandoff('swarmforge', p.root, env(), undefined, NOW),
      failure('usage', ['Draft file not found: swarmforge']),
    );
  });

  it('then the role: unset, unknown sender; the draft is kept', async () => {
    const draft = writeDraft(p.root, noteDraft('reviewer'), 'role.txt');
    await assert.rejects(
      sendHandoff('role.txt', p.root, {}, undefined, NOW),
      failure('environment', ['Set SWARMFORGE_ROLE.']),
    );
    await assert.rejects(
      sendHandoff('role.txt', p.root, env('ghost'), undefined, NOW),
      failure('environment', ['Unknown sender role: ghost', 'Known roles: coder, reviewer, QA.']),
    );
    assert.ok(fs.existsSync(draft));
    assert.deepEqual(itemsIn(box().outbox), []);
  });

  it('a doubled call that read the draft before the first call queued it queues nothing more', async () => {
    // Each call reads the draft, then validates it unlocked (the commit lookup runs git), and
    // only then takes the outbox lock. Whichever lookup ends first completes its whole send
    // (no I/O wait under the lock) before the other call takes the lock: the other call must
    // then see that its draft is gone instead of queuing it a second time.
    await serializeEnvelope({}, Buffer.alloc(0)); // js-yaml loaded: no wait inside the lock
    const sha = commitIn(p.root, 'raced work');
    writeDraft(
      p.root,
      `type: git_handoff\nto: reviewer\npriority: 50\ntask: t\ncommit: ${sha.slice(0, 10)}\n`,
      'twice.txt',
    );
    const timeout = process.env.BATON_LOCK_TIMEOUT_MS;
    process.env.BATON_LOCK_TIMEOUT_MS = '3000';
    let calls: PromiseSettledResult<string>[];
    try {
      calls = await Promise.allSettled([
        sendHandoff('twice.txt', p.root, env(), undefined, NOW),
        sendHandoff('twice.txt', p.root, env(), undefined, NOW),
      ]);
    } finally {
      if (timeout === undefined) delete process.env.BATON_LOCK_TIMEOUT_MS;
      else process.env.BATON_LOCK_TIMEOUT_MS = timeout;
    }
    const queued = itemsIn(box().outbox);
    assert.equal(queued.length, 1, `one draft queued as ${queued.join(', ')}`);
    assert.ok(calls.some((c) => c.status === 'fulfilled'));
    for (const call of calls) {
      if (call.status === 'fulfilled')
        assert.equal(call.value, `HANDOFF QUEUED: ${join(box().outbox, queued[0]!)}\n`);
      else failure('usage', ['Draft file not found: twice.txt'])(call.reason);
    }
  });

  describe('retry after a crash (journal record left in outbox/tmp)', () => {
    it('before the rename: the retry publishes the temp file once, takes no new number, removes draft and record', async () => {
      const draft = writeDraft(p.root, noteDraft('reviewer'), 'crashed.txt');
      const { name, bytes } = await leaveCrashedSend(draft, 1, false);
      const out = await sendHandoff('crashed.txt', p.root, env(), undefined, NOW);
      assert.equal(out, `HANDOFF QUEUED: ${join(box().outbox, name)}\n`);
      assert.deepEqual(itemsIn(box().outbox), [name]);
      assert.ok(
        fs.readFileSync(join(box().outbox, name)).equals(bytes),
        'the journalled handoff is published, not a new one',
      );
      assert.equal(fs.readFileSync(box().seqFile, 'utf8'), '1\n');
      assert.equal(fs.existsSync(draft), false);
      assert.deepEqual(tmpEntries(), []);
      await assert.rejects(
        sendHandoff('crashed.txt', p.root, env(), undefined, NOW),
        failure('usage', ['Draft file not found: crashed.txt']),
      );
      assert.deepEqual(itemsIn(box().outbox), [name]);
    });

    it('after the rename: the retry reports the published file and queues nothing more', async () => {
      const draft = writeDraft(p.root, noteDraft('reviewer'), 'crashed.txt');
      const { name, bytes } = await leaveCrashedSend(draft, 4, true);
      const out = await sendHandoff(
        draft,
        '/',
        { ...env(), SWARMFORGE_ROOT: p.root },
        undefined,
        NOW,
      );
      assert.equal(out, `HANDOFF QUEUED: ${join(box().outbox, name)}\n`);
      assert.deepEqual(itemsIn(box().outbox), [name]);
      assert.ok(fs.readFileSync(join(box().outbox, name)).equals(bytes));
      assert.equal(fs.readFileSync(box().seqFile, 'utf8'), '4\n');
      assert.equal(fs.existsSync(draft), false);
      assert.deepEqual(tmpEntries(), []);
    });

    it('after the draft was deleted: the retry of that path finishes the send and reports it', async () => {
      const draft = writeDraft(p.root, noteDraft('reviewer'), 'crashed.txt');
      const { name } = await leaveCrashedSend(draft, 2, true);
      fs.unlinkSync(draft);
      const out = await sendHandoff('crashed.txt', p.root, env(), undefined, NOW);
      assert.equal(out, `HANDOFF QUEUED: ${join(box().outbox, name)}\n`);
      assert.deepEqual(itemsIn(box().outbox), [name]);
      assert.deepEqual(tmpEntries(), []);
      await assert.rejects(
        sendHandoff('crashed.txt', p.root, env(), undefined, NOW),
        failure('usage', ['Draft file not found: crashed.txt']),
      );
    });

    it('a record of another draft path is left alone; that draft is still missing', async () => {
      const other = writeDraft(p.root, noteDraft('reviewer'), 'other.txt');
      const { name } = await leaveCrashedSend(other, 1, false);
      await assert.rejects(
        sendHandoff('crashed.txt', p.root, env(), undefined, NOW),
        failure('usage', ['Draft file not found: crashed.txt']),
      );
      assert.deepEqual(tmpEntries(), [`${name}.draft`, `${name}.tmp`]);
      assert.deepEqual(itemsIn(box().outbox), []);
    });

    it('a replaced draft discards the stale record and its unpublished temp file, and sends the new draft', async () => {
      const draft = writeDraft(p.root, noteDraft('reviewer', 'old text'), 'replaced.txt');
      const stale = await leaveCrashedSend(draft, 1, false, 'old text');
      writeDraft(p.root, noteDraft('reviewer', 'new text, longer'), 'replaced.txt');
      const out = await sendHandoff('replaced.txt', p.root, env(), undefined, NOW);
      const name = `50_${TSID}_000002_from_coder_to_reviewer.handoff`;
      assert.equal(out, `HANDOFF QUEUED: ${join(box().outbox, name)}\n`);
      assert.deepEqual(itemsIn(box().outbox), [name], `stale ${stale.name} must not be published`);
      assert.equal(
        (await parseEnvelope(fs.readFileSync(join(box().outbox, name)))).headers.message,
        'new text, longer',
      );
      assert.deepEqual(tmpEntries(), []);
    });

    it('a replaced draft whose earlier handoff was already published keeps that one and adds the new one', async () => {
      const draft = writeDraft(p.root, noteDraft('reviewer', 'first'), 'again.txt');
      const earlier = await leaveCrashedSend(draft, 1, true, 'first');
      writeDraft(p.root, noteDraft('reviewer', 'second draft'), 'again.txt');
      await sendHandoff('again.txt', p.root, env(), undefined, NOW);
      assert.deepEqual(itemsIn(box().outbox), [
        earlier.name,
        `50_${TSID}_000002_from_coder_to_reviewer.handoff`,
      ]);
      assert.deepEqual(tmpEntries(), []);
    });

    it('a torn journal record (cut before its fsync) is ignored: the send goes ahead normally', async () => {
      writeDraft(p.root, noteDraft('reviewer'), 'torn.txt');
      fs.writeFileSync(
        join(box().outboxTmp, '50_x_000009_from_coder_to_reviewer.handoff.draft'),
        '{"path": "/wor',
      );
      const out = await sendHandoff('torn.txt', p.root, env(), undefined, NOW);
      assert.equal(
        out,
        `HANDOFF QUEUED: ${join(box().outbox, `50_${TSID}_000001_from_coder_to_reviewer.handoff`)}\n`,
      );
      assert.deepEqual(itemsIn(box().outbox), [`50_${TSID}_000001_from_coder_to_reviewer.handoff`]);
    });
  });

  describe('sequence recovery (protocol §4)', () => {
    async function placeOwnIds(): Promise<void> {
      await placeItem(box().outbox, { id: '20260101T000000Z_000003_from_coder' });
      await placeItem(box().sent, { id: '20260101T000000Z_000007_from_coder' });
      await placeItem(box().failed, { id: '20260101T000000Z_000005_from_coder' });
    }

    it('a missing sequence file: the next number is one more than the highest id in outbox/, sent/ and failed/', async () => {
      await placeOwnIds();
      writeDraft(p.root, noteDraft('reviewer'), 'seq.txt');
      const out = await sendHandoff('seq.txt', p.root, env(), undefined, NOW);
      assert.match(out, new RegExp(`/50_${TSID}_000008_from_coder_to_reviewer\\.handoff\\n$`));
    });

    it("an unreadable sequence file: the same recovery from the sender's own ids", async () => {
      await placeOwnIds();
      fs.writeFileSync(box().seqFile, 'garbage\n');
      writeDraft(p.root, noteDraft('reviewer'), 'seq.txt');
      const out = await sendHandoff('seq.txt', p.root, env(), undefined, NOW);
      assert.match(out, new RegExp(`/50_${TSID}_000008_from_coder_to_reviewer\\.handoff\\n$`));
    });
  });
});
