// lib/review/listBookbags: one row per bookbag of the bookbag folder (and of the archive when
// asked, flagged archived), by bead name; a file that cannot be read, is not valid against
// the schema or breaks an invariant is listed as INVALID, and other names are not listed.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { reviewPathsOf } from '../../../lib/project/layout.js';
import { listBookbags } from '../../../lib/review/bookbag/listBookbags.js';
import { writeBookbag } from '../../../lib/review/bookbag/store.js';
import {
  bareRootForEachTest,
  bookbagIn,
  finding,
  placeBookbag,
  writeRawBookbag,
} from '../../support/bookbags.js';

describe('lib/review/bookbag/listBookbags', () => {
  const root = bareRootForEachTest();

  const paths = () => reviewPathsOf(root(), {});
  const invalid = (bead: string, archived = false) => ({
    bead,
    state: 'INVALID',
    cto_verdict: '',
    coo_verdict: '',
    accepted: false,
    archived,
  });

  it('lists nothing when there is no bookbag folder', () => {
    assert.deepEqual(listBookbags(root(), { env: {} }), []);
    assert.deepEqual(listBookbags(root(), { archived: true, env: {} }), []);
  });

  it("lists each bookbag's state, verdicts and acceptance by bead name", () => {
    placeBookbag(root(), bookbagIn('REVIEWED', { cto: [finding('HIGH')] }, 'b-two'));
    placeBookbag(root(), bookbagIn('SCORED', {}, 'a-one'));
    placeBookbag(root(), bookbagIn('WRITTEN', {}, 'c-three'));
    assert.deepEqual(listBookbags(root(), { env: {} }), [
      {
        bead: 'a-one',
        state: 'SCORED',
        cto_verdict: 'PASS',
        coo_verdict: 'PASS',
        accepted: true,
        archived: false,
      },
      {
        bead: 'b-two',
        state: 'REVIEWED',
        cto_verdict: 'FAIL',
        coo_verdict: 'PASS',
        accepted: false,
        archived: false,
      },
      {
        bead: 'c-three',
        state: 'WRITTEN',
        cto_verdict: '',
        coo_verdict: '',
        accepted: false,
        archived: false,
      },
    ]);
  });

  it('lists as INVALID a file that is not JSON, is schema-invalid, is inconsistent, cannot be read or is a symlink', () => {
    writeRawBookbag(root(), 'a-not-json', '{"bead":');
    writeRawBookbag(root(), 'b-schema', { ...bookbagIn('WRITTEN', {}, 'b-schema'), extra: true });
    writeRawBookbag(root(), 'c-inconsistent', {
      ...bookbagIn('CTO_REVIEWED', {}, 'c-inconsistent'),
      state: 'WRITTEN',
    });
    fs.mkdirSync(join(paths().bookbags, 'd-folder.json'));
    fs.writeFileSync(
      join(root(), 'target.json'),
      JSON.stringify(bookbagIn('WRITTEN', {}, 'e-link')),
    );
    fs.symlinkSync(join(root(), 'target.json'), join(paths().bookbags, 'e-link.json'));
    assert.deepEqual(
      listBookbags(root(), { env: {} }),
      ['a-not-json', 'b-schema', 'c-inconsistent', 'd-folder', 'e-link'].map((bead) =>
        invalid(bead),
      ),
    );
  });

  it('lists only <bead>.json files with a safe bead name', () => {
    placeBookbag(root(), bookbagIn('WRITTEN', {}, 'a-one'));
    for (const name of [
      '.hidden.json',
      'notes.txt',
      'a-one.json.1234',
      '-dash.json',
      'a-one.ready',
    ])
      fs.writeFileSync(join(paths().bookbags, name), '{}');
    assert.deepEqual(
      listBookbags(root(), { env: {} }).map((row) => row.bead),
      ['a-one'],
    );
  });

  it('adds the archive, flagged archived, only when asked', () => {
    placeBookbag(root(), bookbagIn('REVIEWED', {}, 'b-live'));
    writeBookbag(join(paths().archive, 'a-gone.json'), bookbagIn('DISPOSED', {}, 'a-gone'));
    fs.writeFileSync(join(paths().archive, 'c-bad.json'), 'junk');
    assert.deepEqual(
      listBookbags(root(), { env: {} }).map((row) => [row.bead, row.archived]),
      [['b-live', false]],
    );
    assert.deepEqual(listBookbags(root(), { archived: true, env: {} }), [
      {
        bead: 'b-live',
        state: 'REVIEWED',
        cto_verdict: 'PASS',
        coo_verdict: 'PASS',
        accepted: true,
        archived: false,
      },
      {
        bead: 'a-gone',
        state: 'DISPOSED',
        cto_verdict: 'PASS',
        coo_verdict: 'PASS',
        accepted: true,
        archived: true,
      },
      invalid('c-bad', true),
    ]);
  });

  it('reads BOOKBAG_DIR (and its sibling archive) from the environment it is given', () => {
    const env = { BOOKBAG_DIR: 'elsewhere/bags' };
    writeBookbag(
      join(root(), 'elsewhere', 'bags', 'a-moved.json'),
      bookbagIn('WRITTEN', {}, 'a-moved'),
    );
    writeBookbag(
      join(root(), 'elsewhere', 'archive', 'b-old.json'),
      bookbagIn('DISPOSED', {}, 'b-old'),
    );
    placeBookbag(root(), bookbagIn('WRITTEN', {}, 'c-default'));
    assert.deepEqual(
      listBookbags(root(), { archived: true, env }).map((row) => [
        row.bead,
        row.state,
        row.archived,
      ]),
      [
        ['a-moved', 'WRITTEN', false],
        ['b-old', 'DISPOSED', true],
      ],
    );
  });
});
