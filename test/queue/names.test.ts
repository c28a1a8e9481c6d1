import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import {
  entriesOf,
  sortByBytes,
  formatSeq,
  handoffFileName,
  handoffId,
  isBatchName,
  isItemName,
  itemNamesIn,
  tsidOf,
} from '../../lib/queue/names.js';
import { isoOf } from '../../lib/fsx/timestamps.js';
import { tempDir } from '../support/project.js';

/** The byte-order oracle: UTF-8 bytes compared directly. */
const byteOrder = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

describe('lib/queue/names', () => {
  const when = new Date('2026-06-15T14:05:31.123Z');

  it('formats tsid, ISO time, sequence and id', () => {
    assert.equal(tsidOf(when), '20260615T140531Z');
    assert.equal(isoOf(when), '2026-06-15T14:05:31.123Z');
    assert.equal(formatSeq(42), '000042');
    assert.equal(formatSeq(1234567), '1234567');
    assert.equal(handoffId('20260615T140531Z', 42, 'coder'), '20260615T140531Z_000042_from_coder');
  });

  it('builds file names and shortens long recipient lists to stay within 200 bytes', () => {
    assert.equal(
      handoffFileName('00', '20260615T140531Z_000042_from_architect', ['coder', 'QA']),
      '00_20260615T140531Z_000042_from_architect_to_coder_QA.handoff',
    );
    const many = Array.from({ length: 20 }, (_, i) => `recipient-${i}`);
    const name = handoffFileName('50', 'id', many);
    assert.equal(name, '50_id_to_recipient-0_and_19_more.handoff');
    assert.ok(Buffer.byteLength(handoffFileName('50', 'x'.repeat(40), many.slice(0, 3))) <= 200);
  });

  it('recognises items and batches, and sorts by bytes', () => {
    assert.ok(isItemName('50_a.handoff'));
    assert.ok(!isItemName('.50_a.handoff'));
    assert.ok(!isItemName('50_a.handoff.tmp'));
    assert.ok(isBatchName('batch_x'));
    assert.deepEqual(['b', 'B', 'a', '_'].sort(byteOrder), ['B', '_', 'a', 'b']);
  });

  it('sorts by UTF-8 bytes, also for names beyond the BMP and in the high BMP', () => {
    const names = ['b', '\uFF01', '😀', 'a', '\uE000'];
    assert.deepEqual(sortByBytes([...names]), [...names].sort(byteOrder));
    assert.deepEqual(sortByBytes(['b', 'a', 'C']), ['C', 'a', 'b']);
  });

  it('lists item names in queue order and tolerates a missing folder', () => {
    const dir = tempDir();
    try {
      for (const n of ['50_b.handoff', '10_z.handoff', '.hidden.handoff', 'x.tmp', '50_a.handoff'])
        fs.writeFileSync(join(dir, n), '');
      assert.deepEqual(itemNamesIn(dir), ['10_z.handoff', '50_a.handoff', '50_b.handoff']);
      assert.deepEqual(entriesOf(join(dir, 'missing')), []);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
