import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { panesFileOf, socketFileOf, swarmDirOf } from '../../lib/project/layout.js';
import { formatPanes, readPanes, recordedSocketOf } from '../../lib/project/tmuxRecord.js';
import { tempDir } from '../support/project.js';

describe('lib/project/tmuxRecord', () => {
  let root: string;
  beforeEach(() => {
    root = tempDir();
    fs.mkdirSync(swarmDirOf(root));
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  it("recordedSocketOf: the trimmed socket path; '' for an empty file; undefined without one", () => {
    assert.equal(recordedSocketOf(root), undefined);
    fs.writeFileSync(socketFileOf(root), ' \n');
    assert.equal(recordedSocketOf(root), '');
    fs.writeFileSync(socketFileOf(root), '/tmp/x.sock\n');
    assert.equal(recordedSocketOf(root), '/tmp/x.sock');
  });

  it('readPanes: role → pane from panes.tsv; empty when the file is missing; odd lines ignored', () => {
    assert.deepEqual(readPanes(root), new Map());
    fs.writeFileSync(panesFileOf(root), 'coder\t%1\nreviewer\t%12\r\n\nno-tab-line\n\t%9\nQA\t\n');
    assert.deepEqual(
      readPanes(root),
      new Map([
        ['coder', '%1'],
        ['reviewer', '%12'],
      ]),
    );
  });

  it('formatPanes writes `<role>\\t<pane>` lines that readPanes reads back', () => {
    const panes = new Map([
      ['coder', '%1'],
      ['QA', '%7'],
    ]);
    assert.equal(formatPanes(panes), 'coder\t%1\nQA\t%7\n');
    fs.writeFileSync(panesFileOf(root), formatPanes(panes));
    assert.deepEqual(readPanes(root), panes);
    assert.equal(formatPanes(new Map()), '');
  });
});
