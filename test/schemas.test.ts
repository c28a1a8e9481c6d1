// The JSON Schemas of schemas/ and the standalone validators generated from them.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';

describe('schemas', () => {
  it('every generated validator is up to date with its schema (scripts/compileSchemas.mjs --check)', () => {
    const r = spawnSync(process.execPath, ['scripts/compileSchemas.mjs', '--check'], {
      encoding: 'utf8',
    });
    assert.deepEqual([r.status, r.stderr], [0, '']);
  });
});
