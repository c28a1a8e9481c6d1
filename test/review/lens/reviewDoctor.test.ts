import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { leafFilesOf, reviewPathsOf, worktreePathOf } from '../../../lib/project/layout.js';
import { writeLeafJson } from '../../../lib/review/leaf/leafRecord.js';
import { headCommitOf } from '../../../lib/review/leaf/leafWorktree.js';
import { ORPHAN_LEAF_REMEDY, reviewFindings } from '../../../lib/review/lens/reviewDoctor.js';
import {
  BEAD,
  bookbagIn,
  finding,
  placeBookbag,
  reviewProjectForSuite,
  writeRawBookbag,
} from '../../support/bookbags.js';

describe('lib/review/lens/reviewDoctor', () => {
  const p = reviewProjectForSuite();
  const paths = () => reviewPathsOf(p.root, {});
  afterEach(() => fs.rmSync(paths().leaves, { recursive: true, force: true }));

  it('finds nothing in a project without leaves or bookbags, nor in consistent bookbags', () => {
    assert.deepEqual(reviewFindings(p.root), []);
    placeBookbag(p.root, bookbagIn('REVIEWED', { cto: [finding('HIGH')] }));
    assert.deepEqual(reviewFindings(p.root), []);
  });

  it('lists an orphan leaf at its worktree with the leaf clean remedy, and a pid record it cannot read', () => {
    const name = 'study-coder-0000abcd';
    const record = {
      bead: 'coder-docs-0000abcd',
      role: 'coder',
      worktree: name,
      path: worktreePathOf(p.root, name),
      branch: name,
      base: headCommitOf(p.root),
      leaf: '999999999 1 gone-boot',
      worker: '',
      removed_at: '',
    };
    writeLeafJson(leafFilesOf(paths(), record.bead).record, record);
    const broken = leafFilesOf(paths(), 'coder-docs-0000abce');
    fs.mkdirSync(broken.dir);
    fs.writeFileSync(broken.record, 'not json');
    const findings = reviewFindings(p.root);
    assert.deepEqual(
      findings.map((f) => [f.kind, f.path]),
      [
        ['orphan-leaf', record.path],
        ['leaf-record', broken.record],
      ],
    );
    assert.deepEqual(
      [findings[0]!.role, findings[0]!.remedy, findings[0]!.problem],
      [
        'coder',
        ORPHAN_LEAF_REMEDY,
        'leaf coder-docs-0000abcd: its process (pid 999999999) is gone, but its worktree was not removed',
      ],
    );
  });

  it('lists a bookbag that breaks an invariant with every problem, and one that is not valid at all', () => {
    const path = writeRawBookbag(p.root, BEAD, {
      ...bookbagIn('REVIEWED', { cto: [finding('HIGH')] }),
      accepted: true,
    });
    writeRawBookbag(p.root, 'coder-docs-ffffffff', {});
    const findings = reviewFindings(p.root);
    assert.deepEqual(findings.map((f) => f.kind).sort(), [
      'inconsistent-bookbag',
      'invalid-bookbag',
    ]);
    const inconsistent = findings.find((f) => f.kind === 'inconsistent-bookbag')!;
    assert.equal(inconsistent.path, path);
    assert.equal(
      inconsistent.problem,
      `bookbag ${BEAD} is inconsistent: accepted is true but both verdicts are not PASS`,
    );
    assert.match(
      inconsistent.remedy,
      new RegExp(`baton review show ${BEAD}.*baton review validate ${BEAD} passes$`),
    );
    assert.match(
      findings.find((f) => f.kind === 'invalid-bookbag')!.problem,
      /^bookbag coder-docs-ffffffff is invalid: \/ must have required property/,
    );
  });
});
