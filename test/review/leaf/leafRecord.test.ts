import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import {
  parseLeafRecord,
  readLeafFile,
  writeLeafJson,
  type LeafRecord,
} from '../../../lib/review/leaf/leafRecord.js';
import { bareRootForEachTest } from '../../support/bookbags.js';

const RECORD: LeafRecord = {
  bead: 'coder-docs-0123abcd',
  role: 'coder',
  worktree: 'study-coder-0123abcd',
  path: '/repo/.worktrees/study-coder-0123abcd',
  branch: 'study-coder-0123abcd',
  base: 'a'.repeat(40),
  leaf: '1 2 boot host',
  worker: '',
  removed_at: '',
};

describe('lib/review/leaf/leafRecord', () => {
  const root = bareRootForEachTest();

  it('writes JSON whole, mode 0600, in a folder it creates 0700, and reads it back', () => {
    const path = join(root(), 'leaves', 'bead', 'leaf.json');
    writeLeafJson(path, RECORD);
    assert.equal(fs.statSync(path).mode & 0o777, 0o600);
    assert.equal(fs.statSync(join(root(), 'leaves')).mode & 0o777, 0o700);
    assert.deepEqual(parseLeafRecord(readLeafFile(path)!), RECORD);
    writeLeafJson(path, { ...RECORD, removed_at: 'now' });
    assert.equal(parseLeafRecord(readLeafFile(path)!).removed_at, 'now');
    assert.deepEqual(
      fs.readdirSync(join(root(), 'leaves', 'bead')),
      ['leaf.json'],
      'no temp file left',
    );
  });

  it('never writes or reads through a symlink; a missing file reads as undefined', () => {
    const target = join(root(), 'elsewhere.json');
    fs.writeFileSync(target, '{}');
    fs.symlinkSync(target, join(root(), 'leaf.json'));
    assert.throws(() => writeLeafJson(join(root(), 'leaf.json'), RECORD), /symlink/);
    assert.throws(() => readLeafFile(join(root(), 'leaf.json')), /refusing to use a symlink/);
    assert.equal(fs.readFileSync(target, 'utf8'), '{}');
    assert.equal(readLeafFile(join(root(), 'missing.json')), undefined);
  });

  it('a record must be an object with every field a string; other fields are dropped', () => {
    assert.throws(() => parseLeafRecord('[]'), /not a JSON object/);
    assert.throws(() => parseLeafRecord('{'), SyntaxError);
    assert.throws(
      () => parseLeafRecord(JSON.stringify({ ...RECORD, leaf: 7, base: undefined })),
      /missing or not a string: base, leaf/,
    );
    assert.deepEqual(parseLeafRecord(JSON.stringify({ ...RECORD, extra: 1 })), RECORD);
  });
});
