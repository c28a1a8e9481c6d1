// Crash safety of the built agent bins (architecture: "faults are first-class"). Each case
// kills a bin with SIGKILL at one step (BATON_CRASH_AT=<step>[#<n>]), then recovers the way
// an agent would (retry, or ready_for_next) and checks the whole inbox: every item exactly
// once (by its `id` header), at most one item in process, no hidden staging or temp entry
// left, one `dequeued_at`/`completed_at` where due, bodies byte-identical, and the agent
// handed its task with the exact text of protocol §7.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { casesOf } from '../support/tier.js';
import { parseEnvelope, type Headers } from '../../lib/queue/envelope.js';
import { type Mailbox } from '../../lib/queue/mailbox.js';
import {
  itemsIn,
  makeProject,
  noteDraft,
  placeItem,
  runBin,
  writeDraft,
  type Project,
  type RunResult,
} from '../support/project.js';

/** One queue item as the test wrote it. */
interface Fixture {
  id: string;
  name: string;
  priority: string;
  body: Buffer;
  headers: Headers;
}

/** One item as found in the inbox after recovery. */
interface Found {
  path: string;
  where: 'new' | 'in_process' | 'completed';
  batch?: string;
  headers: Headers;
  body: Buffer;
  rawHeader: string;
}

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const BATCH_NAME = /^batch_\d{8}T\d{6}Z_\d{6}$/;
const LIFECYCLE = ['dequeued_at', 'completed_at'];

let project: Project;
let itemSeq = 0;

function boxOf(role: string): Mailbox {
  return project.box(role);
}

/** Removes a role's whole mailbox (the bins recreate it). */
function resetMailbox(role: string): void {
  fs.rmSync(boxOf(role).dir, { recursive: true, force: true });
}

/** Places one waiting item in `role`'s inbox/new/ with a unique id. */
async function waiting(role: string, priority: string, body: Buffer | string): Promise<Fixture> {
  itemSeq += 1;
  const id = `20260101T000000Z_${String(itemSeq).padStart(6, '0')}_from_coder`;
  const name = `${priority}_${id}_to_${role}.handoff`;
  const headers: Headers = {
    id,
    from: 'coder',
    to: role,
    recipient: role,
    priority,
    type: 'note',
    message: `message ${itemSeq}`,
    created_at: '2026-01-01T00:00:00.000Z',
    enqueued_at: '2026-01-01T00:00:01.000Z',
  };
  const bytes = Buffer.from(body);
  await placeItem(boxOf(role).inboxNew, headers, bytes, name);
  return { id, name, priority, body: bytes, headers };
}

/** Runs a bin for `role` with no fault injection. */
function run(bin: string, role: string, args: string[] = []): RunResult {
  return runBin(bin, args, { role, cwd: project.root, env: { BATON_CRASH_AT: undefined } });
}

/** Runs a bin that must die by SIGKILL at `step`, having printed nothing. */
function crash(bin: string, role: string, step: string, args: string[] = []): void {
  const result = runBin(bin, args, { role, cwd: project.root, env: { BATON_CRASH_AT: step } });
  assert.equal(
    result.signal,
    'SIGKILL',
    `${bin} did not die at ${step}: exit ${result.code}, stderr ${result.stderr}`,
  );
  assert.equal(result.stdout, '', `${bin} printed before dying at ${step}`);
}

/** The exact text of one printed task (protocol §7.1). */
function taskText(path: string, item: Fixture): Buffer {
  const head = `TASK: ${path}\nFROM: coder\nTYPE: note\nPRIORITY: ${item.priority}\nPAYLOAD:\n`;
  const newline = item.body.length > 0 && item.body[item.body.length - 1] === 0x0a ? '' : '\n';
  return Buffer.concat([Buffer.from(head), item.body, Buffer.from(newline)]);
}

