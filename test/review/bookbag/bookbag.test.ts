// lib/review/bookbag: the closed vocabularies the code works with are the ones the JSON
// Schema enforces on the file, and isLens knows exactly the two lenses.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import {
  DIFFICULTIES,
  isLens,
  LENSES,
  SEVERITIES,
  STATES,
} from '../../../lib/review/bookbag/bookbag.js';

const schema = JSON.parse(fs.readFileSync('schemas/bookbag.schema.json', 'utf8'));

describe('lib/review/bookbag/bookbag', () => {
  it("has the schema's difficulties, states, severities and lenses", () => {
    assert.deepEqual(DIFFICULTIES, schema.properties.difficulty.enum);
    assert.deepEqual(STATES, schema.properties.state.enum);
    assert.deepEqual(SEVERITIES, schema.$defs.severity.enum);
    assert.deepEqual(LENSES, schema.$defs.lensFinding.properties.lens.enum);
    assert.deepEqual([...LENSES].sort(), Object.keys(schema.properties.attempts.properties).sort());
  });

  it('isLens: cto and coo, nothing else (not another case, not an inherited name)', () => {
    assert.deepEqual(['cto', 'coo'].map(isLens), [true, true]);
    for (const value of ['CTO', 'Coo', '', 'ceo', 'toString', 'length'])
      assert.equal(isLens(value), false, value);
  });
});
