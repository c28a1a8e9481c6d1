import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { CommandFailure } from '../../lib/fsx/commandFailure.js';
import { roleStateOf } from '../../lib/hooks/roleState.js';
import { makeProject, placeItem, snapshot, tempDir, type Project } from '../support/project.js';

describe('lib/hooks/roleState', () => {
  let p: Project;
  beforeEach(() => {
    p = makeProject();
  });
  afterEach(() => p.cleanup());
  const env = (role: string | undefined): NodeJS.ProcessEnv =>
    role === undefined ? {} : { SWARMFORGE_ROLE: role };

  it('an empty mailbox: the role, its receive mode, nothing waiting, nothing in process', () => {
    assert.deepEqual(roleStateOf(p.root, env('QA')), {
      root: p.root,
      role: 'QA',
      mode: 'batch',
      waiting: 0,
      inProcess: [],
    });
  });

  it('counts the handoffs in inbox/new (dot-files, temp files and other names are not handoffs) and lists in_process, files first', async () => {
    const box = p.box('reviewer');
    await placeItem(box.inboxNew, {});
    await placeItem(box.inboxNew, {});
    fs.writeFileSync(join(box.inboxNew, '.50_hidden.handoff'), '');
    fs.writeFileSync(join(box.inboxNew, '50_x.handoff.tmp'), '');
    const batch = join(box.inProcess, 'batch_20260101T000000Z_000001');
    await placeItem(batch, {});
    const file = await placeItem(box.inProcess, {});
    const state = roleStateOf(p.root, env('reviewer'));
    assert.equal(state.waiting, 2);
    assert.deepEqual(state.inProcess, [
      { kind: 'handoff', path: file },
      { kind: 'batch', path: batch },
    ]);
  });

  it('finds the project from a folder inside it, and from anywhere with SWARMFORGE_ROOT', () => {
    const sub = join(p.root, 'src', 'deep');
    fs.mkdirSync(sub, { recursive: true });
    assert.equal(roleStateOf(sub, env('coder')).root, p.root);
    const outside = tempDir();
    try {
      assert.equal(
        roleStateOf(outside, { SWARMFORGE_ROLE: 'coder', SWARMFORGE_ROOT: p.root }).root,
        p.root,
      );
    } finally {
      fs.rmSync(outside, { recursive: true, force: true });
    }
  });

  it('throws, as the agent commands do, when the role is unset or unknown or there is no project', () => {
    const isEnvironment = (err: unknown) =>
      err instanceof CommandFailure && err.kind === 'environment';
    assert.throws(() => roleStateOf(p.root, env(undefined)), isEnvironment);
    assert.throws(() => roleStateOf(p.root, env('ghost')), isEnvironment);
    const outside = tempDir();
    try {
      assert.throws(() => roleStateOf(outside, env('coder')), isEnvironment);
    } finally {
      fs.rmSync(outside, { recursive: true, force: true });
    }
  });

  it('throws when inbox/new is not a folder (a broken mailbox is not read as an empty one)', () => {
    const box = p.box('coder');
    fs.rmSync(box.inboxNew, { recursive: true });
    fs.writeFileSync(box.inboxNew, '');
    assert.throws(() => roleStateOf(p.root, env('coder')), /ENOTDIR/);
  });

  it('reads only: the project is byte-identical afterwards, no lock taken, nothing created', async () => {
    await placeItem(p.box('reviewer').inboxNew, {});
    fs.rmSync(p.box('QA').dir, { recursive: true });
    const before = snapshot(p.root);
    roleStateOf(p.root, env('reviewer'));
    roleStateOf(p.root, env('QA'));
    assert.deepEqual(snapshot(p.root), before);
    assert.equal(fs.existsSync(p.box('QA').dir), false);
  });
});