/** The exact text of one printed batch (protocol §7.2). */
function batchText(dir: string, items: Fixture[]): Buffer {
  const parts: Buffer[] = [
    Buffer.from(`BATCH: ${dir}\nCOUNT: ${items.length}\nPRIORITY: ${items[0]!.priority}\n`),
  ];
  items.forEach((item, i) =>
    parts.push(Buffer.from(`\nBATCH_ITEM: ${i + 1}\n`), taskText(join(dir, item.name), item)),
  );
  return Buffer.concat(parts);
}

function assertBytes(actual: Buffer, expected: Buffer, what: string): void {
  assert.equal(actual.toString('latin1'), expected.toString('latin1'), what);
}

function headerCount(rawHeader: string, name: string): number {
  return rawHeader.split('\n').filter((line) => line.startsWith(`${name}:`)).length;
}

/** Every entry of the inbox: items with their place, plus hidden and stray entries. */
async function scanInbox(
  box: Mailbox,
): Promise<{ items: Found[]; hidden: string[]; strays: string[]; inProcessEntries: string[] }> {
  const items: Found[] = [];
  const hidden: string[] = [];
  const strays: string[] = [];
  for (const name of fs.readdirSync(box.inbox)) {
    if (!['new', 'in_process', 'completed'].includes(name)) strays.push(join(box.inbox, name));
  }
  const readOne = async (path: string, where: Found['where'], batch?: string) => {
    const raw = fs.readFileSync(path);
    const envelope = await parseEnvelope(raw);
    assert.equal(envelope.legacy, false, `${path} is not front matter`);
    const end = raw.indexOf('\n---\n', 3);
    items.push({
      path,
      where,
      batch,
      headers: envelope.headers,
      body: envelope.body,
      rawHeader: raw.subarray(4, end + 1).toString('utf8'),
    });
  };
  for (const where of ['new', 'in_process', 'completed'] as const) {
    const dir = join(box.inbox, where);
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.name.startsWith('.')) hidden.push(path);
      else if (entry.isFile() && entry.name.endsWith('.handoff')) await readOne(path, where);
      else if (entry.isDirectory() && where !== 'new' && entry.name.startsWith('batch_')) {
        for (const inner of fs.readdirSync(path, { withFileTypes: true })) {
          const innerPath = join(path, inner.name);
          if (inner.name.startsWith('.')) hidden.push(innerPath);
          else if (inner.isFile() && inner.name.endsWith('.handoff'))
            await readOne(innerPath, where, entry.name);
          else strays.push(innerPath);
        }
      } else strays.push(path);
    }
  }
  const inProcessEntries = fs.readdirSync(box.inProcess).filter((n) => !n.startsWith('.'));
  return { items, hidden, strays, inProcessEntries };
}

/** Where each item must be: waiting, in process (one task, or the items of one batch), completed (groups). */
interface Expected {
  mode: 'task' | 'batch';
  waiting: Fixture[];
  inProcess: Fixture[];
  completed: Fixture[][];
}

/** What verifyInbox learned: the paths the agent should be shown. */
interface Verified {
  /** Absolute path of each item, by id. */
  pathOf: Map<string, string>;
  /** The batch directory in process (batch mode), else undefined. */
  batchDir?: string;
  /** The completed batch directory of each completed group (batch mode). */
  completedDirs: string[];
}

