// Durability of the built agent bins (protocol §9.5): every success line is printed only
// after the file that it reports and the directory entries that publish it are fsync'd.
// Each bin runs under strace (argument vector, no shell); the log is parsed into system
// calls with their fd paths (-y) and the order of writes, fsyncs, renames and the stdout
// line is checked. Also checks the modes of what the bins create (0700 folders, 0600 files).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { dirname, join } from 'node:path';
import { type Mailbox } from '../../lib/queue/mailbox.js';
import { parseStrace, traceNode, Trace, type Call } from '../support/strace.js';
import {
  BIN_DIR,
  itemsIn,
  makeProject,
  noteDraft,
  placeItem,
  runBin,
  writeDraft,
  type Project,
} from '../support/project.js';

/** Runs a built bin under strace; returns its result and the parsed calls. */
function traced(
  bin: string,
  args: string[],
  role: string,
  cwd: string,
): { code: number | null; stdout: string; stderr: string; calls: Call[] } {
  const env: NodeJS.ProcessEnv = { ...process.env, SWARMFORGE_ROLE: role };
  delete env.SWARMFORGE_ROOT;
  return traceNode([join(BIN_DIR, `${bin}.js`), ...args], { cwd, env, stringBytes: 65536 });
}

let project: Project;

function boxOf(role: string): Mailbox {
  return project.box(role);
}

/** A waiting item in `role`'s inbox/new/ (as handoffd would deliver it). */
async function waiting(role: string, priority: string, n: number): Promise<string> {
  const id = `20260101T000000Z_${String(n).padStart(6, '0')}_from_coder`;
  return placeItem(
    boxOf(role).inboxNew,
    { id, to: role, recipient: role, priority },
    `body ${n}\n`,
    `${priority}_${id}_to_${role}.handoff`,
  );
}

/** Empties a role's mailbox and places waiting items (priority, number); returns their names. */
async function freshInbox(role: string, items: [string, number][]): Promise<string[]> {
  fs.rmSync(boxOf(role).dir, { recursive: true, force: true });
  const names: string[] = [];
  for (const [priority, n] of items)
    names.push((await waiting(role, priority, n)).split('/').pop()!);
  return names;
}

/** Runs ready_for_next untraced (to set up work in process). */
function claimUntraced(role: string): string {
  const ready = runBin('ready_for_next', [], { role, cwd: project.root });
  assert.equal(ready.code, 0, ready.stderr);
  return ready.stdout;
}

/** Checks the claim of one waiting task into in_process/ up to the stdout write `printed`. */
function assertTaskClaimDurable(trace: Trace, box: Mailbox, name: string, printed: Call): void {
  const claim = trace.rename(join(box.inboxNew, name), join(box.inProcess, name));
  const temp = join(box.inProcess, `.${name}.tmp`);
  const stamp = trace.rename(temp, join(box.inProcess, name));
  assert.ok(
    claim.end < stamp.start && stamp.end < printed.start,
    'claim, stamp and output are out of order',
  );
  // The stamped file is durable before it replaces the item; the move and the stamp are
  // made durable together, by fsyncs of in_process/ and new/ after both, before the output.
  trace.fsyncBetween(temp, trace.lastWrite(temp), stamp, 'dequeued_at temp file');
  trace.fsyncBetween(box.inProcess, stamp, printed, 'claim and dequeued_at renames');
  trace.fsyncBetween(box.inboxNew, claim, printed, 'claim rename out of new/');
}

