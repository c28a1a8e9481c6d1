// Crash safety of the built handoffd (protocol §8, §9.1–9.2): a handoff is delivered to
// each recipient exactly once, or lands in failed/ with a reason, whatever point the
// daemon is killed at. Each case kills the daemon with SIGKILL (BATON_CRASH_AT=<step>[#<n>]
// or a kill from the test), restarts it without fault injection, waits for the files to
// settle by polling the file system, stops it with the `stop` sentinel, then checks every
// mailbox: one copy per (id, recipient) across new/, in_process/ (batches included) and
// completed/ (batches included), each copy complete (original headers, `recipient`,
// `enqueued_at`, body byte-identical), the original in sent/ (or failed/) exactly once and
// unchanged, and no temp file left behind.
//
// The soak draws its fault schedule from a seeded PRNG: a failure prints the seed and
// `BATON_SOAK_SEED=<seed> npx mocha test/bin/handoffd_crash.test.ts` replays the schedule
// (add BATON_TEST_TIER=full for a failure of `npm run soak`). The soak and the notification
// overflow run short under `npm test` and at full size under `npm run soak`.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { parseEnvelope, serializeEnvelope, type Headers } from '../../lib/queue/envelope.js';
import { type Mailbox } from '../../lib/queue/mailbox.js';
import {
  BIN_DIR,
  itemsIn,
  makeProject,
  noteDraft,
  runBin,
  runBinAsync,
  writeDraft,
  type Project,
  type RunResult,
} from '../support/project.js';
import { fixtureText } from '../support/fixtures.js';
import { byTier, casesOf, describeInSoak, sizeFrom } from '../support/tier.js';
import { mulberry32 } from '../support/seededRandom.js';

/** coder sends to a, b (task mode) and c (batch mode). */
const CONF = fixtureText('conf', 'fan-out.conf');
const RECIPIENTS = ['a', 'b', 'c'];
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
/** Headers a copy may carry besides the original's. */
const ADDED = new Set(['recipient', 'enqueued_at', 'dequeued_at', 'completed_at']);

// ---------------------------------------------------------------------------------------
// Processes

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** One daemon started by a test. */
interface Daemon {
  child: ChildProcess;
  pid: number;
  exited: Promise<Exit>;
  stderr: () => string;
}

const daemons: Daemon[] = [];
const projects: Project[] = [];

function isRunning(d: Daemon): boolean {
  return d.child.exitCode === null && d.child.signalCode === null;
}

