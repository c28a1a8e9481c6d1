import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { parseEnvelope } from '../../lib/queue/envelope.js';
import { readItem, rewriteItem, rewriteTempOf, UnusableItem } from '../../lib/queue/item.js';
import { placeItem, tempDir } from '../support/project.js';

describe('lib/queue/item', () => {
  let dir: string;
  beforeEach(() => {
    dir = tempDir();
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const unusable = (reason: RegExp) => (e: unknown) => e instanceof UnusableItem && reason.test(e.reason);

  it('reads an item with its id, headers and body', async () => {
    const path = await placeItem(dir, { id: 'abc', task: 't' }, 'body\r\n');
    const item = await readItem(path);
    assert.equal(item.id, 'abc');
    assert.equal(item.name, path.split('/').pop());
    assert.equal(item.headers.task, 't');
    assert.equal(item.body.toString(), 'body\r\n');
  });

  it('refuses symlinks (never followed), FIFOs, and headers without an id', async () => {
    const real = await placeItem(dir, { id: 'real' });
    fs.symlinkSync(real, join(dir, 'link.handoff'));
    await assert.rejects(readItem(join(dir, 'link.handoff')), unusable(/symlink/));
    execFileSync('mkfifo', [join(dir, 'pipe.handoff')]);
    await assert.rejects(readItem(join(dir, 'pipe.handoff')), unusable(/not a regular file/));
    fs.writeFileSync(join(dir, 'noid.handoff'), '---\nfrom: x\n---\n');
    await assert.rejects(readItem(join(dir, 'noid.handoff')), unusable(/no id header/));
    fs.writeFileSync(join(dir, 'junk.handoff'), 'junk');
    await assert.rejects(readItem(join(dir, 'junk.handoff')), unusable(/unreadable header line/));
  });

  it('rewrites the header atomically through a dot temp file, keeping the body bytes', async () => {
    const body = Buffer.from([0x61, 0x0d, 0x0a, 0x0d, 0x0a, 0xff]);
    const path = join(dir, '50_legacy.handoff');
    fs.writeFileSync(path, Buffer.concat([Buffer.from('id: L\nfrom: coder\n\n'), body]));
    const item = await readItem(path);
    assert.equal(item.legacy, true);
    const updated = await rewriteItem(item, { ...item.headers, dequeued_at: 'now' });
    assert.equal(updated.legacy, false);
    const env = await parseEnvelope(fs.readFileSync(path));
    assert.deepEqual(env.headers, { id: 'L', from: 'coder', dequeued_at: 'now' });
    assert.ok(env.body.equals(body));
    assert.equal(fs.existsSync(rewriteTempOf(path)), false);
    assert.equal(rewriteTempOf(path), join(dir, '.50_legacy.handoff.tmp'));
    assert.equal(fs.statSync(path).mode & 0o777, 0o600);
  });
});