/** Checks every invariant of the inbox against the expected placement of the items. */
async function verifyInbox(box: Mailbox, expected: Expected): Promise<Verified> {
  const { items, hidden, strays, inProcessEntries } = await scanInbox(box);
  assert.deepEqual(hidden, [], 'hidden staging or temp entries were left behind');
  assert.deepEqual(strays, [], 'unexpected entries in the inbox');
  assert.ok(
    inProcessEntries.length <= 1,
    `more than one item in process: ${inProcessEntries.join(', ')}`,
  );
  const all = [...expected.waiting, ...expected.inProcess, ...expected.completed.flat()];
  const byId = new Map<string, Found[]>();
  for (const found of items) {
    assert.ok(found.headers.id, `${found.path} has no id`);
    byId.set(found.headers.id, [...(byId.get(found.headers.id) ?? []), found]);
  }
  assert.deepEqual(
    [...byId.keys()].sort(),
    all.map((f) => f.id).sort(),
    'the set of item ids changed',
  );
  const pathOf = new Map<string, string>();
  const foundOf = (f: Fixture): Found => {
    const copies = byId.get(f.id)!;
    assert.equal(
      copies.length,
      1,
      `${f.id} exists ${copies.length} times: ${copies.map((c) => c.path).join(', ')}`,
    );
    const found = copies[0]!;
    assert.equal(found.path.split('/').pop(), f.name, `${f.id} was renamed`);
    assertBytes(found.body, f.body, `body of ${f.id} changed`);
    for (const [key, value] of Object.entries(f.headers))
      assert.equal(found.headers[key], value, `header ${key} of ${f.id} changed`);
    for (const key of Object.keys(found.headers)) {
      assert.ok(key in f.headers || LIFECYCLE.includes(key), `unexpected header ${key} on ${f.id}`);
    }
    pathOf.set(f.id, found.path);
    return found;
  };
  for (const f of expected.waiting) {
    const found = foundOf(f);
    assert.equal(found.where, 'new', `${f.id} should be waiting, is in ${found.where}`);
    assert.equal(
      headerCount(found.rawHeader, 'dequeued_at'),
      0,
      `${f.id} is waiting but has dequeued_at`,
    );
    assert.equal(
      headerCount(found.rawHeader, 'completed_at'),
      0,
      `${f.id} is waiting but has completed_at`,
    );
  }
  const batchDirs = new Set<string>();
  for (const f of expected.inProcess) {
    const found = foundOf(f);
    assert.equal(found.where, 'in_process', `${f.id} should be in process, is in ${found.where}`);
    assert.equal(
      headerCount(found.rawHeader, 'dequeued_at'),
      1,
      `${f.id} needs exactly one dequeued_at`,
    );
    assert.match(found.headers.dequeued_at!, ISO);
    assert.equal(
      headerCount(found.rawHeader, 'completed_at'),
      0,
      `${f.id} is in process but has completed_at`,
    );
    if (expected.mode === 'batch') {
      assert.match(found.batch ?? '', BATCH_NAME, `${f.id} should be in a batch directory`);
      batchDirs.add(join(box.inProcess, found.batch!));
    } else {
      assert.equal(found.batch, undefined, `${f.id} should be a single task`);
    }
  }
  assert.ok(batchDirs.size <= 1, 'the in-process items are split over several batches');
  const completedDirs: string[] = [];
  for (const group of expected.completed) {
    const found = group.map(foundOf);
    const stamps = new Set<string>();
    for (const [i, c] of found.entries()) {
      assert.equal(c.where, 'completed', `${group[i]!.id} should be completed, is in ${c.where}`);
      assert.equal(
        headerCount(c.rawHeader, 'dequeued_at'),
        1,
        `${group[i]!.id} needs exactly one dequeued_at`,
      );
      assert.equal(
        headerCount(c.rawHeader, 'completed_at'),
        1,
        `${group[i]!.id} needs exactly one completed_at`,
      );
      assert.match(c.headers.completed_at!, ISO);
      assert.ok(
        c.headers.dequeued_at! <= c.headers.completed_at!,
        `${group[i]!.id} completed before it was dequeued`,
      );
      stamps.add(c.headers.completed_at!);
    }
    if (expected.mode === 'batch') {
      const dirs = new Set(found.map((c) => c.batch));
      assert.equal(dirs.size, 1, 'a completed batch was split');
      const [name] = [...dirs];
      assert.match(name ?? '', BATCH_NAME);
      assert.equal(
        itemsIn(join(box.completed, name!)).length,
        group.length,
        'the completed batch holds other items',
      );
      assert.equal(
        stamps.size,
        1,
        `the items of one completed batch carry different completed_at: ${[...stamps].join(', ')}`,
      );
      completedDirs.push(join(box.completed, name!));
    } else {
      assert.equal(found[0]!.batch, undefined);
    }
  }
  return { pathOf, batchDir: [...batchDirs][0], completedDirs };
}

