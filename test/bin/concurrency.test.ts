// Many agents' calls racing on one inbox (protocol §7, §9.3): the built ready_for_next and
// done_with_current, run as separate processes, must hand out every item exactly once,
// never hold two items in process, and never fail with an internal error.
//
// A sampler in the test process lists inbox/in_process/ continuously while the workers
// run. A listing is not atomic, so a listing that shows two entries is confirmed before
// it counts: every entry is lstat'ed in two rounds; an entry is in in_process/ during one
// interval only (it arrives once by rename and leaves once by rename), so an entry seen in
// both rounds was there throughout, and all of them were there together at the end of the
// first round.
//
// Size: the task-mode race drains 24 items under `npm test` and 500 under `npm run soak`
// (BATON_RACE_ITEMS sets it); the batch race 48 and 120 (BATON_RACE_BATCH_ITEMS).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { parseEnvelope } from '../../lib/queue/envelope.js';
import {
  itemsIn,
  makeProject,
  placeItem,
  runBinAsync,
  tempDir,
  type Project,
  type RunResult,
} from '../support/project.js';
import { sizeFrom } from '../support/tier.js';

/** One finished bin call. */
interface Call extends RunResult {
  bin: string;
  worker: number;
}

/** xorshift32: reproducible choice of command per worker. */
function chooser(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 4294967296;
  };
}

const isEntry = (name: string) => !name.startsWith('.');

