import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { parseEnvelope } from '../../lib/queue/envelope.js';
import {
  QuarantinedItem,
  readItem,
  rewriteItem,
  rewriteTempOf,
  UnusableItem,
  unusableLine,
} from '../../lib/queue/item.js';
import { copyFixture, fixtureBytes } from '../support/fixtures.js';
import { placeItem, tempDir } from '../support/project.js';

describe('lib/queue/item', () => {
  let dir: string;
  beforeEach(() => {
    dir = tempDir();
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const unusable = (reason: RegExp) => (e: unknown) =>
    e instanceof UnusableItem && reason.test(e.reason);

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
    copyFixture(join(dir, 'noid.handoff'), 'handoffs', 'unusable', 'no-id.handoff');
    await assert.rejects(readItem(join(dir, 'noid.handoff')), unusable(/no id header/));
    copyFixture(join(dir, 'junk.handoff'), 'handoffs', 'unusable', 'no-header.handoff');
    await assert.rejects(readItem(join(dir, 'junk.handoff')), unusable(/unreadable header line/));
  });

  it('rewrites the header atomically through a dot temp file, keeping the body bytes', async () => {
    const legacy = fixtureBytes('handoffs', 'legacy', 'binary-body.handoff');
    const body = legacy.subarray(legacy.indexOf('\n\n') + 2);
    assert.ok(
      body.equals(Buffer.from([0x61, 0x0d, 0x0a, 0x0d, 0x0a, 0xff])),
      'the fixture ends in CR LF pairs and a byte that is not UTF-8',
    );
    const path = copyFixture(
      join(dir, '50_legacy.handoff'),
      'handoffs',
      'legacy',
      'binary-body.handoff',
    );
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

  it('unusableLine: `skipping <path>: <reason>`, or `quarantined <path> -> <bad path>: <reason>`, names and reason made printable', () => {
    assert.equal(
      unusableLine(new UnusableItem('/m/inbox/new/00_a.handoff', 'no id header')),
      'skipping /m/inbox/new/00_a.handoff: no id header',
    );
    assert.equal(
      unusableLine(
        new QuarantinedItem(
          '/m/inbox/new/00_a.handoff',
          'is a symlink',
          '/m/inbox/bad/00_a.1.handoff',
        ),
      ),
      'quarantined /m/inbox/new/00_a.handoff -> /m/inbox/bad/00_a.1.handoff: is a symlink',
    );
    assert.equal(
      unusableLine(
        new QuarantinedItem('/n/\x1b[2J.handoff', "line '\u202e\n'", '/b/\x1b[2J.handoff'),
      ),
      "quarantined /n/\\u001b[2J.handoff -> /b/\\u001b[2J.handoff: line '\\u202e\\n'",
    );
  });
});
