import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { InboxWatch } from '../../../lib/review/lens/inboxWatch.js';
import { tempDir } from '../../support/project.js';

describe('lib/review/lens/inboxWatch', () => {
  let dir: string;
  let watch: InboxWatch | undefined;
  beforeEach(() => {
    dir = tempDir();
  });
  afterEach(() => {
    watch?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const never = new AbortController().signal;

  it('a file arriving ends the wait at once ("mail"), long before the poll', async () => {
    watch = new InboxWatch(dir);
    watch.take();
    const begun = Date.now();
    const waiting = watch.wait(20_000, never);
    fs.writeFileSync(join(dir, 'x.handoff'), 'x');
    assert.equal(await waiting, 'mail');
    assert.ok(Date.now() - begun < 5_000);
  });

  it('no lost wake-up: mail that came after take() and before wait() returns at once; take() forgets it', async () => {
    watch = new InboxWatch(dir);
    watch.take();
    // One event, as a delivery makes it: a complete file linked in from elsewhere.
    const elsewhere = tempDir();
    fs.writeFileSync(join(elsewhere, 'x.handoff'), 'x');
    fs.renameSync(join(elsewhere, 'x.handoff'), join(dir, 'x.handoff'));
    fs.rmdirSync(elsewhere);
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(await watch.wait(20_000, never), 'mail');
    watch.take();
    assert.equal(await watch.wait(50, never), 'poll');
  });

  it('the poll ends a quiet wait; an abort ends it with "stopped"', async () => {
    watch = new InboxWatch(dir);
    watch.take();
    assert.equal(await watch.wait(30, never), 'poll');
    const controller = new AbortController();
    const waiting = watch.wait(20_000, controller.signal);
    controller.abort();
    assert.equal(await waiting, 'stopped');
    assert.equal(await watch.wait(20_000, controller.signal), 'stopped');
  });

  it('a line on the terminal (a wake-up typed into the pane) is mail too; a folder that cannot be watched leaves the poll', async () => {
    const terminal = new PassThrough() as unknown as NodeJS.ReadStream;
    watch = new InboxWatch(join(dir, 'missing'), terminal);
    watch.take();
    const waiting = watch.wait(20_000, never);
    (terminal as unknown as PassThrough).write(
      'You have new handoff mail. If idle, run ready_for_next.\n',
    );
    assert.equal(await waiting, 'mail');
    watch.take();
    assert.equal(await watch.wait(30, never), 'poll');
  });
});
