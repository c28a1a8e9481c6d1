// Durability of the built handoffd (protocol §8, §9.5) under strace: every copy is
// fsync'd before it is linked into new/, every new/ that received a copy is fsync'd before
// the original leaves the outbox, and sent/ and outbox/ are fsync'd before the delivery is
// logged. A backlog is finished in groups, so those folder fsyncs are shared.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { waitFor } from '../support/daemon.js';
import {
  BIN_DIR,
  itemsIn,
  makeProject,
  placeItem,
  tempDir,
  type Project,
} from '../support/project.js';
import { parseStrace, Trace, TRACED } from '../support/strace.js';

const HANDOFFS = 5;
const RECIPIENTS = ['reviewer', 'QA'];

describe('handoffd durability (strace)', function () {
  this.timeout(120_000);
  let p: Project;
  let logDir: string;
  beforeEach(() => {
    p = makeProject();
    logDir = tempDir('baton-strace-');
  });
  afterEach(() => {
    p.cleanup();
    fs.rmSync(logDir, { recursive: true, force: true });
  });

  it(`fsyncs each copy before its link, new/ before the original moves, sent/ and outbox/ before the log line; ${HANDOFFS} queued handoffs share them`, async () => {
    const box = p.box('coder');
    const names: string[] = [];
    for (let seq = 1; seq <= HANDOFFS; seq++) {
      const id = `20260615T140531Z_${String(seq).padStart(6, '0')}_from_coder`;
      const name = `50_${id}_to_reviewer_QA.handoff`;
      await placeItem(
        box.outbox,
        { id, to: RECIPIENTS.join(','), recipient: '' },
        `body ${seq}\n`,
        name,
      );
      names.push(name);
    }
    const log = join(logDir, 'trace.log');
    const env: NodeJS.ProcessEnv = { ...process.env };
    delete env.BATON_CRASH_AT;
    const strace = spawn(
      'strace',
      [
        '-f',
        '-qq',
        '-y',
        '-s',
        '4096',
        '-e',
        `trace=${TRACED}`,
        '-o',
        log,
        process.execPath,
        join(BIN_DIR, 'handoffd.js'),
        '--root',
        p.root,
        '--quiet',
      ],
      { env, stdio: 'ignore' },
    );
    const exited = new Promise<number | null>((resolve) =>
      strace.on('exit', (code) => resolve(code)),
    );
    const daemonDir = join(p.root, '.swarmforge', 'daemon');
    const deliveredLines = () =>
      fs.existsSync(join(daemonDir, 'handoffd.log'))
        ? fs
            .readFileSync(join(daemonDir, 'handoffd.log'), 'utf8')
            .split('\n')
            .filter((l) => l.includes(' delivered ')).length
        : 0;
    await waitFor(
      'the backlog to be delivered and logged',
      () => itemsIn(box.outbox).length === 0 && deliveredLines() === HANDOFFS,
      60_000,
    );
    process.kill(Number(fs.readFileSync(join(daemonDir, 'handoffd.pid'), 'utf8')), 'SIGTERM');
    assert.equal(await exited, 0);

    const trace = new Trace(parseStrace(fs.readFileSync(log, 'utf8')));
    const logPath = join(daemonDir, 'handoffd.log');
    for (const name of names) {
      const sent = join(box.sent, name);
      const moved = trace.rename(join(box.outbox, name), sent);
      const logged = trace.calls.find(
        (c) =>
          c.name === 'write' &&
          c.fdPath === logPath &&
          (c.strings[0] ?? '').includes(` delivered `) &&
          (c.strings[0] ?? '').includes(`name=${name}`),
      );
      assert.ok(logged, `no delivered line for ${name}`);
      for (const role of RECIPIENTS) {
        const temp = join(daemonDir, 'tmp', `${role}.${name}`);
        const newDir = p.box(role).inboxNew;
        const linked = trace.calls.find(
          (c) =>
            /^link(at)?$/.test(c.name) &&
            c.ret === 0 &&
            c.strings[0] === temp &&
            c.strings[1] === join(newDir, name),
        );
        assert.ok(linked, `no link of ${role}'s copy of ${name}`);
        trace.fsyncBetween(temp, trace.lastWrite(temp), linked, `${role}'s copy of ${name}`);
        trace.fsyncBetween(
          newDir,
          linked,
          moved,
          `${role}'s new/ before ${name} leaves the outbox`,
        );
      }
      trace.fsyncBetween(box.sent, moved, logged, `sent/ before ${name} is logged`);
      trace.fsyncBetween(box.outbox, moved, logged, `outbox/ before ${name} is logged`);
    }
    const fsyncsOf = (dir: string) =>
      trace.calls.filter((c) => c.name === 'fsync' && c.ret === 0 && c.fdPath === dir).length;
    assert.ok(
      fsyncsOf(box.sent) < HANDOFFS,
      `sent/ fsync'd ${fsyncsOf(box.sent)} times for ${HANDOFFS} handoffs: not shared`,
    );
    for (const role of RECIPIENTS)
      assert.ok(
        fsyncsOf(p.box(role).inboxNew) < HANDOFFS,
        `${role}'s new/ fsync'd once per handoff: not shared`,
      );
  });
});
