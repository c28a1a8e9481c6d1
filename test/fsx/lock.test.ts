import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { acquireLock, LockBusy, withLock } from '../../lib/fsx/lock.js';
import { identityAlive, processIdentityOf, processRunning } from '../../lib/fsx/processIdentity.js';
import { followDurability } from '../support/durability.js';
import { tempDir } from '../support/project.js';

const HOLDER = join('test', 'support', 'lockHolder.ts');

function startHolder(...args: string[]): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', HOLDER, ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
}

function until(child: ChildProcess, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let seen = '';
    child.stdout!.on('data', (b: Buffer) => {
      seen += b.toString();
      if (seen.includes(text)) resolve();
    });
    child.on('exit', (code) => reject(new Error(`holder exited ${code} before ${text}`)));
  });
}

function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => child.on('exit', (code) => resolve(code)));
}

describe('lib/fsx/lock', () => {
  let dir: string;
  beforeEach(() => {
    dir = join(tempDir(), 'lock');
  });
  afterEach(() => fs.rmSync(join(dir, '..'), { recursive: true, force: true }));

  it('creates its directory, and a released lock can be taken again', () => {
    const release = acquireLock(dir, 1000);
    assert.ok(fs.statSync(dir).isDirectory());
    assert.throws(() => acquireLock(dir, 50), LockBusy);
    release();
    acquireLock(dir, 1000)();
  });

  it('a release makes no new file: the released marker is a second name of the owner file', () => {
    const release = acquireLock(dir, 1000);
    release();
    const owner = fs.statSync(join(dir, 'lock.1'));
    const marker = fs.statSync(join(dir, 'lock.1.released'));
    assert.equal(marker.ino, owner.ino);
    assert.equal(owner.nlink, 2);
    release(); // a second release changes nothing
    assert.deepEqual(fs.readdirSync(dir).sort(), ['lock.1', 'lock.1.released']);
  });

  it('a process that takes the lock again links its own owner file: no new file per acquisition', () => {
    acquireLock(dir, 1000)();
    const first = fs.statSync(join(dir, 'lock.1')).ino;
    acquireLock(dir, 1000)();
    assert.equal(fs.statSync(join(dir, 'lock.2')).ino, first);
    assert.deepEqual(fs.readdirSync(dir).sort(), ['lock.2', 'lock.2.released']);
  });

  it("never links another process's owner file, even in a folder where it released one before", () => {
    acquireLock(dir, 1000)();
    const mine = fs.readFileSync(join(dir, 'lock.1'), 'utf8');
    // The folder removed and made again; another process's free generation 1 in it.
    fs.rmSync(dir, { recursive: true });
    fs.mkdirSync(dir, { mode: 0o700 });
    const other = `1 12345 ${'0'.repeat(32)} elsewhere 00000000deadbeef\n`;
    fs.writeFileSync(join(dir, 'lock.1'), other);
    fs.writeFileSync(join(dir, 'lock.1.released'), '');
    const release = acquireLock(dir, 1000);
    assert.equal(fs.readFileSync(join(dir, 'lock.2'), 'utf8'), mine);
    release();
  });

  it('a release whose owner file was removed by hand still frees the lock', () => {
    const release = acquireLock(dir, 1000);
    fs.unlinkSync(join(dir, 'lock.1'));
    release();
    assert.ok(fs.existsSync(join(dir, 'lock.1.released')));
    acquireLock(dir, 50)();
  });

  it("makes a lock's missing parents durably, the lock's own folder without an fsync", () => {
    const parent = join(dir, 'a', 'b');
    const followed = followDurability();
    let release: () => void;
    try {
      release = acquireLock(join(parent, 'lock'), 1000);
    } finally {
      followed.restore();
    }
    release();
    const fsyncs = followed.order.filter((step) => step.startsWith('fsync '));
    // Each folder made is published by an fsync of its parent: dir's, a's, b's; not lock's.
    assert.deepEqual(fsyncs, [
      `fsync ${join(dir, '..')}`,
      `fsync ${dir}`,
      `fsync ${join(dir, 'a')}`,
    ]);
    assert.ok(fs.statSync(join(parent, 'lock')).isDirectory());
  });

  it('keeps only the newest generations on disk', () => {
    for (let i = 0; i < 5; i++) acquireLock(dir, 1000)();
    assert.deepEqual(fs.readdirSync(dir).sort(), ['lock.5', 'lock.5.released']);
  });

  it('waits for a live holder in another process and reports LockBusy after the timeout', async () => {
    const holder = startHolder('hold', dir);
    try {
      await until(holder, 'HELD');
      assert.throws(
        () => acquireLock(dir, 200),
        (err: unknown) => err instanceof LockBusy && /held by pid \d+/.test(err.message),
      );
    } finally {
      holder.kill('SIGKILL');
      await exited(holder);
    }
  });

  it('is taken over when its holder was killed with SIGKILL', async () => {
    const holder = startHolder('hold', dir);
    await until(holder, 'HELD');
    assert.equal(processRunning(holder.pid!), true);
    holder.kill('SIGKILL');
    await exited(holder);
    assert.equal(processRunning(holder.pid!), false);
    const release = acquireLock(dir, 2000);
    release();
  });

  it('does not mistake a reused pid for the owner (start time differs)', () => {
    fs.mkdirSync(dir, { recursive: true });
    const boot = fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    fs.writeFileSync(join(dir, 'lock.3'), `${process.pid} 1 ${boot}\n`);
    acquireLock(dir, 200)();
    assert.ok(fs.existsSync(join(dir, 'lock.4')));
  });

  it('records pid, start time, boot id, host and a random token of its holder', () => {
    const release = acquireLock(dir, 1000);
    const owner = fs.readFileSync(join(dir, 'lock.1'), 'utf8').trim().split(' ');
    release();
    assert.equal(owner.length, 5);
    assert.equal(owner[0], String(process.pid));
    assert.equal(owner[2], fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim());
    assert.equal(owner[3], hostname().replace(/\s/g, '_'));
    assert.match(owner[4]!, /^[0-9a-f]{16}$/);
  });

  it('never takes over a holder on another host, even one whose pid is not running here (wait, then LockBusy)', () => {
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(
      join(dir, 'lock.1'),
      '999999999 1 some-boot other-host.example 00112233aabbccdd\n',
    );
    assert.throws(
      () => acquireLock(dir, 150),
      (err: unknown) => err instanceof LockBusy && /held by pid 999999999/.test(err.message),
    );
    assert.deepEqual(fs.readdirSync(dir), ['lock.1']);
  });

  it('processIdentityOf records pid, start time, boot id and host of a running process; identityAlive tells it from a reused pid', async () => {
    const identity = processIdentityOf(process.pid)!;
    const [pid, start, boot, host] = identity.split(' ');
    assert.deepEqual(
      [pid, boot, host],
      [
        String(process.pid),
        fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim(),
        hostname().replace(/\s/g, '_'),
      ],
    );
    assert.match(start!, /^\d+$/);
    assert.equal(identityAlive(identity), true);
    assert.equal(
      identityAlive(`${pid} ${Number(start) + 1} ${boot} ${host}`),
      false,
      'same pid, another start time: another process',
    );
    assert.equal(
      identityAlive(`${pid} ${start} other-boot ${host}`),
      false,
      'same pid and start time before a reboot',
    );
    assert.equal(
      identityAlive('999999999 1 some-boot other-host.example'),
      true,
      'another host: never taken for gone',
    );
    const holder = startHolder('hold', dir);
    await until(holder, 'HELD');
    const its = processIdentityOf(holder.pid!)!;
    holder.kill('SIGKILL');
    await exited(holder);
    assert.deepEqual([identityAlive(its), processIdentityOf(holder.pid!)], [false, undefined]);
  });

  it('serializes concurrent processes: no lost update over 4 x 50 increments', async function () {
    this.timeout(60_000);
    const counter = join(dir, '..', 'counter');
    fs.writeFileSync(counter, '0');
    const children = Array.from({ length: 4 }, () => startHolder('count', dir, counter, '50'));
    const codes = await Promise.all(children.map(exited));
    assert.deepEqual(codes, [0, 0, 0, 0]);
    assert.equal(fs.readFileSync(counter, 'utf8'), '200');
  });

  it('withLock releases after a failure', async () => {
    await assert.rejects(
      withLock(dir, () => {
        throw new Error('boom');
      }),
      /boom/,
    );
    acquireLock(dir, 100)();
  });
});
