import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { initRolesAndMailboxes } from '../../lib/admin/init.js';
import { importReferenceMail } from '../../lib/admin/referenceImport.js';
import { fixturePath } from '../support/fixtures.js';
import { itemsIn, makeRepo, placeItem, projectAt, type Project } from '../support/project.js';
import {
  fourRolesImports,
  placeLegacyItem,
  placeProblemItem,
  referenceFolderOf,
  writeFourRolesReferenceMail,
} from '../support/referenceMail.js';

describe('lib/admin/referenceImport', () => {
  let p: Project;
  afterEach(() => p.cleanup());

  /** The four-role pack, initialised without the import, its reference mail in place; returns the roles. */
  function fourRoles() {
    const root = makeRepo();
    fs.cpSync(fixturePath('packs', 'four-roles', 'swarmforge'), join(root, 'swarmforge'), {
      recursive: true,
    });
    p = projectAt(root);
    for (const name of ['master', 'coder', 'review', 'qa']) writeFourRolesReferenceMail(root, name);
    return initRolesAndMailboxes(root).roles;
  }

  it('imports every pending item once, in the order found, and a second run finds nothing left', async () => {
    const roles = fourRoles();
    const report = await importReferenceMail(p.root, roles);
    assert.deepEqual(report.left, []);
    assert.deepEqual(
      report.imported.map((i) => [i.from, i.to, i.role]),
      fourRolesImports(p.root).map((e) => [e.from, e.to, e.role]),
    );
    assert.deepEqual(
      report.imported.map((i) => i.id.split('_from_')[1]),
      ['architect', 'coder', 'coder', 'architect', 'coder', 'reviewer', 'reviewer'],
    );
    for (const e of fourRolesImports(p.root))
      assert.ok(fs.readFileSync(e.fixture).equals(fs.readFileSync(e.to)));
    assert.deepEqual(itemsIn(p.box('QA').inboxNew).length, 2);
    assert.deepEqual(await importReferenceMail(p.root, roles), { imported: [], left: [] });
  });

  it('reports an id already in the mailbox as imported (where it is), without a second copy', async () => {
    const roles = fourRoles();
    const [first] = fourRolesImports(p.root).filter(
      (e) => e.role === 'architect' && e.to.includes('/inbox/new/'),
    );
    const done = await placeItem(
      p.box('architect').completed,
      { id: '20250614T093000Z_000003_from_coder' },
      'x',
      first!.to.split('/').pop(),
    );
    const report = await importReferenceMail(p.root, roles);
    assert.deepEqual(
      report.imported.find((i) => i.from === first!.from),
      { from: first!.from, to: done, id: '20250614T093000Z_000003_from_coder', role: 'architect' },
    );
    assert.deepEqual(itemsIn(p.box('architect').inboxNew), []);
    assert.ok(fs.existsSync(first!.marked));
  });

  it('leaves a name clash, an ambiguous and an unusable item in place, each with its problem and remedy', async () => {
    const roles = fourRoles();
    const [first] = fourRolesImports(p.root);
    await placeItem(p.box('architect').outbox, { id: 'another' }, 'x', first!.to.split('/').pop());
    const foreign = placeProblemItem(
      join(p.root, '.worktrees', 'qa'),
      'inbox/new',
      'foreign-recipient.handoff',
      '50_x.handoff',
    );
    const noId = placeLegacyItem(referenceFolderOf(p.root, 'inbox/in_process'), '50_y.handoff', {
      from: 'coder',
    });
    const report = await importReferenceMail(p.root, roles);
    assert.deepEqual(report.left, [
      {
        path: first!.from,
        problem: `its name is taken in architect's mailbox by another item: ${first!.to}`,
        remedy: 'rename it (keep the .handoff ending), then run baton init',
      },
      {
        path: noId,
        problem: 'unusable item: no id header',
        remedy:
          'give it a readable header with an id line (or move it out of the folder), then run baton init',
      },
      {
        path: foreign,
        problem: "recipient 'tester' is not a role of this worktree (roles here: QA)",
        remedy:
          'set its recipient header to the role it belongs to (one of QA), then run baton init',
      },
    ]);
    assert.equal(report.imported.length, 6);
    for (const path of [first!.from, foreign, noId]) assert.ok(fs.existsSync(path), path);
  });
});
