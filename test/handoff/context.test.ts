import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { actingContext } from '../../lib/handoff/context.js';
import { CommandFailure } from '../../lib/fsx/commandFailure.js';
import { tempDir } from '../support/project.js';

function failsWith(...lines: string[]) {
  return (err: unknown) =>
    err instanceof CommandFailure &&
    err.kind === 'environment' &&
    JSON.stringify(err.lines) === JSON.stringify(lines);
}

const INIT_HINT =
  "Run 'baton init' in your project's git repository (where swarmforge/swarmforge.conf is), then run this command inside it.";

describe('lib/handoff/context', () => {
  let dir: string;
  let root: string;
  let outside: string;
  beforeEach(() => {
    dir = tempDir();
    root = join(dir, 'root');
    outside = join(dir, 'outside');
    fs.mkdirSync(join(root, '.swarmforge'), { recursive: true });
    fs.mkdirSync(outside);
    fs.writeFileSync(
      join(root, '.swarmforge', 'roles.tsv'),
      `coder\tmaster\t${root}\ts\tcoder\tclaude\ttask\nQA\tqa\t${root}/.worktrees/qa\ts\tQA\tclaude\tbatch\nbad_one\tm\t/x\ts\tb\tclaude\n`,
    );
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('resolves the acting role, ROOT and the role table', () => {
    const ctx = actingContext(join(root), { SWARMFORGE_ROLE: 'QA' });
    assert.equal(ctx.root, root);
    assert.deepEqual(ctx.role, {
      role: 'QA',
      worktreeName: 'qa',
      worktreePath: `${root}/.worktrees/qa`,
      session: 's',
      displayName: 'QA',
      agent: 'claude',
      mode: 'batch',
    });
    assert.deepEqual([...ctx.table.roles.keys()], ['coder', 'QA']);
    assert.equal(ctx.table.problems.length, 1);
  });

  it('checks in protocol order: an unset or empty role comes before a missing ROOT', () => {
    assert.throws(() => actingContext(outside, {}), failsWith('Set SWARMFORGE_ROLE.'));
    assert.throws(
      () => actingContext(outside, { SWARMFORGE_ROLE: '' }),
      failsWith('Set SWARMFORGE_ROLE.'),
    );
    assert.throws(
      () => actingContext(root, { SWARMFORGE_ROLE: '' }),
      failsWith('Set SWARMFORGE_ROLE.'),
    );
  });

  it('then ROOT comes before an unknown role', () => {
    assert.throws(
      () => actingContext(outside, { SWARMFORGE_ROLE: 'ghost' }),
      failsWith('Cannot find SwarmForge project root', INIT_HINT),
    );
  });

  it('then the role must be in roles.tsv: "Unknown role", or "Unknown sender role" for swarm_handoff, then the known roles', () => {
    assert.throws(
      () => actingContext(root, { SWARMFORGE_ROLE: 'ghost' }),
      failsWith('Unknown role: ghost', 'Known roles: coder, QA.'),
    );
    assert.throws(
      () => actingContext(root, { SWARMFORGE_ROLE: 'ghost' }, 'sender role'),
      failsWith('Unknown sender role: ghost', 'Known roles: coder, QA.'),
    );
    assert.throws(
      () => actingContext(root, { SWARMFORGE_ROLE: 'bad_one' }),
      failsWith('Unknown role: bad_one', 'Known roles: coder, QA.'),
      'a role on an ignored line is unknown',
    );
  });

  it('an unknown role that is close to a known one: the hint says which (case first, then a small edit distance)', () => {
    assert.throws(
      () => actingContext(root, { SWARMFORGE_ROLE: 'Coder' }),
      failsWith('Unknown role: Coder', "Known roles: coder, QA. Did you mean 'coder'?"),
      'role names are case-sensitive',
    );
    assert.throws(
      () => actingContext(root, { SWARMFORGE_ROLE: 'codr' }, 'sender role'),
      failsWith('Unknown sender role: codr', "Known roles: coder, QA. Did you mean 'coder'?"),
    );
    assert.throws(
      () => actingContext(root, { SWARMFORGE_ROLE: 'qa' }),
      failsWith('Unknown role: qa', "Known roles: coder, QA. Did you mean 'QA'?"),
    );
  });

  it('an unknown role from the environment is made printable, a line break included', () => {
    assert.throws(
      () => actingContext(root, { SWARMFORGE_ROLE: 'x\ny\x1b[2J' }),
      failsWith('Unknown role: x\\ny\\u001b[2J', 'Known roles: coder, QA.'),
    );
  });

  it('finds ROOT through $SWARMFORGE_ROOT from anywhere', () => {
    assert.equal(
      actingContext(outside, { SWARMFORGE_ROLE: 'coder', SWARMFORGE_ROOT: root }).root,
      root,
    );
  });
});