/** The text ready_for_next prints for the work in process of a verified inbox. */
function workText(expected: Expected, verified: Verified): Buffer {
  if (expected.mode === 'batch') return batchText(verified.batchDir!, expected.inProcess);
  const [item] = expected.inProcess;
  return taskText(verified.pathOf.get(item!.id)!, item!);
}

/** The COMPLETED lines done_with_current prints for a finished task or batch. */
function completedText(
  mode: 'task' | 'batch',
  group: Fixture[],
  verified: Verified,
  groupIndex = 0,
): string {
  if (mode === 'task') return `COMPLETED: ${verified.pathOf.get(group[0]!.id)}\n`;
  const dir = verified.completedDirs[groupIndex]!;
  return `${group.map((f) => `COMPLETED: ${join(dir, f.name)}\n`).join('')}COMPLETED_BATCH: ${dir}\n`;
}

/** The task-mode fixture: reviewer has A (priority 10), B and C (50) waiting. */
async function taskFixture(): Promise<Fixture[]> {
  resetMailbox('reviewer');
  return [
    await waiting('reviewer', '10', 'alpha\r\nwith CRLF\r\n'),
    await waiting('reviewer', '50', 'beta without a trailing newline'),
    await waiting('reviewer', '50', 'gamma\n\n\n'),
  ];
}

/** The batch-mode fixture: QA has A1–A3 (priority 20) and B1, B2 (70) waiting. */
async function batchFixture(): Promise<Fixture[]> {
  resetMailbox('QA');
  return [
    await waiting(
      'QA',
      '20',
      Buffer.concat([Buffer.from('---\nfake: header\n---\n'), Buffer.from([0xff, 0x00, 0xfe])]),
    ),
    await waiting('QA', '20', ''),
    await waiting('QA', '20', 'a3\r\n\r\n'),
    await waiting('QA', '70', 'b1 body\n'),
    await waiting('QA', '70', 'b2\n---\nnot a header\n'),
  ];
}

