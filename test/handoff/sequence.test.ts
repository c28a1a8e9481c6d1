import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { highestSequenceIn, takeSequence } from '../../lib/handoff/sequence.js';
import { ensureMailbox, mailboxAt, type Mailbox } from '../../lib/queue/mailbox.js';
import { placeItem, tempDir } from '../support/project.js';

describe('lib/handoff/sequence', () => {
  let dir: string;
  let box: Mailbox;
  beforeEach(() => {
    dir = tempDir();
    box = mailboxAt(join(dir, 'coder'));
    ensureMailbox(box);
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('starts at 1 and increments, keeping the last number used in handoffs/<role>/sequence', async () => {
    assert.equal(box.seqFile, join(dir, 'coder', 'sequence'));
    assert.equal(await takeSequence(box), 1);
    assert.equal(fs.readFileSync(box.seqFile, 'utf8'), '1\n');
    assert.equal(await takeSequence(box), 2);
    assert.equal(await takeSequence(box), 3);
    assert.equal(fs.readFileSync(box.seqFile, 'utf8'), '3\n');
  });

  it('writes through a temp file and rename: no temp left, mode 0600', async () => {
    await takeSequence(box);
    assert.equal(fs.existsSync(`${box.seqFile}.tmp`), false);
    assert.equal(fs.statSync(box.seqFile).mode & 0o777, 0o600);
  });

  it('continues from the number in an existing file (whitespace tolerated), past 999999', async () => {
    fs.writeFileSync(box.seqFile, '  41 \n');
    assert.equal(await takeSequence(box), 42);
    fs.writeFileSync(box.seqFile, '999999\n');
    assert.equal(await takeSequence(box), 1000000);
    assert.equal(fs.readFileSync(box.seqFile, 'utf8'), '1000000\n');
  });

  it('rebuilds a missing or unreadable counter from the highest id in outbox/, sent/ and failed/', async () => {
    assert.equal(await highestSequenceIn(box), 0);
    await placeItem(box.outbox, { id: '20260101T000000Z_000003_from_coder' });
    await placeItem(box.sent, { id: '20260101T000000Z_000007_from_coder' });
    await placeItem(box.failed, { id: '20260101T000000Z_000005_from_coder' });
    assert.equal(await highestSequenceIn(box), 7);
    assert.equal(await takeSequence(box), 8);
    for (const corrupt of ['abc\n', '12abc\n', '-3\n', '1.5\n', '']) {
      fs.writeFileSync(box.seqFile, corrupt);
      assert.equal(await takeSequence(box), 8, JSON.stringify(corrupt));
    }
  });
});