describe('durability (strace)', () => {
  before(function () {
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
    project = makeProject();
  });

  after(() => {
    project.cleanup();
  });

  it('reads strace -f logs: an <unfinished ...> call and its <... resumed> line are one call', () => {
    const calls = parseStrace(
      [
        '101  fsync(18</r/box/outbox/tmp/a.tmp> <unfinished ...>',
        '102  write(5<pipe:[1]>, "*", 1) = 1',
        '101  <... fsync resumed>)             = 0',
        '101  rename("/r/box/outbox/tmp/a.tmp", "/r/box/outbox/a \\\"q\\\".handoff") = 0',
        '101  write(1<socket:[9]>, "HANDOFF QUEUED: x\\n", 18) = 18',
      ].join('\n'),
    );
    assert.deepEqual(
      calls.map((c) => [c.name, c.start, c.end, c.pid]),
      [
        ['write', 1, 1, 102],
        ['fsync', 0, 2, 101],
        ['rename', 3, 3, 101],
        ['write', 4, 4, 101],
      ],
    );
    assert.equal(calls[1]!.fdPath, '/r/box/outbox/tmp/a.tmp');
    assert.deepEqual(calls[2]!.strings, ['/r/box/outbox/tmp/a.tmp', '/r/box/outbox/a "q".handoff']);
    assert.equal(calls[3]!.fd, 1);
    assert.equal(calls[3]!.strings[0], 'HANDOFF QUEUED: x\n');
  });

  it('swarm_handoff fsyncs the handoff before publishing it and outbox/ before HANDOFF QUEUED', () => {
    const box = boxOf('coder');
    const draft = writeDraft(
      project.root,
      noteDraft('reviewer', 'traced send'),
      'traced-draft.txt',
    );
    const run = traced('swarm_handoff', [draft], 'coder', project.root);
    assert.equal(run.code, 0, run.stderr);
    const queued = run.stdout.replace('HANDOFF QUEUED: ', '').trim();
    assert.equal(dirname(queued), box.outbox);
    const name = queued.split('/').pop()!;
    const trace = new Trace(run.calls);
    const temp = join(box.outboxTmp, `${name}.tmp`);
    const publish = trace.rename(temp, queued);
    const printed = trace.stdout('HANDOFF QUEUED: ');
    assert.ok(
      publish.end < printed.start,
      'HANDOFF QUEUED printed before the handoff was published',
    );
    trace.fsyncBetween(temp, trace.lastWrite(temp), publish, 'outbox temp file');
    trace.fsyncBetween(box.outbox, publish, printed, 'publish rename into outbox/');
    assert.equal(fs.readFileSync(queued, 'utf8').includes('traced send'), true);
  });

  it('ready_for_next (task) fsyncs the claim, the dequeued_at stamp and in_process/ before TASK', async () => {
    const box = boxOf('reviewer');
    const [name] = await freshInbox('reviewer', [
      ['40', 1],
      ['50', 2],
    ]);
    assert.ok(name);
    const run = traced('ready_for_next', [], 'reviewer', project.root);
    assert.equal(run.code, 0, run.stderr);
    assert.ok(run.stdout.startsWith(`TASK: ${join(box.inProcess, name)}\n`), run.stdout);
    const trace = new Trace(run.calls);
    assertTaskClaimDurable(trace, box, name, trace.stdout('TASK: '));
  });

  it('ready_for_next (task) opens in_process/ three times and its lock folder twice', async () => {
    const box = boxOf('reviewer');
    await freshInbox('reviewer', [['50', 6]]);
    const run = traced('ready_for_next', [], 'reviewer', project.root);
    assert.equal(run.code, 0, run.stderr);
    const opens = (dir: string) =>
      run.calls.filter((c) => c.name === 'openat' && c.strings[0] === dir).length;
    // in_process/: the idle check without the lock, one listing under it (the roll-back of a
    // staged batch, the work in process and its items read from it), the fsync after the claim.
    assert.equal(opens(box.inProcess), 3);
    // The lock: one listing to take the next generation, one to confirm it and clean up.
    assert.equal(opens(box.inboxLock), 2);
  });

  it('done_with_current (task) fsyncs completed/ and in_process/ after the move, before COMPLETED', async () => {
    const box = boxOf('reviewer');
    const [current, next] = await freshInbox('reviewer', [
      ['40', 3],
      ['50', 4],
      ['50', 5],
    ]);
    assert.ok(current && next);
    assert.ok(claimUntraced('reviewer').startsWith(`TASK: ${join(box.inProcess, current)}\n`));
    const run = traced('done_with_current', [], 'reviewer', project.root);
    assert.equal(run.code, 0, run.stderr);
    assert.ok(
      run.stdout.startsWith(
        `COMPLETED: ${join(box.completed, current)}\nTASK: ${join(box.inProcess, next)}\n`,
      ),
      run.stdout,
    );
    const trace = new Trace(run.calls);
    const printed = trace.stdout('COMPLETED: ');
    const temp = join(box.inProcess, `.${current}.tmp`);
    const stamp = trace.rename(temp, join(box.inProcess, current));
    const move = trace.rename(join(box.inProcess, current), join(box.completed, current));
    assert.ok(
      stamp.end < move.start && move.end < printed.start,
      'stamp, move and output are out of order',
    );
    trace.fsyncBetween(temp, trace.lastWrite(temp), stamp, 'completed_at temp file');
    trace.fsyncBetween(box.completed, move, printed, 'move into completed/');
    trace.fsyncBetween(box.inProcess, move, printed, 'move out of in_process/');
    // The next task, claimed in the same call, is as durable as a claim by ready_for_next.
    assertTaskClaimDurable(trace, box, next, printed);
  });

  it('done_with_current (task) with nothing waiting fsyncs both folders of the move before COMPLETED', async () => {
    const box = boxOf('reviewer');
    const [current] = await freshInbox('reviewer', [['40', 6]]);
    assert.ok(current);
    assert.ok(claimUntraced('reviewer').startsWith(`TASK: ${join(box.inProcess, current)}\n`));
    const run = traced('done_with_current', [], 'reviewer', project.root);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, `COMPLETED: ${join(box.completed, current)}\nNO_TASK\n`);
    const trace = new Trace(run.calls);
    const printed = trace.stdout('COMPLETED: ');
    const move = trace.rename(join(box.inProcess, current), join(box.completed, current));
    trace.fsyncBetween(box.completed, move, printed, 'move into completed/');
    trace.fsyncBetween(box.inProcess, move, printed, 'move out of in_process/');
  });

  it('ready_for_next (batch) fsyncs the staged items, the published batch and its stamps before BATCH', async () => {
    const box = boxOf('QA');
    const names = (
      await freshInbox('QA', [
        ['30', 11],
        ['30', 12],
        ['30', 13],
        ['60', 14],
      ])
    ).slice(0, 3);
    const run = traced('ready_for_next', [], 'QA', project.root);
    assert.equal(run.code, 0, run.stderr);
    const batchDir = /^BATCH: (.*)\n/.exec(run.stdout)?.[1];
    assert.ok(batchDir && dirname(batchDir) === box.inProcess, run.stdout);
    const trace = new Trace(run.calls);
    const printed = trace.stdout('BATCH: ');
    const publishes = trace
      .renamesBetween(box.inProcess, box.inProcess)
      .filter((c) => c.strings[1] === batchDir);
    assert.equal(publishes.length, 1, 'the batch was not published by exactly one rename');
    const publish = publishes[0]!;
    const staging = publish.strings[0]!;
    assert.match(staging.split('/').pop()!, /^\./, 'the batch was not staged under a hidden name');
    const staged = names.map((n) => trace.rename(join(box.inboxNew, n), join(staging, n)));
    const lastStaged = staged.reduce((a, b) => (a.end > b.end ? a : b));
    assert.ok(
      lastStaged.end < publish.start && publish.end < printed.start,
      'staging, publish and output are out of order',
    );
    trace.fsyncBetween(staging, lastStaged, publish, 'items staged in the batch directory');
    trace.fsyncBetween(box.inboxNew, lastStaged, publish, 'items staged out of new/');
    trace.fsyncBetween(box.inProcess, publish, printed, 'batch publish rename');
    let lastStamp = publish;
    for (const n of names) {
      const temp = join(batchDir, `.${n}.tmp`);
      const stamp = trace.rename(temp, join(batchDir, n));
      assert.ok(publish.end < stamp.start, 'an item was stamped before the batch was published');
      trace.fsyncBetween(temp, trace.lastWrite(temp), stamp, `dequeued_at temp file of ${n}`);
      if (stamp.end > lastStamp.end) lastStamp = stamp;
    }
    trace.fsyncBetween(batchDir, lastStamp, printed, 'dequeued_at renames in the batch');
  });

  it('done_with_current (batch) fsyncs completed/ and in_process/ after moving the batch, before COMPLETED', async () => {
    const box = boxOf('QA');
    await freshInbox('QA', [
      ['30', 15],
      ['30', 16],
    ]);
    const batch = /^BATCH: .*\/(batch_[^/\n]+)\n/.exec(claimUntraced('QA'))?.[1];
    assert.ok(batch, 'no batch was claimed');
    const run = traced('done_with_current', [], 'QA', project.root);
    assert.equal(run.code, 0, run.stderr);
    assert.ok(
      run.stdout.endsWith(`COMPLETED_BATCH: ${join(box.completed, batch)}\nNO_TASK\n`),
      run.stdout,
    );
    const trace = new Trace(run.calls);
    const printed = trace.stdout('COMPLETED: ');
    const move = trace.rename(join(box.inProcess, batch), join(box.completed, batch));
    assert.ok(move.end < printed.start);
    // The stamps' renames inside the batch folder are durable before it moves.
    const stamps = trace.renamesBetween(join(box.inProcess, batch), join(box.inProcess, batch));
    assert.equal(stamps.length, 2, 'each item of the batch is stamped once');
    const lastStamp = stamps.reduce((a, b) => (a.end > b.end ? a : b));
    trace.fsyncBetween(join(box.inProcess, batch), lastStamp, move, 'completed_at renames');
    trace.fsyncBetween(box.completed, move, printed, 'batch move into completed/');
    trace.fsyncBetween(box.inProcess, move, printed, 'batch move out of in_process/');
  });

  it('creates mailbox folders 0700 and items 0600 whatever the umask', async () => {
    const previous = process.umask(0);
    try {
      const modesUnder = (dir: string) => {
        const wrong: string[] = [];
        const walk = (d: string) => {
          for (const entry of fs.readdirSync(d, { withFileTypes: true })) {
            const path = join(d, entry.name);
            const mode = fs.lstatSync(path).mode & 0o777;
            if (entry.isDirectory()) {
              if (mode !== 0o700) wrong.push(`${path} ${mode.toString(8)}`);
              walk(path);
            } else if (mode !== 0o600) wrong.push(`${path} ${mode.toString(8)}`);
          }
        };
        walk(dir);
        return wrong;
      };
      for (const role of ['coder', 'reviewer', 'QA'])
        fs.rmSync(boxOf(role).dir, { recursive: true, force: true });

      const sent = runBin(
        'swarm_handoff',
        [writeDraft(project.root, noteDraft('reviewer', 'modes'), 'mode-draft.txt')],
        { role: 'coder', cwd: project.root },
      );
      assert.equal(sent.code, 0, sent.stderr);
      assert.equal(itemsIn(boxOf('coder').outbox).length, 1);
      assert.deepEqual(modesUnder(boxOf('coder').dir), [], 'after swarm_handoff');

      // Only inbox/new/ exists (as delivery leaves it); the bins create the other folders.
      await waiting('reviewer', '50', 21);
      await waiting('reviewer', '50', 22);
      const ready = runBin('ready_for_next', [], { role: 'reviewer', cwd: project.root });
      assert.match(ready.stdout, /^TASK: /, ready.stderr);
      const done = runBin('done_with_current', [], { role: 'reviewer', cwd: project.root });
      assert.match(done.stdout, /^COMPLETED: /, done.stderr);
      assert.equal(itemsIn(boxOf('reviewer').completed).length, 1);
      assert.equal(itemsIn(boxOf('reviewer').inProcess).length, 1);
      assert.deepEqual(
        modesUnder(boxOf('reviewer').dir),
        [],
        'after ready_for_next and done_with_current',
      );

      await waiting('QA', '50', 23);
      await waiting('QA', '50', 24);
      const batch = runBin('ready_for_next', [], { role: 'QA', cwd: project.root });
      assert.match(batch.stdout, /^BATCH: .*\nCOUNT: 2\n/, batch.stderr);
      assert.deepEqual(modesUnder(boxOf('QA').dir), [], 'after a batch claim');
    } finally {
      process.umask(previous);
    }
  });
});