describe('crash safety', () => {
  before(() => {
    project = makeProject();
  });

  after(() => {
    project.cleanup();
  });

  describe('swarm_handoff', () => {
    interface SendCase {
      step: string;
      /** Whether the handoff is already in outbox/ when the process dies. */
      publishedAtCrash: boolean;
      /** Whether the draft is already deleted when the process dies. */
      draftGoneAtCrash: boolean;
      /** The agent deletes its draft before retrying. */
      deleteDraftBeforeRetry?: boolean;
      /** The agent writes the same draft again (new inode and mtime) before retrying. */
      rewriteDraftBeforeRetry?: boolean;
    }
    const cases: SendCase[] = [
      { step: 'send:sequence-saved', publishedAtCrash: false, draftGoneAtCrash: false },
      { step: 'send:temp-synced', publishedAtCrash: false, draftGoneAtCrash: false },
      { step: 'send:journal-synced', publishedAtCrash: false, draftGoneAtCrash: false },
      { step: 'send:published', publishedAtCrash: true, draftGoneAtCrash: false },
      { step: 'send:draft-removed', publishedAtCrash: true, draftGoneAtCrash: true },
      {
        step: 'send:published',
        publishedAtCrash: true,
        draftGoneAtCrash: false,
        deleteDraftBeforeRetry: true,
      },
      {
        step: 'send:published',
        publishedAtCrash: true,
        draftGoneAtCrash: false,
        rewriteDraftBeforeRetry: true,
      },
    ];

    const queuedIn = (box: Mailbox) => itemsIn(box.outbox).map((n) => join(box.outbox, n));
    const seqOf = (path: string) => Number(/_(\d{6,})_from_/.exec(path)![1]);

    // npm test: a crash before and after the publish, and the agent's two retries after it.
    for (const c of casesOf(cases, (_, i) => i === 1 || i >= 4)) {
      const label = `${c.step}${c.deleteDraftBeforeRetry ? ' (draft deleted by the agent before the retry)' : ''}${c.rewriteDraftBeforeRetry ? ' (same draft written again before the retry)' : ''}`;
      it(`queues exactly one handoff after a crash at ${label}`, async () => {
        resetMailbox('coder');
        const box = boxOf('coder');
        const message = `crash at ${c.step}`;
        const draft = writeDraft(project.root, noteDraft('reviewer', message), 'crash-draft.txt');
        crash('swarm_handoff', 'coder', c.step, [draft]);

        const queuedAtCrash = queuedIn(box);
        assert.equal(queuedAtCrash.length, c.publishedAtCrash ? 1 : 0, 'outbox after the crash');
        assert.equal(fs.existsSync(draft), !c.draftGoneAtCrash, 'draft after the crash');
        const bytesAtCrash = queuedAtCrash.map((p) => fs.readFileSync(p));
        if (c.deleteDraftBeforeRetry) fs.unlinkSync(draft);
        if (c.rewriteDraftBeforeRetry) {
          const text = fs.readFileSync(draft);
          fs.unlinkSync(draft);
          fs.writeFileSync(draft, text);
        }

        const retry = run('swarm_handoff', 'coder', [draft]);
        assert.equal(retry.code, 0, retry.stderr);
        const queued = queuedIn(box);
        assert.equal(queued.length, 1, `outbox holds ${queued.length} handoffs for one draft`);
        assert.equal(retry.stdout, `HANDOFF QUEUED: ${queued[0]}\n`);
        if (c.publishedAtCrash) {
          assert.equal(
            queued[0],
            queuedAtCrash[0],
            'the retry queued another file than the one already published',
          );
          assertBytes(
            fs.readFileSync(queued[0]!),
            bytesAtCrash[0]!,
            'the published handoff changed',
          );
        }
        assert.equal(fs.existsSync(draft), false, 'the draft survives a successful retry');
        const envelope = await parseEnvelope(fs.readFileSync(queued[0]!));
        assert.equal(envelope.headers.from, 'coder');
        assert.equal(envelope.headers.to, 'reviewer');
        assert.equal(envelope.headers.message, message);
        assert.equal(
          envelope.body.toString('utf8'),
          `Re-read your role and constitution.\n\n${message}\n`,
        );
        assert.deepEqual(
          fs.readdirSync(box.outboxTmp).filter((n) => n.endsWith('.draft')),
          [],
          'send journal records left behind',
        );
        assert.ok(
          !fs.readdirSync(box.outboxTmp).includes(`${queued[0]!.split('/').pop()}.tmp`),
          'a temp copy of the queued handoff is left',
        );

        // A doubled call after success queues nothing more.
        const doubled = run('swarm_handoff', 'coder', [draft]);
        assert.equal(doubled.code, 1);
        assert.equal(doubled.stderr, `Draft file not found: ${draft}\n`);
        assert.deepEqual(queuedIn(box), queued);

        // The next send takes a fresh sequence number; leftovers of the crash are never published.
        const next = run('swarm_handoff', 'coder', [
          writeDraft(project.root, noteDraft('reviewer', 'next one'), 'next-draft.txt'),
        ]);
        assert.equal(next.code, 0, next.stderr);
        const after = queuedIn(box);
        assert.equal(after.length, 2, `outbox: ${after.join(', ')}`);
        const nextPath = next.stdout.replace('HANDOFF QUEUED: ', '').trim();
        assert.ok(seqOf(nextPath) > seqOf(queued[0]!), 'a sequence number was reused');
      });
    }
  });

  describe('ready_for_next', () => {
    const taskCases: string[][] = [
      ['claim:moved'],
      ['claim:synced'],
      ['rewrite:temp-synced'],
      ['rewrite:renamed'],
      ['claim:moved', 'rewrite:temp-synced'],
      ['rewrite:temp-synced', 'rewrite:renamed'],
    ];
    // npm test: one crash in the claim, one in the rewrite, and one of each in turn.
    for (const crashes of casesOf(taskCases, (_, i) => i % 2 === 0)) {
      it(`task mode: hands out the first task exactly once after a crash at ${crashes.join(', then ')}`, async () => {
        const [a, b, c] = await taskFixture();
        for (const step of crashes) crash('ready_for_next', 'reviewer', step);
        const ready = run('ready_for_next', 'reviewer');
        assert.equal(ready.code, 0, ready.stderr);
        const expected: Expected = {
          mode: 'task',
          waiting: [b!, c!],
          inProcess: [a!],
          completed: [],
        };
        const verified = await verifyInbox(boxOf('reviewer'), expected);
        assertBytes(ready.stdoutBytes, workText(expected, verified), 'ready_for_next output');
      });
    }

    const batchCases: string[][] = [
      ['batch:staging-created'],
      ['batch:item-staged#1'],
      ['batch:item-staged#2'],
      ['batch:item-staged#3'],
      ['batch:staged-synced'],
      ['batch:published'],
      ['rewrite:temp-synced#1'],
      ['rewrite:temp-synced#2'],
      ['rewrite:temp-synced#3'],
      ['rewrite:renamed#1'],
      ['rewrite:renamed#2'],
      ['rewrite:renamed#3'],
      ['batch:item-staged#2', 'batch:staged-synced'],
      ['batch:published', 'rewrite:renamed#2'],
      ['rewrite:renamed#1', 'rewrite:temp-synced#1'],
    ];
    // npm test: staging, publishing, rewriting and a double crash.
    for (const crashes of casesOf(batchCases, (_, i) => i % 3 === 0 || i === 5)) {
      it(`batch mode: claims the whole batch exactly once after a crash at ${crashes.join(', then ')}`, async () => {
        const [a1, a2, a3, b1, b2] = await batchFixture();
        for (const step of crashes) crash('ready_for_next', 'QA', step);
        const ready = run('ready_for_next', 'QA');
        assert.equal(ready.code, 0, ready.stderr);
        const expected: Expected = {
          mode: 'batch',
          waiting: [b1!, b2!],
          inProcess: [a1!, a2!, a3!],
          completed: [],
        };
        const verified = await verifyInbox(boxOf('QA'), expected);
        assertBytes(ready.stdoutBytes, workText(expected, verified), 'ready_for_next output');
      });
    }
  });

  describe('done_with_current', () => {
    /**
     * Where the crash leaves the work: `complete` = the finished work is still in process
     * (stamping), `moved` = it is completed and nothing new is in process, `claimed` = the
     * next work is already in process (not yet shown to the agent).
     */
    type Phase = 'complete' | 'moved' | 'claimed';
    /** How the agent recovers: retry `done_with_current <ID>`, retry it bare, or run `ready_for_next`. */
    type Recovery = 'done-with-id' | 'done' | 'ready';

    const taskCases: [string, Phase][] = [
      ['rewrite:temp-synced', 'complete'],
      ['rewrite:renamed', 'complete'],
      ['finish:stamped', 'complete'],
      ['finish:moved', 'moved'],
      ['claim:moved', 'claimed'],
      ['claim:synced', 'claimed'],
      ['rewrite:temp-synced#2', 'claimed'],
      ['rewrite:renamed#2', 'claimed'],
    ];
    const batchCases: [string, Phase][] = [
      ['rewrite:temp-synced#1', 'complete'],
      ['rewrite:temp-synced#3', 'complete'],
      ['rewrite:renamed#2', 'complete'],
      ['rewrite:renamed#3', 'complete'],
      ['finish:stamped', 'complete'],
      ['finish:moved', 'moved'],
      ['batch:staging-created', 'moved'],
      ['batch:item-staged#1', 'moved'],
      ['batch:item-staged#2', 'moved'],
      ['batch:staged-synced', 'moved'],
      ['batch:published', 'claimed'],
      ['rewrite:temp-synced#4', 'claimed'],
      ['rewrite:renamed#5', 'claimed'],
    ];
    // Before the move, a bare retry completes the work the agent was given ('ready' then
    // retries with the ID); after it, only a retry naming the finished work is safe (a bare
    // one would complete the next work, which the agent has not seen).
    const recoveriesOf = (phase: Phase): Recovery[] =>
      phase === 'complete' ? ['done', 'ready'] : ['done-with-id', 'ready'];

    for (const mode of ['task', 'batch'] as const) {
      const role = mode === 'task' ? 'reviewer' : 'QA';
      const steps = mode === 'task' ? taskCases : batchCases;
      // npm test: the first step of each phase, each with both of its recoveries.
      const short = ([, phase]: [string, Phase], i: number) =>
        steps.findIndex(([, p]) => p === phase) === i;
      for (const [step, phase] of casesOf(steps, short)) {
        for (const recovery of recoveriesOf(phase)) {
          it(`${mode} mode: crash at ${step} (${phase}), recovered by ${recovery}`, async () => {
            const box = boxOf(role);
            const fixtures = mode === 'task' ? await taskFixture() : await batchFixture();
            const finished = mode === 'task' ? fixtures.slice(0, 1) : fixtures.slice(0, 3);
            const next = mode === 'task' ? fixtures.slice(1, 2) : fixtures.slice(3);
            const rest = mode === 'task' ? fixtures.slice(2) : [];
            const first = run('ready_for_next', role);
            assert.equal(first.code, 0, first.stderr);
            assert.ok(
              first.stdout.startsWith(
                mode === 'task' ? `TASK: ${join(box.inProcess, finished[0]!.name)}\n` : 'BATCH: ',
              ),
              first.stdout,
            );
            const current =
              mode === 'task'
                ? finished[0]!.id
                : fs.readdirSync(box.inProcess).find((n) => n.startsWith('batch_'))!;
            assert.ok(current, 'the first batch was not claimed');

            crash('done_with_current', role, step);

            let last: RunResult;
            let finishedByLast = false;
            let alreadyByLast = false;
            if (recovery === 'ready') {
              const ready = run('ready_for_next', role);
              assert.equal(ready.code, 0, ready.stderr);
              if (phase === 'complete') {
                // Not completed yet: the agent is shown its current work again, unchanged.
                const dir = mode === 'batch' ? join(box.inProcess, current) : undefined;
                const text =
                  mode === 'batch'
                    ? batchText(dir!, finished)
                    : taskText(join(box.inProcess, finished[0]!.name), finished[0]!);
                assertBytes(ready.stdoutBytes, text, 'resumed work');
                last = run('done_with_current', role, [current]);
                finishedByLast = true;
              } else {
                last = ready;
              }
            } else if (recovery === 'done') {
              last = run('done_with_current', role);
              finishedByLast = true;
            } else if (phase === 'moved') {
              // The finished work is completed and nothing is in process: the retry says so
              // and claims the next work, as the interrupted call would have.
              last = run('done_with_current', role, [current]);
              alreadyByLast = true;
            } else {
              // The next work is in process but the agent never saw it: a retry naming the
              // finished work must not complete it (verifyInbox below finds it in process);
              // it says ALREADY_COMPLETED and shows that work, as ready_for_next would.
              last = run('done_with_current', role, [current]);
              alreadyByLast = true;
            }
            assert.equal(last.code, 0, last.stderr);

            const expected: Expected = {
              mode,
              waiting: rest,
              inProcess: next,
              completed: [finished],
            };
            const verified = await verifyInbox(box, expected);
            if (mode === 'batch')
              assert.equal(
                verified.completedDirs[0],
                join(box.completed, current),
                'the batch was renamed on completion',
              );
            const finishedAt =
              mode === 'task' ? verified.pathOf.get(finished[0]!.id)! : verified.completedDirs[0]!;
            const text = Buffer.concat([
              Buffer.from(finishedByLast ? completedText(mode, finished, verified) : ''),
              Buffer.from(alreadyByLast ? `ALREADY_COMPLETED: ${finishedAt}\n` : ''),
              workText(expected, verified),
            ]);
            assertBytes(last.stdoutBytes, text, 'the output the agent sees');
          });
        }
      }
    }
  });
});