function exists(path: string): boolean {
  try {
    fs.lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * Lists `dir` in a fast loop until `running()` is false; returns how many listings it made
 * and every confirmed instant at which `dir` held more than one of the entries `counts` keeps.
 */
async function sample(
  dir: string,
  counts: (name: string) => boolean,
  running: () => boolean,
): Promise<{ samples: number; violations: string[][] }> {
  let samples = 0;
  const violations: string[][] = [];
  while (running()) {
    let names: string[];
    try {
      names = (await fs.promises.readdir(dir)).filter(counts);
    } catch {
      names = [];
    }
    samples += 1;
    if (names.length > 1) {
      const paths = names.map((n) => join(dir, n));
      const first = paths.map(exists);
      const second = paths.map(exists);
      const together = names.filter((_, i) => first[i] && second[i]).sort();
      if (together.length > 1) violations.push(together);
    }
    // Paced at the timer's resolution (~1 ms) so the sampler does not take a core from the
    // workers; two items in process would stay there for a whole call, far longer.
    await new Promise((tick) => setTimeout(tick, 0));
  }
  return { samples, violations };
}

/** Runs `workers` loops of the two commands for `role` until `allDone()`; returns every call. */
async function race(
  p: Project,
  role: string,
  workers: number,
  doneShare: number,
  allDone: () => boolean,
  afterCall: () => void,
  maxCalls: number,
): Promise<Call[]> {
  const calls: Call[] = [];
  let stop = false;
  await Promise.all(
    Array.from({ length: workers }, async (_, worker) => {
      const next = chooser(0x5eed + worker * 7919);
      while (!stop) {
        const bin = next() < doneShare ? 'done_with_current' : 'ready_for_next';
        const result = await runBinAsync(bin, [], { role, cwd: p.root });
        calls.push({ ...result, bin, worker });
        afterCall();
        if (allDone() || calls.length >= maxCalls) stop = true;
      }
    }),
  );
  return calls;
}

/** Problems with the exit codes and streams of the calls; `nothing` is the role's "nothing in process" refusal. */
function callProblems(calls: Call[], nothing: string): string[] {
  const problems: string[] = [];
  for (const c of calls) {
    const where = `${c.bin} (worker ${c.worker}) exit ${c.code} signal ${c.signal}`;
    if (/AMBIGUOUS_TASK_STATE/.test(c.stdout + c.stderr))
      problems.push(`${where}: ${c.stderr.split('\n')[0]}`);
    if (/^\s+at |Error:|node:internal/m.test(c.stderr))
      problems.push(`${where}: stack trace or internal error: ${c.stderr.slice(0, 300)}`);
    if (c.code === 0) {
      if (c.stderr !== '')
        problems.push(`${where}: stderr ${JSON.stringify(c.stderr.slice(0, 300))}`);
    } else if (c.code === 1) {
      if (c.bin !== 'done_with_current' || c.stderr !== `${nothing}\n` || c.stdout !== '') {
        problems.push(
          `${where}: stderr ${JSON.stringify(c.stderr.slice(0, 300))} stdout ${JSON.stringify(c.stdout.slice(0, 100))}`,
        );
      }
    } else problems.push(`${where}: stderr ${JSON.stringify(c.stderr.slice(0, 300))}`);
  }
  return problems;
}

describe('concurrent ready_for_next / done_with_current', function () {
  this.timeout(300_000);
  let p: Project;
  afterEach(() => p?.cleanup());

  const RACE_ITEMS = sizeFrom('BATON_RACE_ITEMS', { short: 16, full: 500 });

  it(`task mode: 8 processes drain ${RACE_ITEMS} items, each completed exactly once, never two in process`, async () => {
    const ITEMS = RACE_ITEMS;
    p = makeProject();
    const box = p.box('reviewer');
    const ids = new Map<string, string>();
    for (let i = 0; i < ITEMS; i++) {
      const id = `20260102T030405Z_${String(i + 1).padStart(6, '0')}_from_coder`;
      const priority = ['10', '50', '90'][i % 3]!;
      const body = `item ${i}\r\nno trailing newline`;
      await placeItem(box.inboxNew, { id, priority }, body);
      ids.set(id, body);
    }
    assert.equal(itemsIn(box.inboxNew).length, ITEMS);

    // The sampler itself must see two entries in a folder that holds two.
    const scratch = tempDir('baton-sampler-');
    fs.writeFileSync(join(scratch, 'a.handoff'), '');
    fs.writeFileSync(join(scratch, 'b.handoff'), '');
    let probes = 0;
    const probe = await sample(
      scratch,
      (n) => n.endsWith('.handoff'),
      () => probes++ < 3,
    );
    fs.rmSync(scratch, { recursive: true, force: true });
    assert.deepEqual(probe.violations, [
      ['a.handoff', 'b.handoff'],
      ['a.handoff', 'b.handoff'],
      ['a.handoff', 'b.handoff'],
    ]);

    let running = true;
    const completedCount = () => itemsIn(box.completed).length;
    const sampler = sample(
      box.inProcess,
      (n) => isEntry(n) && n.endsWith('.handoff'),
      () => running,
    );
    const calls = await race(
      p,
      'reviewer',
      8,
      0.9,
      () => completedCount() >= ITEMS,
      () => undefined,
      4 * ITEMS,
    );
    running = false;
    const { samples, violations } = await sampler;

    assert.deepEqual(callProblems(calls, 'NO_CURRENT_TASK'), []);
    assert.deepEqual(violations, [], 'two items in process at once');
    // At least one listing per call made: calls overlap eight at a time and two items in
    // process would stay there for a whole call, so the sampler looked often enough to see
    // them (a count fixed in advance failed once the commands got faster and the drain
    // shorter).
    assert.ok(
      samples >= calls.length,
      `the sampler listed in_process/ only ${samples} times for ${calls.length} calls`,
    );

    // stdout: every item reported COMPLETED exactly once, every claim printed in full.
    const completedLines = calls.flatMap((c) =>
      [...c.stdout.matchAll(/^COMPLETED: (.+)$/gm)].map((m) => m[1]!),
    );
    assert.equal(completedLines.length, ITEMS, `${completedLines.length} COMPLETED lines`);
    assert.equal(new Set(completedLines).size, ITEMS, 'an item was reported COMPLETED twice');
    for (const c of calls.filter((c) => c.code === 0)) {
      const claim =
        c.bin === 'done_with_current' ? c.stdout.replace(/^COMPLETED: .+\n/, '') : c.stdout;
      assert.ok(
        claim === 'NO_TASK\n' ||
          /^TASK: .+\nFROM: coder\nTYPE: note\nPRIORITY: \d\d\nPAYLOAD:\nitem \d+\r\nno trailing newline\n$/.test(
            claim,
          ),
        `${c.bin}: ${JSON.stringify(c.stdout)}`,
      );
    }

    // Files: ITEMS in completed/ with ITEMS distinct ids, bodies intact, nothing left behind.
    const done = itemsIn(box.completed);
    assert.equal(done.length, ITEMS);
    assert.deepEqual(fs.readdirSync(box.inboxNew), []);
    assert.deepEqual(fs.readdirSync(box.inProcess), []);
    assert.deepEqual(
      fs.readdirSync(box.completed).filter((n) => !done.includes(n)),
      [],
      'stray files in completed/',
    );
    const seen = new Set<string>();
    for (const name of done) {
      const envelope = await parseEnvelope(fs.readFileSync(join(box.completed, name)));
      const id = envelope.headers.id!;
      assert.ok(ids.has(id), `unknown id ${id}`);
      assert.ok(!seen.has(id), `id ${id} completed twice`);
      seen.add(id);
      assert.equal(envelope.body.toString('utf8'), ids.get(id));
      assert.match(envelope.headers.dequeued_at ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      assert.match(envelope.headers.completed_at ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    }
    assert.equal(seen.size, ITEMS);
  });

  const BATCH_ITEMS = sizeFrom('BATON_RACE_BATCH_ITEMS', { short: 48, full: 120 });
  it(`batch mode: 4 processes drain ${BATCH_ITEMS} items of 3 priorities arriving meanwhile; one priority per batch`, async () => {
    const ITEMS = BATCH_ITEMS;
    p = makeProject();
    const box = p.box('QA');
    const staging = tempDir('baton-staging-');
    try {
      const pending: { name: string; priority: string }[] = [];
      for (let i = 0; i < ITEMS; i++) {
        const priority = ['20', '50', '80'][(i * 7) % 3]!;
        const id = `20260102T030405Z_${String(i + 1).padStart(6, '0')}_from_coder`;
        const name = `${priority}_${id}_to_QA.handoff`;
        await placeItem(
          staging,
          {
            id,
            priority,
            to: 'QA',
            recipient: 'QA',
            type: 'git_handoff',
            role: 'coder',
            task: `t${i}`,
            commit: '0123456789',
          },
          `b${i}\n`,
          name,
        );
        pending.push({ name, priority });
      }
      const priorityOf = new Map(
        pending.map((x) => [x.name.slice(3).replace(/_to_QA\.handoff$/, ''), x.priority]),
      );
      // Items arrive in chunks between calls, published by rename as a delivery would be.
      const deliverChunk = () => {
        for (const { name } of pending.splice(0, 4))
          fs.renameSync(join(staging, name), join(box.inboxNew, name));
      };
      deliverChunk();
      const completedItems = () =>
        fs
          .readdirSync(box.completed)
          .reduce(
            (n, d) => n + (d.startsWith('batch_') ? itemsIn(join(box.completed, d)).length : 0),
            0,
          );

      let running = true;
      const sampler = sample(
        box.inProcess,
        (n) => (isEntry(n) && n.endsWith('.handoff')) || n.startsWith('batch_'),
        () => running,
      );
      const calls = await race(
        p,
        'QA',
        4,
        0.7,
        () => pending.length === 0 && completedItems() >= ITEMS,
        deliverChunk,
        1000,
      );
      running = false;
      const { samples, violations } = await sampler;

      assert.deepEqual(callProblems(calls, 'NO_CURRENT_BATCH'), []);
      assert.deepEqual(violations, [], 'two batches (or a file and a batch) in process at once');
      assert.ok(
        samples >= calls.length,
        `the sampler listed in_process/ only ${samples} times for ${calls.length} calls`,
      );

      // stdout: each printed batch is consistent; each item and each batch completed once.
      for (const c of calls.filter((c) => c.code === 0)) {
        for (const m of c.stdout.matchAll(/^BATCH: .+\nCOUNT: (\d+)\nPRIORITY: (\d\d)\n/gm)) {
          const rest = c.stdout.slice(m.index! + m[0].length);
          const block = rest.split(/^(?=BATCH: )/m)[0]!;
          const priorities = [...block.matchAll(/^PRIORITY: (\d\d)$/gm)].map((x) => x[1]);
          assert.equal(
            priorities.length,
            Number(m[1]),
            `COUNT ${m[1]} but ${priorities.length} items: ${c.stdout.slice(0, 400)}`,
          );
          assert.ok(
            priorities.every((x) => x === m[2]),
            `batch of priority ${m[2]} lists ${priorities.join(',')}`,
          );
        }
      }
      const completedLines = calls.flatMap((c) =>
        [...c.stdout.matchAll(/^COMPLETED: (.+)$/gm)].map((m) => m[1]!),
      );
      assert.equal(completedLines.length, ITEMS, `${completedLines.length} COMPLETED lines`);
      assert.equal(
        new Set(completedLines.map((l) => l.split('/').pop())).size,
        ITEMS,
        'an item was reported COMPLETED twice',
      );
      const batchLines = calls.flatMap((c) =>
        [...c.stdout.matchAll(/^COMPLETED_BATCH: (.+)$/gm)].map((m) => m[1]!),
      );
      assert.equal(
        new Set(batchLines).size,
        batchLines.length,
        'a batch was reported COMPLETED_BATCH twice',
      );

      // Files: only batch folders in completed/, each of one priority, 120 distinct ids.
      assert.deepEqual(fs.readdirSync(box.inboxNew), []);
      assert.deepEqual(fs.readdirSync(box.inProcess), []);
      const batches = fs.readdirSync(box.completed).sort();
      assert.deepEqual(
        batches.filter((b) => !/^batch_\d{8}T\d{6}Z_\d{6}$/.test(b)),
        [],
        'completed/ holds something other than batches',
      );
      assert.deepEqual(
        [...batchLines].sort(),
        batches.map((b) => join(box.completed, b)),
      );
      const seen = new Set<string>();
      for (const batch of batches) {
        const dir = join(box.completed, batch);
        assert.deepEqual(
          fs.readdirSync(dir).filter((n) => !itemsIn(dir).includes(n)),
          [],
          `stray files in ${dir}`,
        );
        const priorities = new Set<string>();
        const completedAt = new Set<string>();
        for (const name of itemsIn(dir)) {
          const envelope = await parseEnvelope(fs.readFileSync(join(dir, name)));
          const id = envelope.headers.id!;
          assert.ok(priorityOf.has(id), `unknown id ${id}`);
          assert.ok(!seen.has(id), `id ${id} completed twice`);
          seen.add(id);
          assert.equal(envelope.headers.priority, priorityOf.get(id));
          priorities.add(envelope.headers.priority!);
          completedAt.add(envelope.headers.completed_at ?? '');
          assert.match(
            envelope.headers.dequeued_at ?? '',
            /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/,
          );
        }
        assert.equal(priorities.size, 1, `${batch} mixes priorities ${[...priorities].join(', ')}`);
        assert.equal(completedAt.size, 1, `${batch} carries several completion times`);
      }
      assert.equal(seen.size, ITEMS);
      assert.ok(
        batches.length >= 6,
        `only ${batches.length} batches: the race did not interleave arrivals and claims`,
      );
    } finally {
      fs.rmSync(staging, { recursive: true, force: true });
    }
  });
});