/** Spawns the built handoffd on `root` (fault injection only when `crashAt` is given). */
function startDaemon(root: string, options: { crashAt?: string; pollMs?: number } = {}): Daemon {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.BATON_CRASH_AT;
  delete env.SWARMFORGE_ROOT;
  delete env.SWARMFORGE_ROLE;
  if (options.crashAt) env.BATON_CRASH_AT = options.crashAt;
  const child = spawn(
    process.execPath,
    [
      join(BIN_DIR, 'handoffd.js'),
      '--root',
      root,
      '--poll-interval',
      String(options.pollMs ?? 250),
      '--quiet',
    ],
    { cwd: root, env, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  const err: Buffer[] = [];
  child.stderr!.on('data', (b: Buffer) => err.push(b));
  const exited = new Promise<Exit>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  if (child.pid === undefined) throw new Error('handoffd did not start');
  const daemon: Daemon = {
    child,
    pid: child.pid,
    exited,
    stderr: () => Buffer.concat(err).toString('utf8'),
  };
  daemons.push(daemon);
  return daemon;
}

/** Resolves with `promise`'s value, or undefined after `ms`. */
async function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls `condition` until it holds; fails after `timeoutMs`, or at once if `daemon` exits meanwhile. */
async function waitFor(
  what: string,
  condition: () => boolean,
  timeoutMs: number,
  daemon?: Daemon,
  intervalMs = 20,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (condition()) return;
    if (daemon && !isRunning(daemon)) {
      throw new Error(
        `handoffd exited (${daemon.child.exitCode ?? daemon.child.signalCode}) while waiting for ${what}: ${daemon.stderr()}`,
      );
    }
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await pause(intervalMs);
  }
}

function daemonDir(p: Project): string {
  return join(p.root, '.swarmforge', 'daemon');
}

/** health.json as last written (undefined while missing or being rewritten). */
function healthOf(p: Project): { pid: number; passes: number } | undefined {
  try {
    return JSON.parse(fs.readFileSync(join(daemonDir(p), 'health.json'), 'utf8')) as {
      pid: number;
      passes: number;
    };
  } catch {
    return undefined;
  }
}

/** True once `d` has finished at least one full pass. */
function passedOnce(p: Project, d: Daemon): boolean {
  const health = healthOf(p);
  return health !== undefined && health.pid === d.pid && health.passes >= 1;
}

/** Runs a daemon that must die by SIGKILL at `crashAt`. */
async function crashDaemon(p: Project, crashAt: string): Promise<void> {
  const d = startDaemon(p.root, { crashAt });
  const exit = await within(d.exited, 30_000);
  assert.ok(exit, `handoffd did not reach ${crashAt} within 30 s`);
  assert.equal(
    exit.signal,
    'SIGKILL',
    `handoffd did not die at ${crashAt}: exit ${exit.code}, stderr ${d.stderr()}`,
  );
}

/** Stops a daemon with the `stop` sentinel and checks its clean exit. */
async function stopDaemon(p: Project, d: Daemon): Promise<void> {
  fs.writeFileSync(join(daemonDir(p), 'stop'), '');
  const exit = await within(d.exited, 30_000);
  assert.ok(exit, 'handoffd did not stop within 30 s of the stop file');
  assert.deepEqual(exit, { code: 0, signal: null }, `handoffd stderr: ${d.stderr()}`);
  assert.ok(!fs.existsSync(join(daemonDir(p), 'handoffd.pid')), 'pid file left after a clean stop');
  assert.ok(!fs.existsSync(join(daemonDir(p), 'stop')), 'stop file left after a clean stop');
}

/** Restarts the daemon cleanly, waits for one full pass and `settled`, then stops it. */
async function restartUntil(
  p: Project,
  what: string,
  settled: () => boolean,
  timeoutMs = 60_000,
): Promise<void> {
  const d = startDaemon(p.root);
  await waitFor(what, () => passedOnce(p, d) && settled(), timeoutMs, d);
  await stopDaemon(p, d);
}

// ---------------------------------------------------------------------------------------
// Handoffs and mailboxes

/** One queued handoff as it was in the outbox. */
interface Original {
  id: string;
  name: string;
  to: string[];
  headers: Headers;
  body: Buffer;
  bytes: Buffer;
}

async function originalAt(path: string): Promise<Original> {
  const bytes = fs.readFileSync(path);
  const envelope = await parseEnvelope(bytes);
  const id = envelope.headers.id!;
  assert.ok(id, `${path} has no id`);
  return {
    id,
    name: path.split('/').pop()!,
    to: envelope.headers.to!.split(','),
    headers: envelope.headers,
    body: envelope.body,
    bytes,
  };
}

/** Queues a note with the built swarm_handoff as coder; returns the outbox file. */
async function queueWithSwarmHandoff(p: Project, to: string[], message: string): Promise<Original> {
  const draft = writeDraft(
    p.root,
    noteDraft(to.join(','), message),
    `draft-${Math.random().toString(36).slice(2)}.txt`,
  );
  const sent = runBin('swarm_handoff', [draft], {
    role: 'coder',
    cwd: p.root,
    env: { BATON_CRASH_AT: undefined },
  });
  assert.equal(sent.code, 0, sent.stderr);
  const path = /^HANDOFF QUEUED: (.+)$/m.exec(sent.stdout)?.[1];
  assert.ok(path, sent.stdout);
  return originalAt(path);
}

/**
 * Writes a handoff straight into coder's outbox the way swarm_handoff publishes it
 * (front matter in protocol order through serializeEnvelope, written to outbox/tmp/,
 * renamed into outbox/), with a sequence number the test owns.
 */
async function queueDirect(
  p: Project,
  seq: number,
  to: string[],
  priority: string,
  body: Buffer,
  now: Date,
): Promise<Original> {
  const tsid = now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
  const id = `${tsid}_${String(seq).padStart(6, '0')}_from_coder`;
  const name = `${priority}_${id}_to_${to.join('_')}.handoff`;
  const headers: Headers = {
    id,
    from: 'coder',
    to: to.join(','),
    priority,
    type: 'note',
    message: `handoff ${seq}`,
    created_at: now.toISOString(),
  };
  const bytes = await serializeEnvelope(headers, body);
  const box = p.box('coder');
  const temp = join(box.outboxTmp, `${name}.tmp`);
  fs.writeFileSync(temp, bytes, { mode: 0o600 });
  fs.renameSync(temp, join(box.outbox, name));
  return { id, name, to, headers, body, bytes };
}

/** One item found in a recipient's inbox. */
interface Found {
  path: string;
  name: string;
  headers: Headers;
  body: Buffer;
}

/** Every item of an inbox (new/, in_process/, completed/, batch directories included), and anything else found there. */
async function scanInbox(box: Mailbox): Promise<{ items: Found[]; problems: string[] }> {
  const items: Found[] = [];
  const problems: string[] = [];
  const readOne = async (path: string, name: string) => {
    try {
      const envelope = await parseEnvelope(fs.readFileSync(path));
      items.push({ path, name, headers: envelope.headers, body: envelope.body });
    } catch (err) {
      problems.push(`${path}: unreadable (${(err as Error).message})`);
    }
  };
  for (const name of fs.readdirSync(box.inbox)) {
    if (!['new', 'in_process', 'completed'].includes(name))
      problems.push(`${join(box.inbox, name)}: stray entry`);
  }
  for (const dir of [box.inboxNew, box.inProcess, box.completed]) {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isFile() && entry.name.endsWith('.handoff') && !entry.name.startsWith('.'))
        await readOne(path, entry.name);
      else if (entry.isDirectory() && entry.name.startsWith('batch_') && dir !== box.inboxNew) {
        for (const inner of fs.readdirSync(path, { withFileTypes: true })) {
          const innerPath = join(path, inner.name);
          if (inner.isFile() && inner.name.endsWith('.handoff') && !inner.name.startsWith('.'))
            await readOne(innerPath, inner.name);
          else problems.push(`${innerPath}: stray entry`);
        }
      } else problems.push(`${path}: stray entry`);
    }
  }
  return { items, problems };
}

/** Problems of one copy: not the original's headers plus recipient/enqueued_at, or not its body. */
function copyProblems(o: Original, role: string, copy: Found): string[] {
  const problems: string[] = [];
  if (copy.name !== o.name) problems.push(`${copy.path}: name is not the original's ${o.name}`);
  for (const [key, value] of Object.entries(o.headers)) {
    if (copy.headers[key] !== value)
      problems.push(
        `${copy.path}: header ${key} is ${JSON.stringify(copy.headers[key])}, not ${JSON.stringify(value)}`,
      );
  }
  for (const key of Object.keys(copy.headers)) {
    if (!(key in o.headers) && !ADDED.has(key))
      problems.push(`${copy.path}: unexpected header ${key}`);
  }
  if (copy.headers.recipient !== role)
    problems.push(
      `${copy.path}: recipient is ${JSON.stringify(copy.headers.recipient)}, not ${role}`,
    );
  if (!ISO.test(copy.headers.enqueued_at ?? ''))
    problems.push(`${copy.path}: enqueued_at is ${JSON.stringify(copy.headers.enqueued_at)}`);
  if (!copy.body.equals(o.body))
    problems.push(
      `${copy.path}: body differs from the original (${copy.body.length} vs ${o.body.length} bytes)`,
    );
  return problems;
}

/**
 * Checks the recipients: every (id, role) with `role` in the original's `to` exactly once
 * when `delivered`, never otherwise, no other item and nothing else in the inbox; every
 * copy complete. Returns where each copy of `role` is, by id.
 */
async function checkRecipients(
  p: Project,
  originals: Original[],
  delivered: boolean,
  roles = RECIPIENTS,
): Promise<Map<string, Map<string, string[]>>> {
  const problems: string[] = [];
  const places = new Map<string, Map<string, string[]>>();
  const byId = new Map(originals.map((o) => [o.id, o]));
  for (const role of roles) {
    const scan = await scanInbox(p.box(role));
    problems.push(...scan.problems);
    const found = new Map<string, Found[]>();
    for (const item of scan.items) {
      const id = item.headers.id ?? `(no id: ${item.path})`;
      found.set(id, [...(found.get(id) ?? []), item]);
    }
    for (const [id, copies] of found) {
      if (!byId.has(id))
        problems.push(
          `${role} holds ${copies.length} item(s) of unknown id ${id}: ${copies.map((c) => c.path).join(', ')}`,
        );
    }
    for (const o of originals) {
      const copies = found.get(o.id) ?? [];
      const expected = delivered && o.to.includes(role) ? 1 : 0;
      if (copies.length !== expected) {
        problems.push(
          `${role} holds ${copies.length} copies of ${o.id}, expected ${expected}: ${copies.map((c) => c.path).join(', ')}`,
        );
      }
      for (const copy of copies) problems.push(...copyProblems(o, role, copy));
    }
    places.set(role, new Map([...found].map(([id, copies]) => [id, copies.map((c) => c.path)])));
  }
  assert.deepEqual(
    problems.slice(0, 30),
    [],
    `${problems.length} problem(s) in the recipients' inboxes`,
  );
  return places;
}

/** Checks the sender: outbox empty, each original exactly once in `where` (byte-identical, own name), nothing else. */
function checkSender(
  p: Project,
  originals: Original[],
  where: 'sent' | 'failed',
  reason?: string,
): void {
  const box = p.box('coder');
  assert.deepEqual(itemsIn(box.outbox), [], 'handoffs left in the outbox');
  assert.deepEqual(fs.readdirSync(box.outboxTmp), [], 'files left in outbox/tmp');
  const other = where === 'sent' ? box.failed : box.sent;
  assert.deepEqual(
    fs.existsSync(other) ? fs.readdirSync(other) : [],
    [],
    `files in ${where === 'sent' ? 'failed' : 'sent'}/`,
  );
  const dir = where === 'sent' ? box.sent : box.failed;
  const expected = originals
    .flatMap((o) => (where === 'sent' ? [o.name] : [o.name, `${o.name}.error`]))
    .sort();
  const actual = fs.readdirSync(dir).sort();
  if (actual.length !== expected.length || actual.some((n, i) => n !== expected[i])) {
    const extra = actual.filter((n) => !expected.includes(n));
    const missing = expected.filter((n) => !actual.includes(n));
    assert.fail(
      `${where}/ holds ${actual.length} entries, expected ${expected.length}; extra ${extra.slice(0, 10).join(', ')}; missing ${missing.slice(0, 10).join(', ')}`,
    );
  }
  for (const o of originals) {
    assert.ok(
      fs.readFileSync(join(dir, o.name)).equals(o.bytes),
      `${where}/${o.name} is not the original's bytes`,
    );
    if (where === 'failed')
      assert.equal(fs.readFileSync(join(dir, `${o.name}.error`), 'utf8'), `${reason}\n`);
  }
  assert.deepEqual(copyTempsOf(p), [], 'temp files left in daemon/tmp');
}

/** The copies' temp files in daemon/tmp: all but the folder of spares (lib/fsx/spareFiles.ts). */
function copyTempsOf(p: Project): string[] {
  return fs.readdirSync(join(daemonDir(p), 'tmp')).filter((n) => n !== 'spares');
}

/** Names of the .handoff files directly in one recipient's new/. */
function waitingOf(p: Project, role: string): string[] {
  return itemsIn(p.box(role).inboxNew);
}

function newProject(): Project {
  const p = makeProject(CONF);
  projects.push(p);
  return p;
}

// ---------------------------------------------------------------------------------------

describe('handoffd crash safety', () => {
  afterEach(async () => {
    for (const d of daemons.splice(0)) {
      if (isRunning(d)) {
        try {
          process.kill(d.pid, 'SIGKILL');
        } catch {
          // exited meanwhile
        }
      }
      await d.exited;
    }
    for (const p of projects.splice(0)) p.cleanup();
  });

  describe('a kill at each delivery step, then a restart', () => {
    interface StepCase {
      step: string;
      /** Recipients (in `to` order) holding their copy in new/ when the daemon dies. */
      copiesAtCrash: number;
      /** The recipient whose copy temp is still in daemon/tmp when the daemon dies. */
      tempAtCrash?: string;
      originalAtCrash: 'outbox' | 'sent';
    }
    const cases: StepCase[] = [];
    for (const n of [1, 2, 3]) {
      cases.push({
        step: `deliver:copy-synced#${n}`,
        copiesAtCrash: n - 1,
        tempAtCrash: RECIPIENTS[n - 1],
        originalAtCrash: 'outbox',
      });
      cases.push({
        step: `deliver:linked#${n}`,
        copiesAtCrash: n,
        tempAtCrash: RECIPIENTS[n - 1],
        originalAtCrash: 'outbox',
      });
      cases.push({
        step: `deliver:recipient-done#${n}`,
        copiesAtCrash: n,
        originalAtCrash: 'outbox',
      });
    }
    cases.push({ step: 'deliver:copies-done', copiesAtCrash: 3, originalAtCrash: 'outbox' });
    cases.push({ step: 'deliver:original-moved', copiesAtCrash: 3, originalAtCrash: 'sent' });
    cases.push({ step: 'deliver:sent-synced', copiesAtCrash: 3, originalAtCrash: 'sent' });

    // npm test: each step once (for the second recipient) and the steps after the copies.
    for (const c of casesOf(cases, (x) => !/#[13]$/.test(x.step))) {
      it(`delivers exactly one copy to each of three recipients after a kill at ${c.step}`, async () => {
        const p = newProject();
        const box = p.box('coder');
        const o = await queueWithSwarmHandoff(p, RECIPIENTS, `crash at ${c.step}`);

        await crashDaemon(p, c.step);
        // The kill landed where the step says.
        RECIPIENTS.forEach((role, i) => {
          assert.deepEqual(
            waitingOf(p, role),
            i < c.copiesAtCrash ? [o.name] : [],
            `${role}'s new/ at the crash`,
          );
        });
        const temps = copyTempsOf(p);
        assert.deepEqual(
          temps,
          c.tempAtCrash ? [`${c.tempAtCrash}.${o.name}`] : [],
          'daemon/tmp at the crash',
        );
        assert.deepEqual(itemsIn(box.outbox), c.originalAtCrash === 'outbox' ? [o.name] : []);
        assert.deepEqual(itemsIn(box.sent), c.originalAtCrash === 'sent' ? [o.name] : []);

        await restartUntil(
          p,
          'outbox empty and the original in sent/',
          () => itemsIn(box.outbox).length === 0 && itemsIn(box.sent).length > 0,
        );
        await checkRecipients(p, [o], true);
        checkSender(p, [o], 'sent');
      });
    }

    const failedCases: { step: string; originalAtCrash: 'outbox' | 'failed' }[] = [
      { step: 'deliver:error-written', originalAtCrash: 'outbox' },
      { step: 'deliver:original-moved', originalAtCrash: 'failed' },
      { step: 'deliver:failed-synced', originalAtCrash: 'failed' },
    ];
    for (const c of failedCases) {
      it(`fails a handoff to an unknown recipient exactly once after a kill at ${c.step}`, async () => {
        const p = newProject();
        const box = p.box('coder');
        const o = await queueWithSwarmHandoff(p, RECIPIENTS, `crash at ${c.step}`);
        // c leaves the swarm after the send: the daemon must refuse the whole handoff.
        const tsv = join(p.root, '.swarmforge', 'roles.tsv');
        fs.writeFileSync(
          tsv,
          fs
            .readFileSync(tsv, 'utf8')
            .split('\n')
            .filter((line) => !line.startsWith('c\t'))
            .join('\n'),
        );

        await crashDaemon(p, c.step);
        assert.deepEqual(itemsIn(box.outbox), c.originalAtCrash === 'outbox' ? [o.name] : []);
        assert.equal(
          fs.readFileSync(join(box.failed, `${o.name}.error`), 'utf8'),
          'unknown recipient c\n',
        );
        assert.deepEqual(
          fs.readdirSync(box.failed).sort(),
          c.originalAtCrash === 'failed' ? [o.name, `${o.name}.error`] : [`${o.name}.error`],
        );

        await restartUntil(
          p,
          'outbox empty and the original in failed/',
          () => itemsIn(box.outbox).length === 0 && itemsIn(box.failed).length > 0,
        );
        await checkRecipients(p, [o], false);
        checkSender(p, [o], 'failed', 'unknown recipient c');
      });
    }
  });

  describe('a kill while a group of handoffs is finished, then a restart', () => {
    // Three handoffs queued before the daemon starts are copied, then finished together.
    const cases: { step: string; sentAtCrash: number }[] = [
      { step: 'deliver:copies-done', sentAtCrash: 0 },
      { step: 'deliver:original-moved#1', sentAtCrash: 1 },
      { step: 'deliver:original-moved#2', sentAtCrash: 2 },
      { step: 'deliver:sent-synced', sentAtCrash: 3 },
    ];
    for (const c of cases) {
      it(`delivers each of three handoffs exactly once after a kill at ${c.step}`, async () => {
        const p = newProject();
        const box = p.box('coder');
        const originals: Original[] = [];
        for (let i = 1; i <= 3; i++)
          originals.push(
            await queueWithSwarmHandoff(p, RECIPIENTS, `group member ${i} at ${c.step}`),
          );
        const names = originals.map((o) => o.name).sort();

        await crashDaemon(p, c.step);
        // Every copy was in place before any original moved; the kill landed mid-group.
        for (const role of RECIPIENTS)
          assert.deepEqual(waitingOf(p, role), names, `${role}'s new/ at the crash`);
        assert.deepEqual(itemsIn(box.sent), names.slice(0, c.sentAtCrash));
        assert.deepEqual(itemsIn(box.outbox), names.slice(c.sentAtCrash));

        await restartUntil(
          p,
          'outbox empty and every original in sent/',
          () => itemsIn(box.outbox).length === 0 && itemsIn(box.sent).length === 3,
        );
        await checkRecipients(p, originals, true);
        checkSender(p, originals, 'sent');
      });
    }
  });

  describe('a copy consumed before the restart', () => {
    type Action = 'claim' | 'complete';
    const cases: { step: string; copiesAtCrash: number; actions: Record<string, Action> }[] = [
      {
        step: 'deliver:copies-done',
        copiesAtCrash: 3,
        actions: { a: 'claim', b: 'complete', c: 'claim' },
      },
      {
        step: 'deliver:copies-done',
        copiesAtCrash: 3,
        actions: { a: 'claim', b: 'complete', c: 'complete' },
      },
      {
        step: 'deliver:recipient-done#2',
        copiesAtCrash: 2,
        actions: { a: 'claim', b: 'complete' },
      },
    ];
    const placeOf = (
      p: Project,
      role: string,
      action: Action | undefined,
      name: string,
    ): RegExp => {
      const box = p.box(role);
      const batch = role === 'c' ? '/batch_[^/]+' : '';
      if (action === 'claim') return new RegExp(`^${box.inProcess}${batch}/${name}$`);
      if (action === 'complete') return new RegExp(`^${box.completed}${batch}/${name}$`);
      return new RegExp(`^${box.inboxNew}/${name}$`);
    };

    for (const c of cases) {
      const label = Object.entries(c.actions)
        .map(([role, action]) => `${role} ${action === 'claim' ? 'claims' : 'completes'}`)
        .join(', ');
      it(`is not delivered again after a kill at ${c.step} (${label}${c.actions.c ? ', c in batch mode' : ''})`, async () => {
        const p = newProject();
        const box = p.box('coder');
        const o = await queueWithSwarmHandoff(p, RECIPIENTS, `consumed after ${c.step}`);
        await crashDaemon(p, c.step);
        RECIPIENTS.forEach((role, i) =>
          assert.deepEqual(
            waitingOf(p, role),
            i < c.copiesAtCrash ? [o.name] : [],
            `${role}'s new/ at the crash`,
          ),
        );

        for (const [role, action] of Object.entries(c.actions)) {
          const run = (bin: string): RunResult =>
            runBin(bin, [], { role, cwd: p.root, env: { BATON_CRASH_AT: undefined } });
          const ready = run('ready_for_next');
          assert.equal(ready.code, 0, ready.stderr);
          assert.match(ready.stdout, role === 'c' ? /^BATCH: / : /^TASK: /);
          if (action === 'complete') {
            const done = run('done_with_current');
            assert.equal(done.code, 0, done.stderr);
            assert.match(done.stdout, /^COMPLETED: .*\n(COMPLETED_BATCH: .*\n)?NO_TASK\n$/);
          }
          assert.deepEqual(waitingOf(p, role), []);
        }

        await restartUntil(
          p,
          'outbox empty and the original in sent/',
          () => itemsIn(box.outbox).length === 0 && itemsIn(box.sent).length > 0,
        );
        const places = await checkRecipients(p, [o], true);
        for (const role of RECIPIENTS) {
          const paths = places.get(role)!.get(o.id)!;
          assert.match(
            paths[0]!,
            placeOf(p, role, c.actions[role], o.name),
            `${role}'s copy moved`,
          );
        }
        checkSender(p, [o], 'sent');
      });
    }
  });

  describe('soak', () => {
    /**
     * The two sizes. A timer-killed run dies once it has moved a random share of runBudget
     * handoffs to sent/, but it moves a group of up to 64 at once: at most runBudget + 63.
     * A crash-point run moves at most perCopy / 3 handoffs, or perGroup groups. The first
     * kills are one at each crash point, so those land on a busy outbox whatever comes later
     * (the short size: at most 4 × 10 + 2 × 64 = 168 of 300 move before the last of them);
     * most of the others land on a busy one too (about 1,100 of 2,000 move before the last
     * kill of the full size). A daemon faster than planned drained the short size's outbox
     * once before a crash point's only kill, when those kills were drawn among the others.
     */
    const SIZE = byTier({
      short: {
        handoffs: 300,
        timerKills: 2,
        crashAtKills: 6,
        runBudget: 20,
        perCopy: 30,
        perGroup: 1,
      },
      full: {
        handoffs: 2000,
        timerKills: 24,
        crashAtKills: 8,
        runBudget: 60,
        perCopy: 90,
        perGroup: 3,
      },
    });
    const HANDOFFS = SIZE.handoffs;
    const TIMER_KILLS = SIZE.timerKills;
    /** At least one kill at each crash point (STEPS), the rest at crash points drawn at random. */
    const CRASH_AT_KILLS = SIZE.crashAtKills;
    /** Crash points and the largest n of `<step>#<n>` drawn for each: copies-done and sent-synced come once per group of handoffs, the others once per copy or handoff. */
    const STEPS: [string, number][] = [
      ['deliver:copy-synced', SIZE.perCopy],
      ['deliver:linked', SIZE.perCopy],
      ['deliver:recipient-done', SIZE.perCopy],
      ['deliver:copies-done', SIZE.perGroup],
      ['deliver:original-moved', SIZE.perCopy],
      ['deliver:sent-synced', SIZE.perGroup],
    ];
    /** Handoffs one timer-killed run may move to sent/ at most, so that most kills land on a busy outbox. */
    const RUN_BUDGET = SIZE.runBudget;
    /** Kills that must find handoffs still in the outbox (20 of 32 at full size). */
    const BUSY_KILLS = Math.ceil(((TIMER_KILLS + CRASH_AT_KILLS) * 20) / 32);
    const seed = Number(process.env.BATON_SOAK_SEED ?? Math.floor(Math.random() * 2 ** 31));
    let stopConsumers = false;
    let consumers: Promise<string[]>[] = [];

    afterEach(async () => {
      stopConsumers = true;
      await Promise.all(consumers);
      consumers = [];
    });

    /** A body of random bytes: printable text, CR LF, `---` lines, sometimes no final newline. */
    function bodyOf(rand: () => number, seq: number): Buffer {
      const parts = [`Re-read your role and constitution.\n\nhandoff ${seq}\n`];
      const lines = Math.floor(rand() * 40);
      for (let i = 0; i < lines; i++) {
        const r = rand();
        if (r < 0.1) parts.push('---\n');
        else if (r < 0.2) parts.push('\r\n');
        else
          parts.push(
            `${'x'.repeat(Math.floor(rand() * 300))} ${seq}.${i} é ✓${rand() < 0.5 ? '\n' : '\r\n'}`,
          );
      }
      if (rand() < 0.2) parts.push('no final newline');
      return Buffer.from(parts.join(''));
    }

    /** An agent draining its inbox during the soak; returns anything unexpected it saw. */
    async function consume(p: Project, role: string): Promise<string[]> {
      const anomalies: string[] = [];
      while (!stopConsumers) {
        const options = { role, cwd: p.root, env: { BATON_CRASH_AT: undefined } };
        let result = await runBinAsync('done_with_current', [], options);
        if (result.code === 1 && /^NO_CURRENT_(TASK|BATCH)$/m.test(result.stderr))
          result = await runBinAsync('ready_for_next', [], options);
        if (result.code !== 0 || result.stderr !== '')
          anomalies.push(`${role}: exit ${result.code}: ${result.stderr.trim()}`);
        if (/(^|\n)NO_TASK\n$/.test(result.stdout) && !stopConsumers) await pause(100); // pacing only
      }
      return anomalies;
    }

    it(`delivers ${HANDOFFS.toLocaleString('en')} handoffs to three recipients exactly once across ${TIMER_KILLS + CRASH_AT_KILLS} SIGKILLs, at every crash point (seed ${seed})`, async function () {
      this.timeout(240_000);
      const rand = mulberry32(seed);
      const p = newProject();
      const box = p.box('coder');
      const started = Date.now();

      // The writer queues every handoff while the daemon is being killed.
      const originals: Original[] = [];
      let written = false;
      const writer = (async () => {
        const now = new Date();
        for (let seq = 1; seq <= HANDOFFS; seq++) {
          const priority = ['10', '50', '90'][Math.floor(rand() * 3)]!;
          originals.push(await queueDirect(p, seq, RECIPIENTS, priority, bodyOf(rand, seq), now));
          if (seq % 10 === 0) await new Promise((resolve) => setImmediate(resolve));
        }
        written = true;
      })();
      stopConsumers = false;
      consumers = [consume(p, 'a'), consume(p, 'c')];

      // The fault schedule: one kill at each crash point first, in a random order, while the
      // outbox is still full (a run that drains it faster than planned must not leave a crash
      // point's only kill to an empty outbox); then timer kills (some during start-up, most while
      // delivering) with the other crash-point kills drawn at random among them.
      const schedule: string[] = [];
      for (let i = 0; i < TIMER_KILLS; i++) schedule.push(rand() < 0.25 ? 'early' : 'running');
      assert.ok(CRASH_AT_KILLS >= STEPS.length, 'fewer crash-point kills than crash points');
      const atStep = ([step, most]: [string, number]) => `${step}#${1 + Math.floor(rand() * most)}`;
      for (let i = STEPS.length; i < CRASH_AT_KILLS; i++) {
        const at = Math.floor(rand() * (schedule.length + 1));
        schedule.splice(at, 0, atStep(STEPS[Math.floor(rand() * STEPS.length)]!));
      }
      const first = STEPS.map(atStep);
      for (let i = first.length - 1; i > 0; i--) {
        const j = Math.floor(rand() * (i + 1));
        [first[i], first[j]] = [first[j]!, first[i]!];
      }
      schedule.unshift(...first);
      let kills = 0;
      const queuedAtKill: number[] = [];
      /** Crash-point runs: the step, whether the daemon died there (not killed because the outbox ran dry first), the outbox left. */
      const crashes: { fault: string; landed: boolean; queued: number }[] = [];
      const deliveredBefore = () => itemsIn(box.sent).length;
      for (const fault of schedule) {
        if (fault === 'early' || fault === 'running') {
          const d = startDaemon(p.root, { pollMs: 200 });
          if (fault === 'running') {
            await waitFor(
              'the daemon to start',
              () => {
                try {
                  return (
                    fs.readFileSync(join(daemonDir(p), 'handoffd.pid'), 'utf8').trim() ===
                    String(d.pid)
                  );
                } catch {
                  return false;
                }
              },
              30_000,
              d,
              5,
            );
          }
          // Killed after a random time, or sooner once it has sent a random share of its budget.
          const sentAtStart = deliveredBefore();
          const budget = 1 + Math.floor(rand() * RUN_BUDGET);
          const deadline = Date.now() + Math.floor(rand() * (fault === 'running' ? 1500 : 700));
          await waitFor(
            'a random point of the run',
            () => Date.now() >= deadline || deliveredBefore() >= sentAtStart + budget,
            30_000,
            d,
            5,
          );
          assert.ok(isRunning(d), `handoffd exited by itself: ${d.stderr()}`);
          queuedAtKill.push(itemsIn(box.outbox).length);
          process.kill(d.pid, 'SIGKILL');
          const exit = await d.exited;
          assert.equal(exit.signal, 'SIGKILL');
        } else {
          const d = startDaemon(p.root, { crashAt: fault, pollMs: 200 });
          await waitFor(
            `a crash at ${fault}`,
            () => !isRunning(d) || (written && itemsIn(box.outbox).length === 0),
            60_000,
          );
          const landed = !isRunning(d);
          if (!landed) process.kill(d.pid, 'SIGKILL'); // the outbox ran dry before the n-th step
          const exit = await d.exited;
          assert.equal(
            exit.signal,
            'SIGKILL',
            `handoffd did not die at ${fault}: exit ${exit.code}, stderr ${d.stderr()}`,
          );
          queuedAtKill.push(itemsIn(box.outbox).length);
          crashes.push({ fault, landed, queued: queuedAtKill[queuedAtKill.length - 1]! });
        }
        kills += 1;
      }
      await writer;
      const deliveredDuringKills = deliveredBefore();
      stopConsumers = true;
      const anomalies = (await Promise.all(consumers)).flat();
      consumers = [];
      assert.deepEqual(anomalies, [], 'the receiving agents saw errors');
      assert.equal(kills, TIMER_KILLS + CRASH_AT_KILLS);
      assert.ok(
        queuedAtKill.filter((n) => n > 0).length >= BUSY_KILLS,
        `fewer than ${BUSY_KILLS} kills hit a non-empty outbox: ${queuedAtKill.join(' ')}`,
      );
      for (const [step] of STEPS) {
        const busy = crashes.filter(
          (c) => c.fault.startsWith(`${step}#`) && c.landed && c.queued > 0,
        );
        assert.ok(
          busy.length > 0,
          `no kill at ${step} with handoffs still in the outbox: ${JSON.stringify(crashes)}`,
        );
      }

      // The last restart runs clean until the outbox is empty.
      await restartUntil(p, 'the outbox to drain', () => itemsIn(box.outbox).length === 0, 180_000);
      const places = await checkRecipients(p, originals, true);
      checkSender(p, originals, 'sent');
      const consumed = ['a', 'c'].map(
        (role) =>
          [...places.get(role)!.values()].filter(
            (paths) => !paths[0]!.startsWith(p.box(role).inboxNew),
          ).length,
      );
      console.log(
        `      seed ${seed}: ${kills} SIGKILLs (${CRASH_AT_KILLS} at crash points), ${deliveredDuringKills} of ${HANDOFFS} delivered before the last kill, ${consumed.join(' + ')} copies claimed by a + c, ${Math.round((Date.now() - started) / 1000)} s`,
      );
    });
  });

  // Past the kernel's notification queue (16,384 events): about three minutes at the least,
  // so it runs in `npm run soak` only.
  describeInSoak('notification overflow', () => {
    /** How many events the kernel queues per inotify instance before it drops the rest (16,384 by default). */
    const queueLimit = (() => {
      try {
        return Number(fs.readFileSync('/proc/sys/fs/inotify/max_queued_events', 'utf8').trim());
      } catch {
        return 16_384;
      }
    })();
    /** Past the notification queue at either size: short just past it, full 20,000 (BATON_OVERFLOW_HANDOFFS sets it). */
    const HANDOFFS = sizeFrom('BATON_OVERFLOW_HANDOFFS', {
      short: queueLimit + 1024,
      full: Math.max(20_000, queueLimit + 1024),
    });
    const POLL_MS = 1000;

    it(`delivers ${HANDOFFS.toLocaleString('en')} handoffs queued while the daemon was stopped, without a notification`, async function () {
      // Delivery is fsync-bound on a disk (~15 ms a handoff here): a RAM file system keeps
      // this test about the backlog and the missed notifications, not the disk.
      const shm =
        fs.existsSync('/dev/shm') && fs.statSync('/dev/shm').isDirectory() ? '/dev/shm' : undefined;
      this.timeout(shm ? 600_000 : 900_000);
      const saved = process.env.TMPDIR;
      if (shm) process.env.TMPDIR = shm;
      let p: Project;
      try {
        p = newProject();
      } finally {
        if (saved === undefined) delete process.env.TMPDIR;
        else process.env.TMPDIR = saved;
      }
      if (shm) assert.ok(p.root.startsWith(`${shm}/`), `project not on ${shm}: ${p.root}`);
      const box = p.box('coder');
      const d = startDaemon(p.root, { pollMs: POLL_MS });
      await waitFor('the first pass', () => passedOnce(p, d), 30_000, d);
      process.kill(d.pid, 'SIGSTOP');

      const originals: Original[] = [];
      const now = new Date();
      for (let seq = 1; seq <= HANDOFFS; seq++) {
        originals.push(
          await queueDirect(
            p,
            seq,
            ['a'],
            '50',
            Buffer.from(`Re-read your role and constitution.\n\nhandoff ${seq}\n`),
            now,
          ),
        );
      }
      assert.equal(itemsIn(box.outbox).length, HANDOFFS);
      assert.deepEqual(itemsIn(box.sent), [], 'delivered while stopped');

      const continuedAt = Date.now();
      process.kill(d.pid, 'SIGCONT');
      await waitFor(
        'the backlog to be delivered',
        () => itemsIn(box.outbox).length === 0,
        // Soak-only, beside the rest of the soak on two cores: room for a loaded machine.
        shm ? 540_000 : 840_000,
        d,
        100,
      );
      const doneAt = Date.now();
      await stopDaemon(p, d);

      // One `delivered` line per handoff, and nothing failed.
      const lines = fs
        .readFileSync(join(daemonDir(p), 'handoffd.log'), 'utf8')
        .split('\n')
        .filter(Boolean);
      const deliveredLines = lines.filter((line) => / delivered /.test(line));
      const count = new Map<string, number>();
      const times: number[] = [];
      for (const line of deliveredLines) {
        const name = / name=(\S+)/.exec(line)?.[1] ?? line;
        count.set(name, (count.get(name) ?? 0) + 1);
        assert.match(line, / from=coder to=a$/, line);
        times.push(Date.parse(line.split(' ')[0]!));
      }
      assert.equal(deliveredLines.length, HANDOFFS, 'delivered lines');
      assert.deepEqual(
        originals
          .filter((o) => count.get(o.name) !== 1)
          .map((o) => o.name)
          .slice(0, 10),
        [],
        'handoffs without exactly one delivered line',
      );
      assert.deepEqual(
        lines.filter((line) => / (failed|error) /.test(line)),
        [],
      );

      // It started on the backlog within one pass interval (generously), and finished once it was worked off.
      const firstAt = Math.min(...times);
      const lastAt = Math.max(...times);
      const processing = lastAt - firstAt;
      assert.ok(
        firstAt - continuedAt <= POLL_MS + 5000,
        `first delivery ${firstAt - continuedAt} ms after SIGCONT`,
      );
      assert.ok(
        doneAt - continuedAt <= processing + POLL_MS + 5000,
        `backlog delivered ${doneAt - continuedAt} ms after SIGCONT; processing took ${processing} ms`,
      );

      await checkRecipients(p, originals, true);
      checkSender(p, originals, 'sent');
      console.log(
        `      ${HANDOFFS} handoffs (kernel notification queue ${queueLimit}) delivered ${doneAt - continuedAt} ms after SIGCONT (processing ${processing} ms) on ${shm ?? 'the default temp dir'}`,
      );
    });
  });
});
